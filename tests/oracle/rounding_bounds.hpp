// Rounding-error bounds of the double oracle, from which the oracle tests derive their
// tolerances (so no test carries an unexplained number). u = 2^-53.
//
// One prefilter pass along an axis, input magnitude M = max|input|, output |c| <= 3M
// (l-inf gain of the exact prefilter: sum_j sqrt(3)|z|^|j| = sqrt(3)(1+|z|)/(1-|z|) = 3).
// First-order error counts (each rounding u times the magnitude it rounds; the stored
// pole itself is off by u relative):
//   causal   c+[k] = 6 f[k] + z c+[k-1], |c+| <= 6M/(1-|z|) = 8.2M: per step 6M (6f) +
//            2 x 2.2M (z c+, z's own error) + 8.2M (the sum) = 16.4uM + 2.2uM, damped by
//            |z| per step: |e+| <= 18.6/(1-|z|) uM = 25.4 uM. The initial sum is a
//            geometric series of terms z^k f, divided and scaled by 6: <= 6(1+2)/(1-|z|) uM
//            = 25 uM, no worse.
//   anti-causal c[k] = z (c[k+1] - c+[k]): |z| (e[k+1] + e+[k]) + u (|z| 11.2M + 2 x 3M)
//            per step, so |e| <= (0.268 x 25.4 + 9.0)/(1-|z|) uM = 21.6 uM; the mirror
//            initialisation z/(z^2-1) (c+[N-1] + z c+[N-2]) (factor 0.289 with ~4 roundings,
//            on a sum <= 10.4M plus its inputs' errors) gives <= 24 uM, and half/periodic
//            are of the same form with smaller factors.
// So one pass commits an error <= kPassError * u * M with kPassError = 32 (the counts
// above reach 25; second-order terms are below u^2).
//
// Consequences (errors of pass d travel through the later passes):
//   coefficients     |c - c_exact| <= u * 32 * sum_d 3^(D-1-d) M_d   (later passes: gain 3)
//   reconstruction   |B c - f|     <= u * 32 * sum_d M_d             (B = (1 4 1)/6 per axis
//            inverts the later passes and has l-inf norm 1, so it undoes their gain)
// with M_d = max|input of pass d| (M_0 = max|f|), measured by prefiltering only the first d
// axes (see pass_input_maxima).
//
// Tap sum of an evaluation: products of D weights (D roundings) and recursive summation
// of 4^D non-negative-weighted terms: |error| <= (4^D + D + 8) u sum_t w_t |c_t|, the 8
// covering the weight formulas themselves. At a grid point (fraction 0) the fourth weight
// is exactly 0, so only 3^D terms are non-zero and each zero term adds nothing.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "common/accuracy.hpp"
#include "splinebench/oracle_batch.hpp"
#include "splinebench/types.hpp"

namespace splinebench::testing {

inline constexpr double kPassError = 32;

// M_d = max|input of pass d| for d = 0..D-1, and, last, max|c| (D+1 values). Prefiltering
// axes 0..d-1 alone is the full prefilter of the grid whose trailing axes are folded into
// the channels (the oracle filters every channel of a line independently).
inline std::vector<double> pass_input_maxima(const GridShape& shape, const std::vector<double>& f, Mode mode) {
  std::vector<double> maxima{max_abs(f)};
  for (int d = 1; d <= shape.dims; ++d) {
    GridShape prefix;
    prefix.dims = d;
    prefix.channels = static_cast<int>(shape.values() / [&] {
      std::int64_t p = 1;
      for (int j = 0; j < d; ++j) p *= shape.extent[j];
      return p;
    }());
    for (int j = 0; j < d; ++j) prefix.extent[j] = shape.extent[j];
    std::vector<double> partial = f;
    const std::int64_t fields = static_cast<std::int64_t>(f.size()) / shape.values();
    oracle::prefilter_f64(prefix, fields, partial.data(), mode);
    maxima.push_back(max_abs(partial));
  }
  return maxima;
}

// Bound on max |c - c_exact| of the double oracle's coefficients.
inline double coefficient_error_bound(const std::vector<double>& maxima, int dims) {
  double sum = 0;
  for (int d = 0; d < dims; ++d) sum += std::pow(3.0, dims - 1 - d) * maxima[d];
  return kUnitRoundoff<double> * kPassError * sum;
}

// Bound on max |B c - f| (the coefficients' share of the interpolation-condition error).
inline double reconstruction_error_bound(const std::vector<double>& maxima, int dims) {
  double sum = 0;
  for (int d = 0; d < dims; ++d) sum += maxima[d];
  return kUnitRoundoff<double> * kPassError * sum;
}

// Bound on the rounding of one evaluation's tap sum, given sum_t w_t |c_t| (or any
// upper bound of it, e.g. max|c|).
inline double tap_sum_error_bound(int dims, bool at_grid_point, double weighted_abs_sum) {
  const double terms = std::pow(at_grid_point ? 3.0 : 4.0, dims);
  return kUnitRoundoff<double> * (terms + dims + 8) * weighted_abs_sum;
}

}  // namespace splinebench::testing
