// Device side of the "temp array" prefilter: one thread copies its line into a local
// array, filters it there with the step kernel's line filter (filter_line: the same
// recursions and exact boundary initial values, so the same float arithmetic as
// gpu_naive), and writes the coefficients back. Only the copies touch global memory;
// the recursions read and write the local array, which the hardware interleaves across
// the threads of a warp, so they are coalesced along every axis, the contiguous one too.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu_common/device_vec.cuh"
#include "gpu_common/prefilter_step_kernel.cuh"

namespace splinebench::gpu::detail {

struct TempPrefilterParams {
  // The recursion's constants and the line layout: filter.lines, filter.inner and
  // filter.n as in the step kernel; filter.stride is C (neighbours in the local array)
  // and filter.data is unused.
  StepPrefilterParams<float> filter;
  const float* src;     // samples in
  float* dst;           // coefficients out (may equal src)
  std::int64_t stride;  // floats between neighbours along the axis in global memory
};

// L: the local array's length in samples (a compile-time size, as the paper's
// MAXSIZE); the host picks the smallest that holds the line, so short lines do not
// reserve local memory for long ones. Consecutive threads take consecutive lines of the
// same outer block, as in the step kernel.
template <int C, int L>
__global__ void __launch_bounds__(128) temp_prefilter_kernel(const TempPrefilterParams p) {
  const std::int64_t line = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (line >= p.filter.lines) return;
  const std::int64_t outer = line / p.filter.inner;
  const std::int64_t inner = line - outer * p.filter.inner;
  const std::int64_t offset = outer * p.filter.n * p.stride + inner * C;
  const float* in = p.src + offset;
  float* out = p.dst + offset;
  const int n = p.filter.n;

  alignas(sizeof(float) * C) float temp[L * C];
  for (int k = 0; k < n; ++k) store<C>(temp + k * C, load<C>(in + k * p.stride));
  filter_line<C>(temp, p.filter);
  for (int k = 0; k < n; ++k) store<C>(out + k * p.stride, load<C>(temp + k * C));
}

}  // namespace splinebench::gpu::detail
