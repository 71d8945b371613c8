// What the kernels share: the window sum (its rounding depth is the one the tolerance
// assumes, accuracy.hpp gpu_sum_depth), the watchdog clock (the test-only pauses are
// splinebench/cuda/adversarial_pause.cuh).
#pragma once

#include <cstdint>

namespace splinebench::iir2d::dev {

inline constexpr unsigned kFull = 0xffffffffu;

// Lane 0 gets the sum of the warp's s in a fixed tree: level d adds lane L + d to lane L.
// Levels with d >= terms are skipped: every lane they would add holds the empty sum (a
// lane L >= terms has no term), so they cannot change lane 0 and only cost latency.
__device__ __forceinline__ float lane_tree_sum(float s, int terms) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1)
    if (d < terms) s += __shfl_down_sync(kFull, s, d);
  return s;
}

// Sum over the window terms idx = 1 .. M^2 - 1 of coef(idx) * value(idx) by one warp:
// lane L takes idx = L + 1 + 32 m in four interleaved accumulators (m mod 4), the
// accumulators are added pairwise and the lanes in a fixed tree (lane_tree_sum). Lane 0
// holds the sum. The order is fixed by (M, lane), so results are bitwise reproducible.
// A lane's loads go out eight at a time before their FMAs: the sum is a chain of load
// latencies otherwise (30 terms per lane at M = 31).
template <typename Value, typename Coef>
__device__ __forceinline__ float window_sum(int terms, int lane, Value value, Coef coef) {
  constexpr int kChunk = 8;  // a multiple of 4: term m of a chunk goes to accumulator m mod 4
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  for (int m0 = 0; 32 * m0 < terms; m0 += kChunk) {
    float v[kChunk], c[kChunk];
#pragma unroll
    for (int q = 0; q < kChunk; ++q) {
      const int idx = lane + 1 + 32 * (m0 + q);
      v[q] = idx <= terms ? value(idx) : 0.f;
      c[q] = idx <= terms ? coef(idx) : 0.f;
    }
#pragma unroll
    for (int q = 0; q < kChunk; ++q)
      if (lane + 1 + 32 * (m0 + q) <= terms) acc[q & 3] = fmaf(c[q], v[q], acc[q & 3]);
  }
  return lane_tree_sum((acc[0] + acc[1]) + (acc[2] + acc[3]), terms);
}

__device__ __forceinline__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

}  // namespace splinebench::iir2d::dev
