// The device side of the GPU assembly on plain arrays (gpu_assembly.cpp wraps it in Eigen).
#pragma once

#include <memory>
#include <vector>

#include "grid_layout.hpp"

namespace splinebench::scattered::gpu::detail {

struct HostCsr {
  std::vector<int> outer, inner;
  std::vector<double> value, rhs;
  // upload and readback: wall seconds; the others: CUDA events.
  double upload_s = 0, sort_s = 0, pattern_s = 0, values_s = 0, readback_s = 0;
};

// The assembled normal equations kept on the device (CSR with the f64 values and F^T f as
// assembled): DeviceCg solves them where they are, and only a caller that asks for the
// matrix pays for its trip to the host (download()): at 512^2 the CSR is ~150 MB, its
// readback took longer than the assembly and CG together.
// gather = false: the atomic "shooting" assembly; true: the deterministic gather.
class DeviceSystem {
 public:
  DeviceSystem(const GridLayout& layout, const SampleArrays& samples, bool gather);
  ~DeviceSystem();
  DeviceSystem(const DeviceSystem&) = delete;
  DeviceSystem& operator=(const DeviceSystem&) = delete;

  long long rows() const;
  // The matrix and F^T f (readback_s: the download's wall seconds; the assembly's times).
  HostCsr download() const;
  // F^T f alone (rows doubles).
  std::vector<double> rhs() const;

  // upload: wall seconds; the others: CUDA events.
  double upload_s = 0, sort_s = 0, pattern_s = 0, values_s = 0;

  struct State;
  const State& state() const { return *s_; }

 private:
  std::unique_ptr<State> s_;
};

// DeviceSystem(layout, samples, gather).download().
HostCsr assemble_csr(const GridLayout& layout, const SampleArrays& samples, bool gather);

}  // namespace splinebench::scattered::gpu::detail
