// Accuracy of a float32 result against the double oracle, and the bound it is judged by.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace splinebench::iir2d {

struct Accuracy {
  double max_abs = 0;        // max |y - y_ref| over written, finite elements
  double max_ref = 0;        // max |y_ref|
  double max_rel = 0;        // max_abs / max_ref (0 when max_ref == 0); NaN when an output is non-finite
  std::int64_t unwritten = 0;   // outputs still NaN (poisoned) where y_ref is finite
  std::int64_t nonfinite = 0;   // outputs +-inf, or NaN where y_ref is NaN as well
};
Accuracy compare(const std::vector<float>& y, const std::vector<double>& y_ref);

// The worst-case bound on max|y - y_ref| / max|y_ref| of a float32 scheme whose every
// output is one sum of x and the M^2 - 1 products, rounded along a chain of at most
// `depth` operations, with the loop gain g = sum |b| < 1:
//   local error   |d| <= gamma_depth * (|x| + sum |b| |y|) <= gamma_depth (1 + 2g) max|y|
//                 (|x| = |y - sum b y| <= (1 + g) max|y|),
//   propagated    e = d + sum b e  =>  max|e| <= max|d| / (1 - g),
// so max|e| / max|y| <= gamma_depth (1 + 2g) / (1 - g), gamma_n = n u / (1 - n u),
// u = 2^-24 (first order in u: y and the computed y differ by that much). Infinite
// for g >= 1.
double error_bound(int depth, double gain);

// The summation depth of the GPU schemes' window sum (cuda/window_sum.cuh): each of 32
// lanes sums its ceil((M^2 - 1) / 32) terms in 4 interleaved accumulators (ceil(n/4)
// fused multiply-adds each), adds them pairwise (2), the warp adds lanes in a tree (5),
// and x is added last (1).
int gpu_sum_depth(int M);
// The CPU float32 filter's: M^2 - 1 terms one after another, then x.
int sequential_sum_depth(int M);
// flex_strips' (strip_order.hpp): a term passes at most M fused multiply-adds in its
// source row's chain P(m), K additions in its warp's range (K = strip_terms_per_warp),
// 2 combining the four warps, one addition per contributing strip (1 + ceil((M-1)/32)),
// then x + pre and the two chain terms' fused multiply-adds (3):
//   M + K + 2 + (1 + ceil((M - 1) / 32)) + 3,   46 at M = 31.
// Its worst-case bound at M = 31, g = 0.9 is 7.7e-5: above the 1e-5 target, which (as for
// the window sum's 2.7e-5) is a measured criterion, not a consequence of the bound.
int strip_sum_depth(int M);

// The acceptance target of the experiment (max|y - y_ref| / max|y_ref| for
// sum |b| <= 0.9, M <= 31), a measured criterion beside the derived bound.
inline constexpr double kTargetRel = 1e-5;

struct Tolerance {
  double max_rel = 0;
  std::string basis;
};
Tolerance gpu_tolerance(int M, double gain);     // the window sum (every scheme but flex_strips)
Tolerance strip_tolerance(int M, double gain);   // flex_strips' order (strip_sum_depth)

}  // namespace splinebench::iir2d
