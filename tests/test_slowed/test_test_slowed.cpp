// test_slowed, the known slowdown the regression checks are tested with: it gives the
// wrapped implementation's results bit for bit, takes its capabilities and tolerance,
// stretches each prepare and evaluate by the factor in real time and in the phases it
// reports, refuses a bad factor or a wrapped name it cannot run, saying why, and is
// run only where a suite names it.
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include "splinebench/datasets.hpp"
#include "splinebench/error.hpp"
#include "splinebench/registry.hpp"
#include "splinebench/runner/plan.hpp"
#include "splinebench/runner/suite.hpp"

using namespace splinebench;

namespace {

bool registered() {
  for (const auto& e : registry())
    if (e.name == "test_slowed") return e.test_only;
  return false;
}

// Makes test_slowed with the given environment, restoring it afterwards.
ImplementationPtr make_slowed(const char* impl, const char* factor) {
  auto set = [](const char* var, const char* value) {
    if (value) {
      setenv(var, value, 1);
    } else {
      unsetenv(var);
    }
  };
  set("SPLINEBENCH_TEST_SLOWED_IMPL", impl);
  set("SPLINEBENCH_TEST_SLOWED_FACTOR", factor);
  ImplementationPtr p = make_implementation("test_slowed");
  unsetenv("SPLINEBENCH_TEST_SLOWED_IMPL");
  unsetenv("SPLINEBENCH_TEST_SLOWED_FACTOR");
  return p;
}

struct Outcome {
  std::vector<float> coefficients, values;
  PhaseTimes times;
  double evaluate_wall = 0;  // seconds, timed around the call
};

Outcome run(Implementation& impl) {
  const GridShape shape = GridShape::make({24, 20, 18});
  const std::vector<float> input = datasets::make_field(datasets::FieldKind::noise, shape, 2, 3);
  const std::int64_t n = 4000;
  const std::vector<float> coords = datasets::make_queries(datasets::QueryPattern::outside, shape, n, 4);
  Outcome r;
  impl.prepare(shape, 2, input.data(), Mode::half, true, r.times);
  r.coefficients.resize(input.size());
  impl.read_coefficients(r.coefficients.data(), r.times);
  r.values.resize(static_cast<std::size_t>(2 * n));
  const auto start = std::chrono::steady_clock::now();
  impl.evaluate(coords.data(), n, r.values.data(), r.times);
  r.evaluate_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace

TEST(TestSlowed, RegisteredOnlyAsTestImplementation) {
  if (!registered()) GTEST_SKIP() << "not a test build (configure with -DSPLINEBENCH_TEST_IMPLS=ON)";
  for (const auto& e : registry())
    EXPECT_EQ(e.test_only, e.name.rfind("test_", 0) == 0) << e.name << ": test-only exactly when named test_*";
}

TEST(TestSlowed, SameResultsAsTheWrappedImplementation) {
  if (!registered()) GTEST_SKIP() << "not a test build (configure with -DSPLINEBENCH_TEST_IMPLS=ON)";
  for (const char* wrapped : {"cpu_scalar", "cpu_simd"}) {
    ImplementationPtr slowed = make_slowed(wrapped, "1.5");
    ASSERT_TRUE(slowed->availability().ok) << slowed->availability().reason;
    ImplementationPtr plain = make_implementation(wrapped);
    EXPECT_EQ(slowed->capabilities().threads, plain->capabilities().threads) << wrapped;
    const GridShape shape = GridShape::make({9, 10});
    EXPECT_EQ(slowed->tolerance(shape).prefilter_rel_l2, plain->tolerance(shape).prefilter_rel_l2) << wrapped;
    const Outcome a = run(*slowed);
    const Outcome b = run(*plain);
    EXPECT_EQ(a.coefficients, b.coefficients) << wrapped;
    EXPECT_EQ(a.values, b.values) << wrapped;
    bool wraps = false;
    for (const auto& f : slowed->run_facts()) wraps |= f == std::string("wraps=") + wrapped;
    EXPECT_TRUE(wraps) << wrapped;
  }
}

// The reported evaluate time is the wrapped one times the factor, and the call really
// took at least that long: wall >= factor x (wrapped call) >= reported.
TEST(TestSlowed, SlowdownIsRealAndReported) {
  if (!registered()) GTEST_SKIP() << "not a test build (configure with -DSPLINEBENCH_TEST_IMPLS=ON)";
  ImplementationPtr slowed = make_slowed(nullptr, "3");
  const Outcome r = run(*slowed);
  const double reported = r.times.get(phase::evaluate);
  EXPECT_GT(reported, 0);
  EXPECT_GE(r.evaluate_wall, reported);
  EXPECT_TRUE(r.times.has(phase::prefilter));
  EXPECT_TRUE(r.times.has(phase::prefilter_axis(2))) << "the wrapped phases are all reported";
  bool factor = false;
  for (const auto& f : slowed->run_facts()) factor |= f == "slowdown_factor=3";
  EXPECT_TRUE(factor);
}

TEST(TestSlowed, RefusesWhatItCannotRun) {
  if (!registered()) GTEST_SKIP() << "not a test build (configure with -DSPLINEBENCH_TEST_IMPLS=ON)";
  const GridShape shape = GridShape::make({4});
  const std::vector<float> data(4, 1.0f);
  PhaseTimes times;
  for (const auto& [impl, factor, says] :
       {std::tuple<const char*, const char*, const char*>{nullptr, "0.5", "must be a number >= 1"},
        {nullptr, "fast", "must be a number >= 1"},
        {"no_such_impl", nullptr, "unknown implementation"},
        {"test_slowed", nullptr, "product implementations only"}}) {
    ImplementationPtr p = make_slowed(impl, factor);
    const Availability a = p->availability();
    EXPECT_FALSE(a.ok);
    EXPECT_NE(a.reason.find(says), std::string::npos) << a.reason;
    EXPECT_THROW(p->prepare(shape, 1, data.data(), Mode::mirror, true, times), Error);
  }
}

// The suites' selectors leave test implementations out; naming one selects it.
TEST(TestSlowed, SelectorsSkipItNamingSelectsIt) {
  if (!registered()) GTEST_SKIP() << "not a test build (configure with -DSPLINEBENCH_TEST_IMPLS=ON)";
  auto impls_of = [](const char* impls) {
    const auto doc = nlohmann::json::parse(std::string(R"({"name": "t", "sweeps": [{"name": "s", "impls": )") + impls +
                                           R"(, "shapes": [[5]], "queries": [4]}]})");
    std::set<std::string> names;
    for (const auto& c : runner::make_plan(runner::parse_suite(doc, "t.json"), {}, registry()).cases)
      names.insert(c.impl);
    return names;
  };
  for (const char* selector : {R"(["all"])", R"(["cpu"])"}) EXPECT_EQ(impls_of(selector).count("test_slowed"), 0u) << selector;
  EXPECT_EQ(impls_of(R"(["test_slowed"])"), std::set<std::string>{"test_slowed"});
}
