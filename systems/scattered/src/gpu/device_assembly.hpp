// The device side of the GPU assembly on plain arrays (gpu_assembly.cpp wraps it in Eigen).
#pragma once

#include <vector>

#include "grid_layout.hpp"

namespace splinebench::scattered::gpu::detail {

struct HostCsr {
  std::vector<int> outer, inner;
  std::vector<double> value, rhs;
  // upload and readback: wall seconds; the others: CUDA events.
  double upload_s = 0, sort_s = 0, pattern_s = 0, values_s = 0, readback_s = 0;
};

// gather = false: the atomic "shooting" assembly; true: the deterministic gather.
HostCsr assemble_csr(const GridLayout& layout, const SampleArrays& samples, bool gather);

}  // namespace splinebench::scattered::gpu::detail
