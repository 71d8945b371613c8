// The summation order of flex_strips (cuda/strips.cu), shared by the kernel and its host
// emulation (reference.hpp filter_f32_strip_order) so that the two cannot drift apart.
//
// A strip is 32 image rows [32 n, 32 n + 32). An output (t, j) is
//
//   y = fma(b(1,0), y(t-1, j), fma(b(0,1), y(t, j-1), x + pre))        (M >= 2; M = 1: x + pre)
//
// where pre sums every other term, grouped by source row t - m (m = 0 .. M-1):
//   P(m)   = fma chain over l = lmin(m) .. M-1 (increasing, from +0) of b(m, l) y(t-m, j-l),
//            lmin(0) = 2, lmin(1) = 1, lmin(m >= 2) = 0 (the chain terms (0,1), (1,0) left out);
//   D_w    = for warp w = 0 .. 3: the P(m) with m in [w K, w K + K) whose source row lies in
//            one strip, added in increasing m to +0 (K = strip_terms_per_warp(M));
//   S      = (D_0 + D_1) + (D_2 + D_3), one per contributing strip;
//   pre    = the strips' S added top-down to +0 (the topmost strip holding a source row
//            first, the target's own strip last).
// y = 0 outside the image. The order depends only on M and the row's place in its strip.
#pragma once

#if defined(__CUDACC__)
#define SPLINEBENCH_IIR2D_HD __host__ __device__
#else
#define SPLINEBENCH_IIR2D_HD
#endif

namespace splinebench::iir2d {

inline constexpr int kStripRows = 32;   // rows per strip: one warp lane per row
inline constexpr int kStripWarps = 4;   // producer warps, each summing a range of K source offsets m

// The window size the kernel is built for: M itself up to 32, then 40, 48, 56, 64 (the
// extra coefficients are zero, which adds exact zeros: the bits of a finite result are
// those of M, but the warps' ranges K follow the bucket).
SPLINEBENCH_IIR2D_HD constexpr int strip_bucket(int M) { return M <= 32 ? M : (M + 7) / 8 * 8; }

// Source offsets m per producer warp: warp w sums m in [w K, min(w K + K, bucket)).
SPLINEBENCH_IIR2D_HD constexpr int strip_terms_per_warp(int M) {
  return (strip_bucket(M) + kStripWarps - 1) / kStripWarps;
}

#undef SPLINEBENCH_IIR2D_HD

}  // namespace splinebench::iir2d
