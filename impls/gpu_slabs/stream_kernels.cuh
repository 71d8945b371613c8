// Device side of stream_kernels.hpp, with slab_kernels.cuh's layout: one thread per float
// of a plane (index i over fields * P, grid-stride), field f = i / P, value p = i % P,
// walking its value through the slab's planes (P floats apart, so a warp touches 32
// consecutive floats of each plane). Its own helpers: slab_kernels.cuh defines kernels,
// so it is included by one translation unit only.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu_slabs/stream_kernels.hpp"

namespace splinebench::gpu::slabs::stream_detail {

// Planes loaded before the recursion consumes them, so a batch's loads do not wait on
// the recursion's stores (as slab_kernels.cuh's kBatch).
inline constexpr int kBatch = 8;

__device__ __forceinline__ std::int64_t first_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ std::int64_t grid_step() { return static_cast<std::int64_t>(gridDim.x) * blockDim.x; }

__global__ void causal_state_kernel(PlaneGeometry g, float* slab, std::int64_t pitch, std::int64_t len,
                                    const float* previous, float z, float gain) {
  const std::int64_t P = g.P;
  for (std::int64_t i = first_index(); i < g.fields * P; i += grid_step()) {
    const std::int64_t f = i / P;
    float* d = slab + f * pitch + (i - f * P);
    float prev = gain * d[0] + z * previous[i];
    d[0] = prev;
    for (std::int64_t j0 = 1; j0 < len; j0 += kBatch) {
      float x[kBatch];
#pragma unroll
      for (int b = 0; b < kBatch; ++b)
        if (j0 + b < len) x[b] = d[(j0 + b) * P];
#pragma unroll
      for (int b = 0; b < kBatch; ++b)
        if (j0 + b < len) {
          prev = gain * x[b] + z * prev;
          d[(j0 + b) * P] = prev;
        }
    }
  }
}

__global__ void add_weighted_sum_kernel(PlaneGeometry g, PlaneTerms terms, const float* slab, std::int64_t pitch,
                                        float* out, bool accumulate) {
  for (std::int64_t i = first_index(); i < g.fields * g.P; i += grid_step()) {
    const std::int64_t f = i / g.P;
    const float* d = slab + f * pitch + (i - f * g.P);
    float share = 0.0f;
    for (int t = 0; t < terms.count; ++t) share += terms.weight[t] * d[terms.plane[t] * g.P];
    out[i] = accumulate ? out[i] + share : share;
  }
}

}  // namespace splinebench::gpu::slabs::stream_detail
