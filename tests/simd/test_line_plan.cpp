// The line plan (initial values as short dot products of float weights,
// impls/cpu_common/line_plan.hpp) against the oracle's exact closed forms: every mode,
// every short length N = 1..40 and long lines where the plan drops terms.
//
// The plan is run in double, so what is measured is the plan alone (its weights and
// indices), not float recursion rounding. Bound, with u = 2^-24 and M = max|f|:
//   causal start: each weight rounded to float (u relative), sum |w| <= 6 * 2/(1-|z|)
//     /(1-z^2) = 17.7, plus dropped terms < 24 * 2^-34 M (line_plan.cpp):
//     |delta c+[0]| <= 17.7 u M + 1.4e-9 M;
//   it reaches the coefficients through the anti-causal pass, gain |z|/(1-|z|) = 0.366;
//   anti-causal start: weights (sum |w| <= 0.37) rounded, |c+| <= 6M/(1-|z|) = 8.2M:
//     3.0 u M, then decaying by |z| per sample.
//   Total <= 0.366 * 17.7 u M + 3.0 u M + 1e-9 M < 10 u M = 6e-7 M.
// A wrong weight or index in a short line (weights >= |z|^(2N) >= 4e-4 for N <= 3)
// breaks this by orders of magnitude.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "common/printers.hpp"
#include "cpu_common/line_plan.hpp"
#include "splinebench/oracle.hpp"

using namespace splinebench;

namespace {

constexpr double kPlanBound = 10.0 * 5.9604644775390625e-08;  // 10 u

std::vector<double> oracle_line(const std::vector<double>& f, Mode mode) {
  std::vector<double> c = f;
  const auto n = static_cast<std::int64_t>(f.size());
  oracle::prefilter_line<double>(c.data(), n, 1, 1, mode, oracle::pole_powers<double>(2 * n + 1));
  return c;
}

}  // namespace

class LinePlanVsOracle : public ::testing::TestWithParam<Mode> {};

TEST_P(LinePlanVsOracle, PlanReproducesExactClosedForms) {
  const Mode mode = GetParam();
  std::mt19937_64 rng(42 + static_cast<int>(mode));
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<std::int64_t> lengths;
  for (std::int64_t n = 1; n <= 40; ++n) lengths.push_back(n);
  for (std::int64_t n : {47, 64, 100, 257, 1000, 4099}) lengths.push_back(n);
  double worst = 0;
  for (const std::int64_t n : lengths) {
    std::vector<double> f(static_cast<std::size_t>(n));
    double max_f = 0;
    for (auto& v : f) {
      v = dist(rng);
      max_f = std::max(max_f, std::abs(v));
    }
    const std::vector<double> ref = oracle_line(f, mode);
    std::vector<double> c = f;
    cpu::filter_line<double>(c.data(), 1, cpu::make_line_plan(n, mode));
    double err = 0;
    for (std::int64_t k = 0; k < n; ++k) err = std::max(err, std::abs(c[k] - ref[k]) / max_f);
    worst = std::max(worst, err);
    EXPECT_LE(err, kPlanBound) << to_string(mode) << " N=" << n;
  }
  std::printf("[ measured ] %s: worst max|c - c_ref| / max|f| = %.3g (bound %.3g)\n",
              std::string(to_string(mode)).c_str(), worst, kPlanBound);
}

INSTANTIATE_TEST_SUITE_P(AllModes, LinePlanVsOracle, ::testing::Values(Mode::mirror, Mode::half, Mode::periodic),
                         [](const auto& info) { return std::string(to_string(info.param)); });

// Short lines keep every term of the closed form (nothing is below the drop threshold);
// long lines keep a short head (and tail) only, but enough for float accuracy.
TEST(LinePlan, ShortLinesAreExactLongLinesAreShort) {
  for (const Mode mode : kAllModes) {
    for (std::int64_t n = 1; n <= 3; ++n) {
      const cpu::LinePlan plan = cpu::make_line_plan(n, mode);
      if (mode == Mode::mirror && n == 1) {
        EXPECT_TRUE(plan.identity);
        continue;
      }
      EXPECT_EQ(static_cast<std::int64_t>(plan.causal.size()), n) << to_string(mode) << " N=" << n;
    }
    const cpu::LinePlan long_plan = cpu::make_line_plan(1 << 20, mode);
    EXPECT_LE(long_plan.causal.size(), 24u) << to_string(mode);
    EXPECT_LE(long_plan.anticausal.size(), 24u) << to_string(mode);
    EXPECT_GE(long_plan.causal.size(), 15u) << to_string(mode) << ": too few terms for float accuracy";
  }
}

// line_plan keeps the plans a thread asked for last: the same object again (so a call on
// a small array forms no weights), make_line_plan's weights, per thread, and a plan
// handed out stays valid after the cache lets it go.
TEST(LinePlan, KeptPlansAreMakeLinePlansPerThread) {
  const auto first = cpu::line_plan(16, Mode::mirror);
  EXPECT_EQ(cpu::line_plan(16, Mode::mirror), first);
  EXPECT_NE(cpu::line_plan(16, Mode::half), first);
  const cpu::LinePlan made = cpu::make_line_plan(16, Mode::mirror);
  ASSERT_EQ(first->causal.size(), made.causal.size());
  for (std::size_t i = 0; i < made.causal.size(); ++i) {
    EXPECT_EQ(first->causal[i].index, made.causal[i].index);
    EXPECT_EQ(first->causal[i].weight, made.causal[i].weight);
  }
  ASSERT_EQ(first->anticausal.size(), made.anticausal.size());
  for (std::size_t i = 0; i < made.anticausal.size(); ++i) EXPECT_EQ(first->anticausal[i].weight, made.anticausal[i].weight);
  // Twenty other lengths push it out of the cache; the caller's copy stays whole.
  for (std::int64_t n = 100; n < 120; ++n) cpu::line_plan(n, Mode::periodic);
  EXPECT_EQ(first->n, 16);
  EXPECT_NE(cpu::line_plan(16, Mode::mirror), first);  // formed again
  std::shared_ptr<const cpu::LinePlan> other;
  std::thread([&] { other = cpu::line_plan(16, Mode::mirror); }).join();
  EXPECT_NE(other, cpu::line_plan(16, Mode::mirror));  // each thread its own
}
