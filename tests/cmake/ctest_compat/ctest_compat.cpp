// Fixture for check.sh: one test of each verdict ctest must tell apart, named the way
// the project's parameterized suites are (a '/'-separated instance prefix and a
// generated suffix), since those names are what the generated *_tests.cmake quotes.
#include <gtest/gtest.h>

#include <string>

class Verdict : public ::testing::TestWithParam<std::string> {};

TEST_P(Verdict, IsReportedByCtest) {
  const std::string& verdict = GetParam();
  if (verdict == "skipped") GTEST_SKIP() << "skipped on purpose: ctest must count it as skipped";
  // The "failed" instance fails on purpose: check.sh expects ctest to report it failed.
  EXPECT_EQ(verdict, "passed");
}

INSTANTIATE_TEST_SUITE_P(Compat, Verdict, ::testing::Values("passed", "skipped", "failed"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });
