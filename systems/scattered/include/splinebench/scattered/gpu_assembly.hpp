// The normal equations assembled on the GPU in f64, two ways, on the same CSR pattern as
// the CPU assembly (assembly.hpp), downloaded as a NormalEquations or solved where they
// are (assemble_and_solve):
//
//   atomic  the seed's "shooting": one thread per sample adds its products with atomics.
//           The summation order varies from run to run; each entry differs from the CPU's
//           by at most a rounding bound (tests/scattered/test_scattered_gpu_assembly.cpp).
//   gather  samples sorted by cell (a stable radix sort), each entry summed by one thread
//           over the cells both nodes reach, in a fixed order: bitwise repeatable.
//
// Phases recorded: "upload" (samples), "assemble_sort" (gather only), "assemble_pattern",
// "assemble_values" (F^T F, F^T f and lambda R), "readback". Throws splinebench::Unsupported
// without a device or CUDA build, or when the pattern has more entries than 32-bit CSR
// indices address (a 3-D grid beyond about 184^3: use the matrix-free operator,
// gpu_operator.hpp).
#pragma once

#include <memory>
#include <string_view>

#include "splinebench/phase_times.hpp"
#include "splinebench/scattered/assembly.hpp"
#include "splinebench/scattered/gpu_cg.hpp"

namespace splinebench::scattered::gpu {

enum class AssemblyMethod { atomic, gather };
std::string_view to_string(AssemblyMethod method);

// The host's part prepared once (the grid's layout, the samples as plain arrays); each
// assemble() does the device's work (upload, sort, pattern, values, readback): the
// sample-based solvers time it as part of every solve. problem.validate() first.
class DeviceAssembler {
 public:
  DeviceAssembler(const Problem& problem, AssemblyMethod method);
  ~DeviceAssembler();
  DeviceAssembler(const DeviceAssembler&) = delete;
  DeviceAssembler& operator=(const DeviceAssembler&) = delete;
  NormalEquations assemble(PhaseTimes& times) const;
  // Assembles on the device and runs gpu_cg.hpp's CG there, on the system narrowed to f32
  // where it was assembled: only F^T f (for ||b||) and x come back, not the matrix.
  // Phases: "upload" (samples), the assembly's, "solve", "readback" (F^T f and x).
  // report.relres is the CG recurrence's (f32 vectors, f64 norms): a caller holding the
  // f64 system recomputes it.
  CgResult assemble_and_solve(const IterationControl& control, PhaseTimes& times) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// DeviceAssembler's preparation and one assemble().
NormalEquations assemble_on_device(const Problem& problem, AssemblyMethod method, PhaseTimes& times);

}  // namespace splinebench::scattered::gpu
