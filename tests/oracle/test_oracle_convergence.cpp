// Measured convergence order: cubic spline interpolation of a smooth function has error
// O(h^4) at off-grid points. The test samples f at spacing h, h/2, ..., evaluates the
// oracle's spline at fixed fractions of every cell (1/8, 3/8, 5/8, 7/8, where the error
// lives) and fits log(max error) against log(h) by least squares: the slope must be in
// [3.9, 4.1].
//   periodic: a periodic f on one period, periodic mode, so nothing but h matters;
//   interior: a non-periodic f on [0, 1] in mirror and half mode, measured only on
//             [0.35, 0.65]. The extension bends f at the ends (error O(h) there), but that
//             decays as |z|^k over k samples; at 0.35 (N-1) >= 22 samples for N >= 64 it is
//             <= h |z|^22 ~ 1e-15, far below the h^4 term (~1e-7 .. 1e-12 here).
// The sizes keep the smallest error (~1e-12) 1000x above rounding (~1e-15), so the fit
// measures truncation, not noise.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "common/printers.hpp"
#include "splinebench/oracle.hpp"
#include "splinebench/oracle_batch.hpp"

using namespace splinebench;

namespace {

// Max |s(u) - f(x(u))| over u = k + a (a in {1/8, 3/8, 5/8, 7/8}) whose x lies in [lo, hi];
// grid coordinate u maps to x = origin + u * h.
double max_error(const std::function<double(double)>& f, std::int64_t n, double origin, double h, Mode mode,
                 double lo, double hi) {
  const GridShape shape = GridShape::make({n});
  std::vector<double> c(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) c[k] = f(origin + k * h);
  oracle::prefilter_f64(shape, 1, c.data(), mode);
  double worst = 0;
  for (std::int64_t k = 0; k < n; ++k)
    for (const double a : {0.125, 0.375, 0.625, 0.875}) {
      const double u = k + a;
      const double x = origin + u * h;
      if (x < lo || x > hi) continue;
      double s = 0;
      oracle::evaluate_point<double>(shape, c.data(), mode, &u, &s);
      worst = std::max(worst, std::abs(s - f(x)));
    }
  return worst;
}

// Least-squares slope of log(error) against log(h).
double fitted_order(const std::vector<double>& h, const std::vector<double>& error) {
  const double m = static_cast<double>(h.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    const double x = std::log(h[i]), y = std::log(error[i]);
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  return (m * sxy - sx * sy) / (m * sxx - sx * sx);
}

void report(const char* what, const std::vector<std::int64_t>& sizes, const std::vector<double>& error,
            double order) {
  std::printf("[ measured ] %s: fitted order %.4f; errors", what, order);
  for (std::size_t i = 0; i < sizes.size(); ++i)
    std::printf(" N=%lld:%.3g", static_cast<long long>(sizes[i]), error[i]);
  std::printf("\n");
}

}  // namespace

TEST(Convergence, PeriodicFunctionPeriodicMode) {
  const double two_pi = 2 * M_PI;
  const auto f = [&](double x) {
    return std::sin(two_pi * x) + 0.5 * std::cos(2 * two_pi * x + 0.3) + 0.25 * std::sin(3 * two_pi * x + 1.1);
  };
  const std::vector<std::int64_t> sizes{64, 128, 256, 512, 1024};
  std::vector<double> h, error;
  for (const std::int64_t n : sizes) {
    h.push_back(1.0 / n);  // n samples on one period [0, 1)
    error.push_back(max_error(f, n, 0.0, h.back(), Mode::periodic, 0.0, 1.0));
  }
  const double order = fitted_order(h, error);
  report("periodic", sizes, error, order);
  EXPECT_GE(order, 3.9);
  EXPECT_LE(order, 4.1);
}

class ConvergenceInterior : public ::testing::TestWithParam<Mode> {};

TEST_P(ConvergenceInterior, NonPeriodicFunction) {
  const Mode mode = GetParam();
  const auto f = [](double x) { return std::exp(-x) * std::sin(5 * x + 0.2) + 0.3 * x * x * x; };
  const std::vector<std::int64_t> sizes{64, 128, 256, 512, 1024};
  std::vector<double> h, error;
  for (const std::int64_t n : sizes) {
    h.push_back(1.0 / (n - 1));  // samples at 0, h, ..., 1
    error.push_back(max_error(f, n, 0.0, h.back(), mode, 0.35, 0.65));
  }
  const double order = fitted_order(h, error);
  report(("interior " + std::string(to_string(mode))).c_str(), sizes, error, order);
  EXPECT_GE(order, 3.9);
  EXPECT_LE(order, 4.1);
}

INSTANTIATE_TEST_SUITE_P(NonPeriodicModes, ConvergenceInterior, ::testing::Values(Mode::mirror, Mode::half),
                         [](const auto& info) { return std::string(to_string(info.param)); });
