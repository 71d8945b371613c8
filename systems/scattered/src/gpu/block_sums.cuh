// The fixed-order f64 reductions behind every dot product and residual norm of the
// scattered solvers: the same additions in the same order on every run, so a solve
// repeats bit for bit.
#pragma once

#include <cuda_runtime.h>

namespace splinebench::scattered::gpu::detail {

// This thread's share of a . b in f64: elements i, i + the grid's threads, ... from its
// global index, summed in that order (the fixed order every dot product here starts from).
__device__ inline double grid_stride_dot(long long n, const float* __restrict__ a, const float* __restrict__ b) {
  double s = 0;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    s += static_cast<double>(a[i]) * static_cast<double>(b[i]);
  return s;
}

// partial[blockIdx.x] = the sum of every thread's s: a shuffle-down tree in each warp,
// then thread 0 adds the warps in index order. Every thread of the block (Threads of
// them) must call it.
template <int Threads>
__device__ inline void store_block_sum(double s, double* partial) {
  __shared__ double warp_sums[Threads / 32];
  for (int off = 16; off > 0; off /= 2) s += __shfl_down_sync(0xffffffffu, s, off);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    double t = 0;
    for (int w = 0; w < Threads / 32; ++w) t += warp_sums[w];
    partial[blockIdx.x] = t;
  }
}

// The sum of Count partials by one warp: lane l adds partials l, l + 32, ..., then a
// butterfly; every lane returns the same total. All 32 lanes must call it. The partials
// are read from L2, so the last block of the launch that wrote them may sum them too.
template <int Count>
__device__ inline double warp_sum_of_partials(const double* partial) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  double t = 0;
#pragma unroll
  for (int i = 0; i < (Count + 31) / 32; ++i)
    if (i * 32 + lane < Count) t += __ldcg(partial + i * 32 + lane);
  for (int off = 16; off > 0; off /= 2) t += __shfl_xor_sync(0xffffffffu, t, off);
  return t;
}

}  // namespace splinebench::scattered::gpu::detail
