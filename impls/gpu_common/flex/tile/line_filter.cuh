// The one-dimensional arithmetic every gpu_flex tile shares: where a position outside
// an axis reads (fold), the two recursion steps rounded the same way on host and device,
// and the filter of one line held in registers with its warm-up and look-ahead.
#pragma once

#include <cmath>
#include <cstdint>

#include "gpu_common/flex/flex_pass.hpp"
#include "gpu_common/flex/tile/block_ops.cuh"
#include "splinebench/bspline_math.hpp"

namespace splinebench::gpu::flex {

// The pole z = sqrt(3) - 2 and the gain 6 of the cubic B-spline prefilter, in float.
inline constexpr float kPoleF = -0.267949192431122706472553658494127633f;
inline constexpr float kGainF = 6.0f;

// Index of the sample that position k of a length-n axis reads under boundary mode
// `mode` (bspline::fold_index), in 32-bit arithmetic: axes are shorter than 2^30 and
// every position a tile reads lies within 2^30 of them. The device computes a 32-bit
// remainder inline; the 64-bit one is a call, which the halo lanes of every footprint
// row would make once per value.
SPLINEBENCH_HD int fold32(int mode, int k, int n) {
  if (k >= 0 && k < n) return k;
  // One reflection (or shift) reaches [0, n) for positions less than one axis length
  // outside it, which covers every halo position of an axis longer than kHalo: no
  // division. The same index as the remainder below.
  if (mode == 0 && n > 1) {
    if (k < 0 && k > -n) return -k;
    if (k >= n && k <= 2 * n - 2) return 2 * n - 2 - k;
  } else if (mode == 1) {
    if (k < 0 && k >= -n) return -k - 1;
    if (k >= n && k < 2 * n) return 2 * n - 1 - k;
  } else if (mode == 2) {
    if (k < 0 && k >= -n) return k + n;
    if (k >= n && k < 2 * n) return k - n;
  }
  const int p = mode == 0 ? (n == 1 ? 1 : 2 * n - 2) : mode == 1 ? 2 * n : n;  // bspline::mode_period
  int r = k % p;
  if (r < 0) r += p;
  if (mode == 0 && r >= n) return p - r;
  if (mode == 1 && r >= n) return p - 1 - r;
  return r;
}

// A rounded product the device compiler may not fuse with a later add (it would fuse
// z * (a - b) with the next step's subtraction into one FMA and round differently
// from the host).
SPLINEBENCH_HD float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

// c+[k] = 6 f[k] + z c+[k-1] and c[k] = z (c[k+1] - c+[k]), rounded the same way on
// host and device. Both recursions are one fused multiply-add on the chain: the product
// with the input (6 f[k], z c+[k]) does not depend on the previous step, so the chain
// from one output to the next is one FMA rather than a subtraction and a multiplication.
// Two roundings per step either way; against z (c[k+1] - c+[k]) it cost no time and
// gave a smaller error against the oracle.
SPLINEBENCH_HD float causal_step(float previous, float sample) {
  return fmaf(kPoleF, previous, mul_rn(kGainF, sample));
}
SPLINEBENCH_HD float anticausal_step(float next, float causal) { return fmaf(kPoleF, next, -mul_rn(kPoleF, causal)); }

// One line of `n` values in registers: causal from zero over all of them, then
// anti-causal from zero back down to position kHalo. Positions [kHalo, n - kHalo)
// then hold finished coefficients.
template <int N>
SPLINEBENCH_HD void filter_window(float (&v)[N]) {
  float c = 0.f;
  SB_FLEX_UNROLL
  for (int k = 0; k < N; ++k) {
    c = causal_step(c, v[k]);
    v[k] = c;
  }
  float a = 0.f;
  SB_FLEX_UNROLL
  for (int k = N - 1; k >= kHalo; --k) {
    a = anticausal_step(a, v[k]);
    v[k] = a;
  }
}

}  // namespace splinebench::gpu::flex
