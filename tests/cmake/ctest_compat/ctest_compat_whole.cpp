// Fixture for check.sh: suites registered whole (WHOLE_SUITES), each one ctest test run
// in one process with the project's main (tests/common/gtest_main.cpp): all skipped is
// reported skipped (exit 77), passed and skipped together passed, one failure failed.
#include <gtest/gtest.h>

TEST(WholeSkipped, First) { GTEST_SKIP() << "skipped on purpose"; }
TEST(WholeSkipped, Second) { GTEST_SKIP() << "skipped on purpose"; }

TEST(WholePassed, Passes) { EXPECT_EQ(1, 1); }
TEST(WholePassed, Skips) { GTEST_SKIP() << "one skip beside a pass: the suite passed"; }

TEST(WholeFailed, Passes) { EXPECT_EQ(1, 1); }
TEST(WholeFailed, Skips) { GTEST_SKIP() << "a skip beside a failure: the suite failed"; }
// Fails on purpose: check.sh expects ctest to report the whole suite failed.
TEST(WholeFailed, Fails) { EXPECT_EQ(1, 2); }
