// Interpolation condition: the oracle's spline passes through every sample, s(k) = f[k],
// for every mode, every short length (N = 1..9), long lines, D = 1..6 and 1, 2, 4
// channels. The tolerance is the rounding bound of rounding_bounds.hpp (coefficients'
// share + the grid-point tap sum), capped at the 1e-13 relative target: both must hold.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "common/accuracy.hpp"
#include "common/printers.hpp"
#include "splinebench/oracle_batch.hpp"
#include "rounding_bounds.hpp"

using namespace splinebench;
using namespace splinebench::testing;

namespace {

// Float coordinates of every grid point, axis-major (D, points); exact since k < 2^24.
std::vector<float> grid_point_coords(const GridShape& shape) {
  const std::int64_t P = shape.points();
  std::vector<float> coords(static_cast<std::size_t>(shape.dims * P));
  std::int64_t index[kMaxDims];
  for (std::int64_t p = 0; p < P; ++p) {
    unravel(shape, p, index);
    for (int d = 0; d < shape.dims; ++d) coords[d * P + p] = static_cast<float>(index[d]);
  }
  return coords;
}

struct Measured {
  double error = 0;  // max |s(k) - f[k]|
  double bound = 0;  // rounding bound for it
  double max_f = 0;
};

Measured check_interpolation_condition(const GridShape& shape, std::int64_t fields, Mode mode,
                                       std::uint64_t seed) {
  const std::vector<double> f = random_values<double>(shape.values() * fields, seed);
  std::vector<double> c = f;
  oracle::prefilter_f64(shape, fields, c.data(), mode);

  const std::int64_t P = shape.points();
  const std::vector<float> coords = grid_point_coords(shape);
  std::vector<double> s(f.size());
  poison(s);
  oracle::evaluate_f64(shape, fields, c.data(), mode, coords.data(), P, s.data());
  EXPECT_EQ(count_nan(s), 0) << "values left unwritten";

  // sum_t w_t |c_t| at each grid point is the spline of |c| there (weights >= 0).
  std::vector<double> abs_c(c.size());
  for (std::size_t i = 0; i < c.size(); ++i) abs_c[i] = std::abs(c[i]);
  std::vector<double> weighted_abs(f.size());
  oracle::evaluate_f64(shape, fields, abs_c.data(), mode, coords.data(), P, weighted_abs.data());

  Measured m;
  m.error = max_abs_diff(s, f);
  m.max_f = max_abs(f);
  const std::vector<double> maxima = pass_input_maxima(shape, f, mode);
  m.bound = reconstruction_error_bound(maxima, shape.dims) +
            tap_sum_error_bound(shape.dims, /*at_grid_point=*/true, max_abs(weighted_abs));
  return m;
}

void expect_within(const Measured& m, const std::string& what) {
  const double tolerance = std::min(m.bound, 1e-13 * m.max_f);
  EXPECT_LE(m.error, tolerance) << what << ": max|s(k) - f[k]| = " << m.error << " (bound " << m.bound
                                << ", 1e-13 max|f| = " << 1e-13 * m.max_f << ")";
  std::printf("[ measured ] %s: max|s(k)-f[k]|/max|f| = %.3g, bound/max|f| = %.3g\n", what.c_str(),
              m.error / m.max_f, m.bound / m.max_f);
}

}  // namespace

class InterpolationCondition1D : public ::testing::TestWithParam<std::tuple<Mode, std::int64_t>> {};

TEST_P(InterpolationCondition1D, SplinePassesThroughSamples) {
  const auto [mode, n] = GetParam();
  const Measured m = check_interpolation_condition(GridShape::make({n}), 1, mode, 1234 + n);
  expect_within(m, "N=" + std::to_string(n));
}

INSTANTIATE_TEST_SUITE_P(AllModes, InterpolationCondition1D,
                         ::testing::Combine(::testing::Values(Mode::mirror, Mode::half, Mode::periodic),
                                            ::testing::Values(1, 2, 3, 4, 5, 6, 7, 8, 9, 1000, 4097)),
                         [](const auto& info) {
                           return std::string(to_string(std::get<0>(info.param))) + "_N" +
                                  std::to_string(std::get<1>(info.param));
                         });

using ShapeCase = std::tuple<std::vector<std::int64_t>, int>;  // extents, channels
class InterpolationConditionND : public ::testing::TestWithParam<std::tuple<Mode, ShapeCase>> {};

TEST_P(InterpolationConditionND, SplinePassesThroughSamples) {
  const auto [mode, shape_case] = GetParam();
  const auto& [extents, channels] = shape_case;
  const GridShape shape = GridShape::make(extents, channels);
  // Two fields in one batch, so the field offset is exercised as well.
  const Measured m = check_interpolation_condition(shape, 2, mode, 99 + shape.values());
  expect_within(m, shape.to_string() + " C=" + std::to_string(channels));
}

// Small shapes in high D (4^D taps per point), short axes (1, 2, 3) mixed with longer
// ones, odd sizes, every channel count.
INSTANTIATE_TEST_SUITE_P(
    AllModes, InterpolationConditionND,
    ::testing::Combine(::testing::Values(Mode::mirror, Mode::half, Mode::periodic),
                       ::testing::Values(ShapeCase{{257}, 2}, ShapeCase{{3}, 4},               //
                                         ShapeCase{{1, 5}, 1}, ShapeCase{{2, 3}, 2},           //
                                         ShapeCase{{40, 33}, 4}, ShapeCase{{9, 1}, 1},         //
                                         ShapeCase{{5, 7, 6}, 1}, ShapeCase{{3, 1, 4}, 2},     //
                                         ShapeCase{{2, 2, 2}, 4},                              //
                                         ShapeCase{{3, 4, 2, 5}, 1}, ShapeCase{{1, 3, 2, 2}, 4},  //
                                         ShapeCase{{2, 3, 4, 3, 2}, 2},                        //
                                         ShapeCase{{3, 2, 4, 1, 3, 2}, 1},                     //
                                         ShapeCase{{4, 4, 4, 4, 4, 4}, 1},                     //
                                         ShapeCase{{2, 3, 2, 3, 2, 3}, 4})),
    [](const auto& info) {
      // (no structured binding here: its comma would split the macro argument)
      const ShapeCase& sc = std::get<1>(info.param);
      return std::string(to_string(std::get<0>(info.param))) + "_" +
             GridShape::make(std::get<0>(sc), std::get<1>(sc)).to_string() + "_C" +
             std::to_string(std::get<1>(sc));
    });
