// Interpolation condition: the oracle's spline passes through every sample, for every
// mode and every short length (N = 1..9) and a long one.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "reference/oracle_batch.hpp"

using namespace splinebench;

class InterpolationCondition : public ::testing::TestWithParam<std::tuple<Mode, std::int64_t>> {};

TEST_P(InterpolationCondition, SplinePassesThroughSamples1D) {
  const auto [mode, n] = GetParam();
  std::mt19937_64 rng(1234 + n);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  const GridShape shape = GridShape::make({n});
  std::vector<double> f(n), c(n);
  for (auto& v : f) v = dist(rng);
  c = f;
  oracle::prefilter_f64(shape, 1, c.data(), mode);
  std::vector<float> coords(n);
  for (std::int64_t k = 0; k < n; ++k) coords[k] = static_cast<float>(k);
  std::vector<double> s(n);
  oracle::evaluate_f64(shape, 1, c.data(), mode, coords.data(), n, s.data());
  for (std::int64_t k = 0; k < n; ++k) EXPECT_NEAR(s[k], f[k], 1e-13) << "k=" << k;
}

INSTANTIATE_TEST_SUITE_P(AllModes, InterpolationCondition,
                         ::testing::Combine(::testing::Values(Mode::mirror, Mode::half, Mode::periodic),
                                            ::testing::Values(1, 2, 3, 4, 5, 6, 7, 8, 9, 1000)));
