// The oracle against an independent implementation:
// boost::math::interpolators::cardinal_cubic_b_spline<long double>, in the interior of
// long 1-D signals.
//
// Boost closes the system at the ends differently (it clamps the end derivatives,
// estimated by one-sided differences), so the two splines differ near the ends. Their
// difference interpolates zero at every sample, so its coefficients solve the homogeneous
// recursion c[k-1] + 4c[k] + c[k+1] = 0: they are A z^k + B z^(N-1-k), |z| = 0.268,
// decaying away from each end. A and B are at most the coefficient mismatch at the ends:
// both splines' coefficients there are <= 3 max|f| (ours) and, for Boost, driven by the
// estimated end slopes (|slope| <= 10.7 max|f| for the 5-point formula), so |A|, |B| <=
// 20 max|f| (and 100 max|f| as a safe cap). At >= kEndDistance = 40 samples from both ends
// the difference is <= 100 |z|^40 max|f| = 1.4e-21 max|f|, far below the 1e-18 the
// comparison could notice.
//
// What remains is rounding: the oracle's coefficients (<= 32 u max|f|, see
// rounding_bounds.hpp), its tap sum (<= (4 + 1 + 8) u max|c|) and Boost's long double
// arithmetic (a diagonally dominant tridiagonal solve and a 4-term sum at t = x + 1, exact
// for our unit step: <= 1000 u_ld max|f| leaves it a wide margin).
#include <boost/math/interpolators/cardinal_cubic_b_spline.hpp>
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
constexpr std::int64_t kEndDistance = 40;
}

class BoostCardinalSpline : public ::testing::TestWithParam<std::tuple<Mode, std::int64_t>> {};

TEST_P(BoostCardinalSpline, InteriorAgrees) {
  const auto [mode, n] = GetParam();
  const GridShape shape = GridShape::make({n});
  const std::vector<double> f = random_values<double>(n, 4242 + n);
  std::vector<double> c = f;
  oracle::prefilter_f64(shape, 1, c.data(), mode);

  const std::vector<long double> f_ld(f.begin(), f.end());
  const boost::math::interpolators::cardinal_cubic_b_spline<long double> boost_spline(
      f_ld.data(), f_ld.size(), /*left_endpoint=*/0.0L, /*step_size=*/1.0L);

  // Every interior sample, plus random off-grid points, at >= kEndDistance from both ends.
  std::vector<double> xs;
  for (std::int64_t k = kEndDistance; k <= n - 1 - kEndDistance; ++k) xs.push_back(static_cast<double>(k));
  std::mt19937_64 rng(n);
  std::uniform_real_distribution<double> inside(kEndDistance, static_cast<double>(n - 1 - kEndDistance));
  for (int q = 0; q < 4000; ++q) xs.push_back(inside(rng));
  ASSERT_GT(xs.size(), 4000u) << "signal too short for an interior";

  double error = 0;
  for (const double x : xs) {
    double s = 0;
    oracle::evaluate_point<double>(shape, c.data(), mode, &x, &s);
    const long double expected = boost_spline(static_cast<long double>(x));
    error = std::max(error, static_cast<double>(std::abs(static_cast<long double>(s) - expected)));
  }

  const double max_f = max_abs(f);
  const double bound = kUnitRoundoff<double> * (kPassError * max_f + 13 * max_abs(c)) +
                       1000 * kUnitRoundoff<long double> * max_f +
                       100 * std::pow(std::abs(bspline::kPole), kEndDistance) * max_f;
  std::printf("[ measured ] %s N=%lld: max|s - s_boost|/max|f| = %.3g, bound/max|f| = %.3g\n",
              std::string(to_string(mode)).c_str(), static_cast<long long>(n), error / max_f, bound / max_f);
  EXPECT_LE(error, std::min(bound, 1e-13 * max_f));
}

INSTANTIATE_TEST_SUITE_P(AllModes, BoostCardinalSpline,
                         ::testing::Combine(::testing::Values(Mode::mirror, Mode::half, Mode::periodic),
                                            ::testing::Values(200, 2049)),
                         [](const auto& info) {
                           return std::string(to_string(std::get<0>(info.param))) + "_N" +
                                  std::to_string(std::get<1>(info.param));
                         });
