// coefficient_stats: one pass over a field batch computing max|v| and the largest
// difference between neighbours along the texture-filtered axes (the quantities the
// texture error bound is stated in). Non-negative floats order like their bit
// patterns, so the maxima are reduced with integer atomicMax; NaN (bits above every
// finite value) wins, so bad data gives a NaN bound instead of a silent pass.
#include <algorithm>
#include <cstdint>

#include "gpu_common/texture_field.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/cuda/device_buffer.hpp"
#include "splinebench/error.hpp"

namespace splinebench::gpu {
namespace {

struct StatsParams {
  const float* data;
  std::int64_t total;  // floats in the batch
  int axes;            // filtered axes, the last `axes` of the grid
  int periodic;
  std::int64_t extent[3];  // of the filtered axes, innermost last
  std::int64_t stride[3];  // in floats
  unsigned* result;        // [0]: max|v| bits, [1]: max neighbour difference bits
};

__device__ __forceinline__ unsigned magnitude_bits(float v) { return __float_as_uint(fabsf(v)); }

// Index: 32-bit unsigned when the batch has fewer than 2^31 floats (cheaper
// divisions), else 64-bit.
template <typename Index>
__global__ void stats_kernel(const StatsParams p) {
  unsigned max_abs = 0, max_diff = 0;
  const Index total = static_cast<Index>(p.total);
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += static_cast<Index>(gridDim.x) * blockDim.x) {
    const float v = p.data[i];
    max_abs = max(max_abs, magnitude_bits(v));
    for (int a = 0; a < p.axes; ++a) {
      const Index stride = static_cast<Index>(p.stride[a]), extent = static_cast<Index>(p.extent[a]);
      const Index k = (i / stride) % extent;
      if (k + 1 < extent)
        max_diff = max(max_diff, magnitude_bits(p.data[i + stride] - v));
      else if (p.periodic && extent > 1)
        max_diff = max(max_diff, magnitude_bits(p.data[i - k * stride] - v));
    }
  }
  max_abs = __reduce_max_sync(0xffffffffu, max_abs);
  max_diff = __reduce_max_sync(0xffffffffu, max_diff);
  if ((threadIdx.x & 31) == 0) {
    atomicMax(p.result, max_abs);
    atomicMax(p.result + 1, max_diff);
  }
}

}  // namespace

CoefficientStats coefficient_stats(const GridShape& shape, std::int64_t fields, Mode mode, const float* d_data,
                                   cudaStream_t stream) {
  shape.validate();
  if (fields < 1) throw Error("coefficient_stats: fields must be >= 1");
  StatsParams p{};
  p.data = d_data;
  p.total = fields * shape.values();
  p.axes = std::min(shape.dims, 3);
  p.periodic = mode == Mode::periodic;
  for (int a = 0; a < p.axes; ++a) {
    const int axis = shape.dims - p.axes + a;
    p.extent[a] = shape.extent[axis];
    p.stride[a] = shape.stride(axis);
  }
  DeviceBuffer<unsigned> result(2);
  p.result = result.data();
  SB_CUDA_CHECK(cudaMemsetAsync(result.data(), 0, 2 * sizeof(unsigned), stream));
  // Whole warps only (the warp reduction assumes all 32 lanes are present).
  const std::int64_t blocks = std::clamp<std::int64_t>((p.total + 255) / 256, 1, 4096);
  if (p.total < (std::int64_t{1} << 31))
    stats_kernel<std::uint32_t><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(p);
  else
    stats_kernel<std::uint64_t><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(p);
  SB_CUDA_CHECK_LAUNCH("stats_kernel");
  unsigned host[2] = {0, 0};
  SB_CUDA_CHECK(cudaMemcpyAsync(host, result.data(), sizeof(host), cudaMemcpyDeviceToHost, stream));
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  CoefficientStats s;
  s.max_abs = __builtin_bit_cast(float, host[0]);
  s.max_neighbour_difference = __builtin_bit_cast(float, host[1]);
  return s;
}

float max_neighbour_difference(const GridShape& shape, std::int64_t fields, Mode mode, const float* d_coeffs,
                               cudaStream_t stream) {
  return coefficient_stats(shape, fields, mode, d_coeffs, stream).max_neighbour_difference;
}

}  // namespace splinebench::gpu
