// How accurate is the double oracle itself? The same templated algorithm
// (oracle::prefilter, oracle::evaluate_point) run in 50-digit binary floating point
// (boost::multiprecision::cpp_bin_float_50, u = 2^-167 or so) is exact for our purposes;
// the double run's error against it must be <= 1e-14 relative (coefficients relative to
// max|c|, values relative to max|f|) and within the rounding bounds of rounding_bounds.hpp.
// The 50-digit run starts from exactly the same samples (doubles widen exactly) and the
// same float coordinates.
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "common/accuracy.hpp"
#include "common/printers.hpp"
#include "splinebench/oracle.hpp"
#include "splinebench/oracle_batch.hpp"
#include "rounding_bounds.hpp"
#include "splinebench/datasets.hpp"

using namespace splinebench;
using namespace splinebench::testing;
using Wide = boost::multiprecision::cpp_bin_float_50;

namespace {

constexpr double kTarget = 1e-14;

// Largest errors over every case, printed at the end of the run.
struct Worst {
  double coefficients = 0;
  double values = 0;
};
Worst g_worst;

class PrintWorst : public ::testing::Environment {
 public:
  void TearDown() override {
    std::printf("[ measured ] double oracle vs cpp_bin_float_50, worst over all cases: coefficients "
                "max|c - c50|/max|c50| = %.3g, values max|s - s50|/max|f| = %.3g\n",
                g_worst.coefficients, g_worst.values);
  }
};
const auto* const g_print_worst = ::testing::AddGlobalTestEnvironment(new PrintWorst);

double max_abs_diff_wide(const std::vector<double>& a, const std::vector<Wide>& ref) {
  Wide worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, Wide(abs(Wide(a[i]) - ref[i])));
  return static_cast<double>(worst);
}

double max_abs_wide(const std::vector<Wide>& v) {
  Wide worst = 0;
  for (const Wide& x : v) worst = std::max(worst, Wide(abs(x)));
  return static_cast<double>(worst);
}

}  // namespace

using ShapeCase = std::tuple<std::vector<std::int64_t>, int>;  // extents, channels
class Multiprecision : public ::testing::TestWithParam<std::tuple<Mode, ShapeCase>> {};

TEST_P(Multiprecision, DoubleOracleErrorIsTiny) {
  const auto [mode, shape_case] = GetParam();
  const GridShape shape = GridShape::make(std::get<0>(shape_case), std::get<1>(shape_case));
  const int D = shape.dims;
  const int C = shape.channels;

  const std::vector<double> f = random_values<double>(shape.values(), 31 + shape.values());
  std::vector<double> c = f;
  oracle::prefilter_f64(shape, 1, c.data(), mode);
  std::vector<Wide> c_wide(f.begin(), f.end());
  oracle::prefilter<Wide>(shape, 1, c_wide.data(), mode);

  // Queries inside and outside the grid (the extension), float coordinates as the
  // implementations receive them.
  constexpr std::int64_t kQueries = 150;
  std::vector<float> coords = datasets::make_queries(datasets::QueryPattern::uniform, shape, kQueries, 5);
  const std::vector<float> outside = datasets::make_queries(datasets::QueryPattern::outside, shape, kQueries, 6);
  std::vector<float> all(static_cast<std::size_t>(D * 2 * kQueries));
  for (int d = 0; d < D; ++d)
    for (std::int64_t q = 0; q < kQueries; ++q) {
      all[d * 2 * kQueries + q] = coords[d * kQueries + q];
      all[d * 2 * kQueries + kQueries + q] = outside[d * kQueries + q];
    }
  const std::int64_t n = 2 * kQueries;
  std::vector<double> s(static_cast<std::size_t>(n * C));
  poison(s);
  oracle::evaluate_f64(shape, 1, c.data(), mode, all.data(), n, s.data());
  std::vector<Wide> s_wide(s.size());
  for (std::int64_t q = 0; q < n; ++q) {
    Wide x[kMaxDims];
    for (int d = 0; d < D; ++d) x[d] = Wide(all[d * n + q]);
    oracle::evaluate_point<Wide>(shape, c_wide.data(), mode, x, s_wide.data() + q * C);
  }
  ASSERT_EQ(count_nan(s), 0);

  const double max_c = max_abs_wide(c_wide);
  const double max_f = max_abs(f);
  const double coeff_error = max_abs_diff_wide(c, c_wide);
  const double value_error = max_abs_diff_wide(s, s_wide);
  const double coeff_bound = coefficient_error_bound(pass_input_maxima(shape, f, mode), D);
  const double value_bound = coeff_bound + tap_sum_error_bound(D, /*at_grid_point=*/false, max_c);

  g_worst.coefficients = std::max(g_worst.coefficients, coeff_error / max_c);
  g_worst.values = std::max(g_worst.values, value_error / max_f);
  std::printf("[ measured ] %s %s C=%d: coefficients %.3g (bound %.3g), values %.3g (bound %.3g)\n",
              std::string(to_string(mode)).c_str(), shape.to_string().c_str(), C, coeff_error / max_c,
              coeff_bound / max_c, value_error / max_f, value_bound / max_f);
  EXPECT_LE(coeff_error, std::min(coeff_bound, kTarget * max_c)) << "coefficients";
  EXPECT_LE(value_error, std::min(value_bound, kTarget * max_f)) << "values";
}

INSTANTIATE_TEST_SUITE_P(
    AllModes, Multiprecision,
    ::testing::Combine(::testing::Values(Mode::mirror, Mode::half, Mode::periodic),
                       ::testing::Values(ShapeCase{{1}, 1}, ShapeCase{{2}, 1}, ShapeCase{{3}, 2},
                                         ShapeCase{{4}, 1}, ShapeCase{{1000}, 1}, ShapeCase{{2, 3}, 1},
                                         ShapeCase{{1, 9}, 4}, ShapeCase{{40, 25}, 1},
                                         ShapeCase{{3, 2, 4}, 2}, ShapeCase{{9, 8, 7}, 1})),
    [](const auto& info) {
      const ShapeCase& sc = std::get<1>(info.param);
      return std::string(to_string(std::get<0>(info.param))) + "_" +
             GridShape::make(std::get<0>(sc), std::get<1>(sc)).to_string() + "_C" +
             std::to_string(std::get<1>(sc));
    });
