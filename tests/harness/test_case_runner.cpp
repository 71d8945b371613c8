// The case runner on real implementations (pass), on deliberately damaged ones
// (fail, with the reason), and on ones that cannot or will not run (skipped, error).
#include <gtest/gtest.h>

#include <stdexcept>

#include "fake_impls.hpp"
#include "splinebench/runner/case_runner.hpp"

using namespace splinebench;
using namespace splinebench::runner;
using splinebench::testing::Fake;
using splinebench::testing::Tampered;
using Damage = Tampered::Damage;

namespace {

CaseSpec make_case(const std::string& impl, std::vector<std::int64_t> shape, int channels, std::int64_t queries,
                   Mode mode = Mode::mirror,
                   datasets::QueryPattern pattern = datasets::QueryPattern::uniform, std::int64_t fields = 1) {
  CaseSpec c;
  c.impl = impl;
  c.shape = GridShape::make(shape, channels);
  c.fields = fields;
  c.mode = mode;
  c.queries = queries;
  c.pattern = pattern;
  c.sweep = "test";
  return c;
}

RunOptions fast() {
  RunOptions o;
  o.repetitions = 3;
  o.warmups = 1;
  return o;
}

}  // namespace

class RealImplementations : public ::testing::TestWithParam<const char*> {};

TEST_P(RealImplementations, PassOnEveryModeWithTimesAndAccuracy) {
  CaseRunner runner(fast());
  auto impl = make_implementation(GetParam());
  for (Mode mode : kAllModes) {
    const CaseSpec c = make_case(GetParam(), {6, 5, 7}, 2, 300, mode, datasets::QueryPattern::outside, 2);
    const Record r = runner.run(*impl, c);
    SCOPED_TRACE(c.case_id());
    EXPECT_EQ(r.status, "ok") << r.message;
    EXPECT_EQ(r.verdict, "pass") << r.message;
    ASSERT_TRUE(r.prefilter && r.interp);
    EXPECT_GT(r.prefilter->rel_l2, 0.0);  // f32 differs from f64: a zero would mean no comparison
    EXPECT_EQ(r.interp->checked_queries, 300);
    EXPECT_TRUE(r.interp->nan_ok);
    ASSERT_NE(r.phase("prefilter"), nullptr);
    ASSERT_NE(r.phase("evaluate"), nullptr);
    EXPECT_EQ(r.phase("evaluate")->samples.size(), 3u);
    EXPECT_TRUE(r.throughput.queries_per_s.has_value());
  }
}

INSTANTIATE_TEST_SUITE_P(Registered, RealImplementations, ::testing::Values("cpu_scalar", "reference"),
                         [](const auto& info) { return std::string(info.param); });

TEST(CaseRunner, PrefilterOnlyHasNoInterpolation) {
  CaseRunner runner(fast());
  auto impl = make_implementation("cpu_scalar");
  const Record r = runner.run(*impl, make_case("cpu_scalar", {9, 8}, 4, 0));
  EXPECT_EQ(r.verdict, "pass") << r.message;
  EXPECT_TRUE(r.prefilter.has_value());
  EXPECT_FALSE(r.interp.has_value());
  EXPECT_EQ(r.phase("evaluate"), nullptr);
  EXPECT_FALSE(r.throughput.queries_per_s.has_value());
  EXPECT_TRUE(r.throughput.prefilter_samples_per_s.has_value());
}

TEST(CaseRunner, LargeCasesCheckAStridedSubset) {
  RunOptions o = fast();
  o.max_checked_values = 100;
  CaseRunner runner(o);
  auto impl = make_implementation("cpu_scalar");
  const Record r = runner.run(*impl, make_case("cpu_scalar", {16, 16}, 1, 1000, Mode::mirror,
                                               datasets::QueryPattern::sorted, 4));
  EXPECT_EQ(r.verdict, "pass") << r.message;
  EXPECT_EQ(r.interp->checked_queries, 25);  // 100 (query, field) pairs over 4 fields
}

TEST(WrongImplementation, OneDamagedCoefficientFailsThePrefilterCheck) {
  CaseRunner runner(fast());
  Tampered impl("cpu_scalar", Damage::one_coefficient);
  const Record r = runner.run(impl, make_case("tampered", {12, 10}, 1, 0));
  EXPECT_EQ(r.status, "ok");
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_NE(r.message.find("prefilter rel_l2"), std::string::npos) << r.message;
}

TEST(WrongImplementation, OneDamagedValueFailsTheInterpolationCheck) {
  CaseRunner runner(fast());
  Tampered impl("cpu_scalar", Damage::one_value);
  const Record r = runner.run(impl, make_case("tampered", {12, 10}, 1, 200));
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_NE(r.message.find("interp max_rel_to_maxf"), std::string::npos) << r.message;
  EXPECT_EQ(r.message.find("prefilter"), std::string::npos) << "only the values were damaged: " << r.message;
}

TEST(WrongImplementation, DamageOutsideTheCheckedSubsetIsStillNoticedWhenUnwritten) {
  // The unwritten check covers every output, not only the checked subset.
  RunOptions o = fast();
  o.max_checked_values = 10;
  CaseRunner runner(o);
  Tampered impl("cpu_scalar", Damage::unwritten_value);
  const Record r = runner.run(impl, make_case("tampered", {12, 10}, 1, 1001));
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_FALSE(r.interp->nan_ok);
  EXPECT_EQ(r.interp->unwritten, 1);
  EXPECT_NE(r.message.find("not written"), std::string::npos) << r.message;
}

TEST(WrongImplementation, AnOutputLeftUnwrittenInAWarmUpOnlyIsStillAFailure) {
  CaseRunner runner(fast());
  Tampered impl("cpu_scalar", Damage::first_repetition_only_unwritten);
  const Record r = runner.run(impl, make_case("tampered", {7}, 1, 50));
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_FALSE(r.interp->nan_ok);
}

TEST(WrongImplementation, UndamagedWrapperPasses) {
  // Control for the tests above: the wrapper itself changes nothing.
  CaseRunner runner(fast());
  Tampered impl("cpu_scalar", Damage::none);
  EXPECT_EQ(runner.run(impl, make_case("tampered", {12, 10}, 1, 200)).verdict, "pass");
}

TEST(Skips, UnavailableImplementationIsSkippedWithoutRunning) {
  CaseRunner runner(fast());
  Fake impl("gpu_x", splinebench::testing::gpu_caps(), {false, "not available: no CUDA device"});
  SkipKind kind{};
  const Record r = runner.run(impl, make_case("gpu_x", {4}, 1, 3), &kind);
  EXPECT_EQ(r.status, "skipped");
  EXPECT_EQ(r.message, "not available: no CUDA device");
  EXPECT_EQ(r.verdict, "n/a");
  EXPECT_EQ(kind, SkipKind::unavailable);
  EXPECT_EQ(impl.prepares, 0);
}

TEST(Skips, CaseOutsideCapabilitiesIsSkipped) {
  CaseRunner runner(fast());
  Capabilities caps;
  caps.max_dims = 3;
  caps.field_batches = false;
  Fake impl("small", caps);
  SkipKind kind{};
  Record r = runner.run(impl, make_case("small", {2, 2, 2, 2}, 1, 3), &kind);
  EXPECT_EQ(r.status, "skipped");
  EXPECT_NE(r.message.find("D=4 outside [1, 3]"), std::string::npos) << r.message;
  EXPECT_EQ(kind, SkipKind::unsupported_case);
  r = runner.run(impl, make_case("small", {4}, 1, 3, Mode::mirror, datasets::QueryPattern::uniform, 2));
  EXPECT_NE(r.message.find("batches of several fields"), std::string::npos) << r.message;
  EXPECT_EQ(impl.prepares, 0);
}

TEST(Skips, UnsupportedThrownDuringTheCaseIsASkip) {
  CaseRunner runner(fast());
  Fake impl("oom", Capabilities{});
  impl.on_prepare = [] { throw Unsupported("out of device memory: test"); };
  SkipKind kind{};
  const Record r = runner.run(impl, make_case("oom", {4}, 1, 3), &kind);
  EXPECT_EQ(r.status, "skipped");
  EXPECT_EQ(r.message, "out of device memory: test");
  EXPECT_EQ(kind, SkipKind::thrown);
  EXPECT_TRUE(r.phases.empty());
}

TEST(Errors, OtherExceptionsAreErrors) {
  CaseRunner runner(fast());
  Fake impl("broken", Capabilities{});
  impl.on_prepare = [] { throw std::runtime_error("kernel exploded"); };
  const Record r = runner.run(impl, make_case("broken", {4}, 1, 3));
  EXPECT_EQ(r.status, "error");
  EXPECT_EQ(r.message, "kernel exploded");
  EXPECT_EQ(r.verdict, "n/a");
}

TEST(Errors, ACoefficientBufferNeverWrittenFails) {
  // Fake writes nothing at all: every coefficient and value stays poisoned.
  CaseRunner runner(fast());
  Fake impl("lazy", Capabilities{});
  const Record r = runner.run(impl, make_case("lazy", {5, 5}, 1, 10));
  EXPECT_EQ(r.status, "ok");
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_EQ(r.prefilter->unwritten, 25);
  EXPECT_EQ(r.interp->unwritten, 10);
}
