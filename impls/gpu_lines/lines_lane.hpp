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
#if defined(__CUDACC__)
#define SB_LINES_NOINLINE __host__ __device__ __noinline__
#else
#define SB_LINES_NOINLINE inline
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

// bspline::fold_index for int indices (n < 2^30, j within a window of the line), one
// reflection tried first: the only case of a halo on a line at least as long as it. The
// general case (a line shorter than its window) is out of line, so that it costs the
// kernels no registers where it is never taken. The same index as fold_index for every
// (mode, j, n): the unit test checks it exhaustively on small n.
SB_LINES_NOINLINE int fold_slow(int mode, int j, int n) {
  return static_cast<int>(bspline::fold_index(mode, j, n));
}
SPLINEBENCH_HD int fold_fast(int mode, int j, int n) {
  if (j >= 0 && j < n) return j;
  int r;
  if (mode == 0)
    r = j < 0 ? -j : 2 * n - 2 - j;  // mirror: about 0 and n - 1
  else if (mode == 1)
    r = j < 0 ? -1 - j : 2 * n - 1 - j;  // half: about -1/2 and n - 1/2
  else
    r = j < 0 ? j + n : j - n;  // periodic
  if (r >= 0 && r < n) return r;
  return fold_slow(mode, j, n);
}

}  // namespace splinebench::gpu::lines
