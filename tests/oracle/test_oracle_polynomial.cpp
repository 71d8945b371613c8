// Reproduction of cubic polynomials: the cardinal cubic spline space contains every
// (tensor-product) cubic, so on an infinite grid the interpolating spline of p's samples
// IS p. A finite grid's extension (mirror, half, periodic) is not polynomial, so p is
// reproduced only far from the ends; this test checks it to within a stated bound at
// random off-grid points whose taps all lie >= kMargin samples inside the grid.
//
// Why kMargin = 30 suffices. Let g = (extended samples) - p, zero on the grid. The
// coefficients are c = P(p + g) with P the exact prefilter (impulse response
// h[j] = sqrt(3) z^|j| (-1)^j, |z| = 0.268), and P p gives the spline equal to p, so the
// spline's error is the spline of P g, and |spline| <= max |P g| (weights >= 0, sum 1).
// With p written in centred, scaled variables t_d = (x_d - centre_d) / half_d (|t_d| <= 1
// on the grid) and A = sum |a_ij..| of its coefficients, |g(j)| <= 2A prod_d
// (1 + |j_d - k_d| / half_d)^3 around a coefficient k. For k at >= kMargin samples from
// every end, every non-zero g(j) is >= kMargin + 1 samples away along some axis d:
//   |P g [k]| <= 2A sum_d T_d prod_{e != d} S_e,
//   T_d = 2 sum_{i > kMargin} sqrt(3) |z|^i (1 + i/half_d)^3     (the two outer sides),
//   S_e = sum_{i in Z} sqrt(3) |z|^|i| (1 + |i|/half_e)^3         (everything along e).
// For kMargin = 30 this is ~1e-16 A: below rounding. Rounding adds the oracle's own
// coefficient and tap-sum bounds (rounding_bounds.hpp) and the samples' rounding to double
// (one rounding of p, amplified at most 3 per axis by the prefilter). The reference p(x)
// is evaluated in long double.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "common/accuracy.hpp"
#include "common/printers.hpp"
#include "splinebench/oracle.hpp"
#include "splinebench/oracle_batch.hpp"
#include "rounding_bounds.hpp"

using namespace splinebench;
using namespace splinebench::testing;

namespace {

constexpr std::int64_t kMargin = 30;

// p(x) = sum over exponent tuples e (each 0..3) of a_e prod_d t_d^e_d.
struct TensorCubic {
  int dims = 0;
  std::vector<long double> a;  // 4^D coefficients, exponent of axis 0 most significant
  long double centre[kMaxDims] = {};
  long double half[kMaxDims] = {};

  long double operator()(const long double* x) const {
    long double power[kMaxDims][4];
    for (int d = 0; d < dims; ++d) {
      const long double t = (x[d] - centre[d]) / half[d];
      power[d][0] = 1;
      for (int i = 1; i < 4; ++i) power[d][i] = power[d][i - 1] * t;
    }
    long double sum = 0;
    for (std::size_t e = 0; e < a.size(); ++e) {
      long double term = a[e];
      std::size_t rest = e;
      for (int d = dims - 1; d >= 0; --d) {
        term *= power[d][rest % 4];
        rest /= 4;
      }
      sum += term;
    }
    return sum;
  }
  double abs_coefficient_sum() const {
    long double s = 0;
    for (const long double v : a) s += std::abs(v);
    return static_cast<double>(s);
  }
};

TensorCubic random_cubic(const GridShape& shape, std::uint64_t seed) {
  TensorCubic p;
  p.dims = shape.dims;
  const std::vector<double> a = random_values<double>(static_cast<std::int64_t>(std::pow(4, shape.dims)), seed);
  p.a.assign(a.begin(), a.end());
  for (int d = 0; d < shape.dims; ++d) {
    p.centre[d] = (shape.extent[d] - 1) / 2.0L;
    p.half[d] = (shape.extent[d] - 1) / 2.0L;
  }
  return p;
}

double extension_bound(const GridShape& shape, double abs_coeff_sum) {
  const double z = std::abs(bspline::kPole);
  const double sqrt3 = std::sqrt(3.0);
  double total = 0;
  for (int d = 0; d < shape.dims; ++d) {
    double term = 1;
    for (int e = 0; e < shape.dims; ++e) {
      const double half = (shape.extent[e] - 1) / 2.0;
      double sum = 0;
      if (e == d) {
        for (std::int64_t i = kMargin + 1; i < kMargin + 400; ++i) sum += 2 * sqrt3 * std::pow(z, i) * std::pow(1 + i / half, 3);
      } else {
        sum = sqrt3;
        for (std::int64_t i = 1; i < 400; ++i) sum += 2 * sqrt3 * std::pow(z, i) * std::pow(1 + i / half, 3);
      }
      term *= sum;
    }
    total += term;
  }
  return 2 * abs_coeff_sum * total;
}

}  // namespace

class CubicReproduction : public ::testing::TestWithParam<std::tuple<Mode, std::vector<std::int64_t>>> {};

TEST_P(CubicReproduction, InteriorIsExact) {
  const auto& [mode, extents] = GetParam();
  const GridShape shape = GridShape::make(extents);
  const int D = shape.dims;
  for (int d = 0; d < D; ++d) ASSERT_GT(shape.extent[d], 2 * kMargin + 4) << "grid too small for an interior";

  const TensorCubic p = random_cubic(shape, 77 + D);
  const std::int64_t P = shape.points();
  std::vector<double> f(static_cast<std::size_t>(P));
  std::int64_t index[kMaxDims];
  for (std::int64_t q = 0; q < P; ++q) {
    unravel(shape, q, index);
    long double x[kMaxDims];
    for (int d = 0; d < D; ++d) x[d] = static_cast<long double>(index[d]);
    f[q] = static_cast<double>(p(x));
  }
  std::vector<double> c = f;
  oracle::prefilter_f64(shape, 1, c.data(), mode);

  // Taps floor(x)-1 .. floor(x)+2 within [kMargin, N-1-kMargin].
  std::mt19937_64 rng(3 + D);
  double error = 0;
  for (int q = 0; q < 3000; ++q) {
    double x[kMaxDims];
    long double x_ld[kMaxDims];
    for (int d = 0; d < D; ++d) {
      std::uniform_real_distribution<double> inside(kMargin + 1.0, static_cast<double>(shape.extent[d] - 2 - kMargin));
      x[d] = inside(rng);
      x_ld[d] = x[d];
    }
    double s = 0;
    oracle::evaluate_point<double>(shape, c.data(), mode, x, &s);
    error = std::max(error, static_cast<double>(std::abs(static_cast<long double>(s) - p(x_ld))));
  }

  const double max_f = max_abs(f);
  const double rounding = coefficient_error_bound(pass_input_maxima(shape, f, mode), D) +
                          tap_sum_error_bound(D, /*at_grid_point=*/false, max_abs(c)) +
                          std::pow(3.0, D) * kUnitRoundoff<double> * max_f;
  const double truncation = extension_bound(shape, p.abs_coefficient_sum());
  const double bound = rounding + truncation;
  std::printf("[ measured ] %s %s: max|s - p|/max|f| = %.3g, bound/max|f| = %.3g (extension part %.3g)\n",
              std::string(to_string(mode)).c_str(), shape.to_string().c_str(), error / max_f, bound / max_f,
              truncation / max_f);
  EXPECT_LE(error, std::min(bound, 1e-11 * max_f));
}

INSTANTIATE_TEST_SUITE_P(AllModes, CubicReproduction,
                         ::testing::Combine(::testing::Values(Mode::mirror, Mode::half, Mode::periodic),
                                            ::testing::Values(std::vector<std::int64_t>{101},
                                                              std::vector<std::int64_t>{1001},
                                                              std::vector<std::int64_t>{72, 69},
                                                              std::vector<std::int64_t>{66, 65, 67})),
                         [](const auto& info) {
                           return std::string(to_string(std::get<0>(info.param))) + "_" +
                                  GridShape::make(std::get<1>(info.param)).to_string();
                         });
