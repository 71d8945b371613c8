// The arithmetic of one gpu_lines lane, host and device: the cubic B-spline prefilter of a
// segment of S outputs from its window of S + 2 kHalo folded samples, and the folding of a
// window index into the line by the boundary mode.
//
// Truncation (gpu_flex's, derived in gpu_common/flex/flex_pass.hpp): the causal recursion
// starts from zero kHalo samples before the segment, the anti-causal one kHalo samples
// after it; the omitted tails add at most 5.4 |z|^17 max|input| = 1.0e-9 max|input| per
// axis. A window position outside the line reads the folded sample, which is what the
// oracle's closed-form initial values sum over, so no mode needs boundary formulas.
#pragma once

#include <cmath>
#include <cstdint>

#include "splinebench/bspline_math.hpp"

#if defined(__CUDA_ARCH__)
#define SB_LINES_UNROLL _Pragma("unroll")
#else
#define SB_LINES_UNROLL
#endif

namespace splinebench::gpu::lines {

// Samples of warm-up before and look-ahead after each segment.
inline constexpr int kHalo = 16;

// in[0 .. S + 2 kHalo - 1] = f at s0 - kHalo .. s0 + S + kHalo - 1 (folded);
// out[0 .. S - 1] = c at s0 .. s0 + S - 1. The gain in the causal step, f32 FMAs,
// c[k] = z (c[k+1] - c+[k]); the window lives in registers on the device (unrolled).
template <int S>
SPLINEBENCH_HD void lane_outputs(const float* in, float* out) {
  const float z = static_cast<float>(bspline::kPole);
  float cp[S + kHalo];
  float st = 0.f;
  SB_LINES_UNROLL
  for (int k = 0; k < kHalo; ++k) st = fmaf(z, st, 6.f * in[k]);
  SB_LINES_UNROLL
  for (int k = 0; k < S + kHalo; ++k) {
    st = fmaf(z, st, 6.f * in[kHalo + k]);
    cp[k] = st;
  }
  float c = 0.f;
  SB_LINES_UNROLL
  for (int k = S + kHalo - 1; k >= 0; --k) {
    c = z * (c - cp[k]);
    if (k < S) out[k] = c;
  }
}

// The folding of a window index j into a line of n samples. On a line of at least
// S + kHalo samples one reflection folds every position of a segment's window (s0 < n, so
// j lies in [-kHalo, n + S + kHalo - 2]; mirror's right end is the tightest bound:
// 2n - 2 - j >= 0), and each side is an affine map: j < 0 -> lm j + lc, j >= n -> rm j + rc.
// fold_once picks one of the three with selects, not branches: the unrolled window is
// straight-line code that every warp fetches once, and branches per position made it
// several times larger (the same index as fold_index: the unit test checks it for every
// mode, segment length and window on a range of n).
struct OneReflection {
  int lm, lc, rm, rc;
};
SPLINEBENCH_HD OneReflection one_reflection(int mode, int n) {
  if (mode == 0) return {-1, 0, -1, 2 * n - 2};  // mirror: about 0 and n - 1
  if (mode == 1) return {-1, -1, -1, 2 * n - 1};  // half: about -1/2 and n - 1/2
  return {1, n, 1, -n};                          // periodic
}
template <int S>
SPLINEBENCH_HD bool folds_once(int n) {
  return n >= S + kHalo;
}
SPLINEBENCH_HD int fold_once(const OneReflection& F, int j, int n) {
  const int left = F.lm * j + F.lc, right = F.rm * j + F.rc;
  return j < 0 ? left : (j >= n ? right : j);
}

// A line shorter than S + kHalo (several reflections possible): window position k at
// offset fold_index(...) * step, position by position in a loop that is not unrolled (so
// that its code is not repeated per position), into a buffer copied to the lane's registers.
template <int S, typename Load>
SPLINEBENCH_HD void load_window_short(int mode, int s0, int n, float* x, Load load) {
  float w[S + 2 * kHalo];
#if defined(__CUDA_ARCH__)
#pragma unroll 1
#endif
  for (int k = 0; k < S + 2 * kHalo; ++k) w[k] = load(static_cast<int>(bspline::fold_index(mode, s0 - kHalo + k, n)));
  SB_LINES_UNROLL
  for (int k = 0; k < S + 2 * kHalo; ++k) x[k] = w[k];
}

}  // namespace splinebench::gpu::lines
