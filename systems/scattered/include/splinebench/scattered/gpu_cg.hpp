// Conjugate gradient on the GPU: the matrix (the CPU assembly's CSR, uploaded in f32),
// vectors in f32, every dot product accumulated in f64 (two passes, so the sum is the
// same from run to run). alpha, beta and the stop are formed on the device from the f64
// dots (src/gpu/cg_device_loop.cuh), so an iteration waits for the host nowhere; the host
// reads the state every 16 iterations. The returned report's relres is b - A x recomputed
// on the host in f64 with the f64 matrix, from the downloaded f32 x.
//
// A build without CUDA compiles the same interface; device_unavailable_reason() then
// says so and the solver throws splinebench::Unsupported.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "splinebench/phase_times.hpp"
#include "splinebench/scattered/solvers.hpp"

namespace splinebench::scattered::gpu {

// "" when a CUDA device can run the GPU solvers, otherwise why not.
std::string device_unavailable_reason();
// The current device's peak memory bandwidth in bytes per second (its memory clock times
// its bus width, two transfers a clock), for the traffic bounds the tests state; throws
// Unsupported without a device.
double device_peak_bandwidth();

struct CgResult {
  std::vector<float> coeffs;
  SolveReport report;  // history: relres of the recurrence residual (f64 norm of the f32 vector)
};

// Prepared once: the matrix and rhs uploaded (setup phase "upload"); each solve() runs CG
// from x = 0 (phases "solve", CUDA events around the iterations, and "readback"). eq must
// outlive the object (relres is recomputed on it).
class PreparedCg {
 public:
  explicit PreparedCg(const NormalEquations& eq);
  ~PreparedCg();
  PreparedCg(const PreparedCg&) = delete;
  PreparedCg& operator=(const PreparedCg&) = delete;
  CgResult solve(const IterationControl& control, PhaseTimes& times);
  const PhaseTimes& setup() const { return setup_; }

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  PhaseTimes setup_;
};

// PreparedCg's upload and one solve. Phases recorded: "upload" (matrix and rhs), "solve",
// "readback".
CgResult conjugate_gradient_f32(const NormalEquations& eq, const IterationControl& control, PhaseTimes& times);

}  // namespace splinebench::scattered::gpu
