// What the axis-0 kernels of slab_kernels.cuh and stream_kernels.cuh share: one thread
// per float of a plane (index i over fields * P, grid-stride; field f = i / P, value
// p = i % P), walking its value through the slab's planes, which lie P floats apart, so
// a warp's accesses to one plane are 32 consecutive floats.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace splinebench::gpu::slabs::walk {

// Values of a plane batch loaded before the recursion uses them: the loads of a batch
// do not wait on the recursion's stores (which the compiler cannot reorder across).
inline constexpr int kBatch = 8;

struct ValueIndex {
  std::int64_t f;
  std::int64_t p;
};

__device__ __forceinline__ ValueIndex split(std::int64_t i, std::int64_t P) {
  const std::int64_t f = i / P;
  return {f, i - f * P};
}

__device__ __forceinline__ std::int64_t first_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ std::int64_t grid_step() { return static_cast<std::int64_t>(gridDim.x) * blockDim.x; }

// The causal recursion c+[j] = gain * f[j] + z * c+[j-1] over planes 1 .. len-1 of one
// value, from c+[0] = `first` (already stored at d[0]).
__device__ __forceinline__ void causal_walk(float* d, std::int64_t P, std::int64_t len, float first, float z,
                                            float gain) {
  float prev = first;
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

}  // namespace splinebench::gpu::slabs::walk
