// Accuracy bound of a float32 prefilter that works pass by pass (one axis at a time,
// float intermediates), versus the double oracle: what every f32 implementation's
// Tolerance::prefilter_rel_l2 should be. Checked in tests/cpu_scalar.
//
// Why it depends on the shape, not just on D: each pass rounds its output (RMS error
// about 1.6 u of the output's RMS: the causal step's three roundings on |c+| <= 4.7 |c|,
// damped by |z| / sqrt(1 - z^2) = 0.28 in the anti-causal step, plus the anti-causal step's
// own two roundings). That rounding error is white noise, and every LATER pass amplifies
// white noise by the prefilter's RMS gain g(N) = ||P_N||_F / sqrt(N) ~ 1.86..2.24, while a
// smooth field passes almost unchanged (gain ~1 at low frequencies). So on smooth data the
// coefficients' relative error grows about 2x per axis: ~3e-6 in 6-D for a correct
// implementation. (Reconstruction does not suffer: evaluating the spline damps exactly
// those high frequencies again.)
//
// Bound: ||c - c_ref|| / ||c_ref|| <= s * sum_{d < D} prod_{j > d} gamma(N_j), where
//   s = 8 u (u = 2^-24): the 1.6 u model x 3.3 (the RMS over a field of very few values
//       is that of its largest error; 3.3 is the 99.9 % point of one Gaussian value)
//       x 1.5 margin;
//   gamma(N) = max over the three modes of g(N) * ||B_N||_2 (B_N the folded (1 4 1)/6
//       interpolation matrix; ||B_N||_2 <= 1.031, > 1 only for mirror's non-symmetric end
//       rows; it bounds how much smaller a pass's output is than the final coefficients).
//       Exact values: N = 1: 1; 2: sqrt(5) = 2.2361 (eigenvalues 1, 1/3); 3: 2.1247;
//       4: 2.0305; >= 5: <= 1.994, decreasing to 12^(1/4) = 1.8612 for long lines.
#pragma once

#include <cstdint>

#include "splinebench/implementation.hpp"
#include "splinebench/types.hpp"

namespace splinebench::f32_accuracy {

inline constexpr double kUnitRoundoff = 1.0 / 16777216.0;  // 2^-24
inline constexpr double kPassRmsError = 8 * kUnitRoundoff;

// Upper bound of gamma(N) above (table values rounded up).
inline double later_pass_gain(std::int64_t n) {
  if (n <= 1) return 1.0;
  if (n == 2) return 2.2361;
  if (n == 3) return 2.125;
  if (n == 4) return 2.031;
  return 2.0;
}

inline double prefilter_rel_l2_bound(const GridShape& shape) {
  double sum = 0;
  double gain = 1;  // product of later_pass_gain over the axes after d
  for (int d = shape.dims - 1; d >= 0; --d) {
    sum += gain;
    gain *= later_pass_gain(shape.extent[d]);
  }
  return kPassRmsError * sum;
}

// The tolerance of a float32 algorithm that prefilters pass by pass and evaluates with
// nested 4-term tap sums (cpu_scalar, and every implementation computing the same
// arithmetic). Prefilter: the per-pass model above. Evaluation: 4D roundings of partial
// sums (each <= sum w|c|) plus the coefficient error seen through the weights, which damp
// the high frequencies the later passes amplified: 1e-5 max|f| for D <= 6, an estimate
// rather than a proven bound (white noise in 6-D, where |c| grows ~1.86x per axis,
// measures ~1.1e-6).
inline Tolerance pass_by_pass_tolerance(const GridShape& shape) {
  return {prefilter_rel_l2_bound(shape), 1e-5,
          "prefilter: 8u RMS per pass x RMS noise gain of later passes (f32_accuracy.hpp); "
          "evaluation: tap-sum rounding + damped coefficient error, estimate 1e-5 max|f|"};
}

}  // namespace splinebench::f32_accuracy
