// What the kernels share: the window sum (its rounding depth is the one the tolerance
// assumes, accuracy.hpp gpu_sum_depth), the watchdog clock and the test-only pauses.
#pragma once

#include <cstdint>

namespace splinebench::iir2d::dev {

inline constexpr unsigned kFull = 0xffffffffu;

// Sum over the window terms idx = 1 .. M^2 - 1 of coef(idx) * value(idx) by one warp:
// lane L takes idx = L + 1 + 32 m in four interleaved accumulators (m mod 4), the
// accumulators are added pairwise and the lanes in a fixed tree. Lane 0 holds the
// sum. The order is fixed by (M, lane), so results are bitwise reproducible.
template <typename Term>
__device__ __forceinline__ float window_sum(int terms, int lane, Term term) {
  float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f;
  int t = lane;
  for (; t + 96 < terms; t += 128) {
    a0 = term(t + 1, a0);
    a1 = term(t + 33, a1);
    a2 = term(t + 65, a2);
    a3 = term(t + 97, a3);
  }
  if (t < terms) a0 = term(t + 1, a0);
  if (t + 32 < terms) a1 = term(t + 33, a1);
  if (t + 64 < terms) a2 = term(t + 65, a2);
  float s = (a0 + a1) + (a2 + a3);
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) s += __shfl_down_sync(kFull, s, d);
  return s;
}

__device__ __forceinline__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// A pseudo-random pause of up to 20 us, 200 us for one call in eight (test stalls).
__device__ inline void test_pause(std::uint64_t seed, long long salt, int where) {
  std::uint64_t h = seed ^ (static_cast<std::uint64_t>(salt) * 0x9E3779B97F4A7C15ull) ^
                    (static_cast<std::uint64_t>(where + 1) * 0xBF58476D1CE4E5B9ull);
  h ^= h >> 31;
  h *= 0x94D049BB133111EBull;
  h ^= h >> 29;
  unsigned ns = static_cast<unsigned>(h % 20000u);
  if (((h >> 40) & 7u) == 0) ns = 200000u;
  for (unsigned slept = 0; slept < ns; slept += 1000u) __nanosleep(1000u);
}

}  // namespace splinebench::iir2d::dev
