// Summary statistics on inputs whose quantiles are known by hand (and agree with
// numpy.percentile's default linear rule).
#include <gtest/gtest.h>

#include "splinebench/error.hpp"
#include "splinebench/runner/stats.hpp"

using namespace splinebench;
using runner::summarize;

TEST(Stats, OddCountOneToNine) {
  const auto s = summarize({9, 1, 8, 2, 7, 3, 6, 4, 5});
  EXPECT_DOUBLE_EQ(s.median, 5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 9);
  EXPECT_DOUBLE_EQ(s.q1, 3);
  EXPECT_DOUBLE_EQ(s.q3, 7);
  EXPECT_DOUBLE_EQ(s.iqr, 4);
  // Raw samples stay in measurement order (reports pair them with repetitions).
  ASSERT_EQ(s.samples.size(), 9u);
  EXPECT_DOUBLE_EQ(s.samples[0], 9);
  EXPECT_DOUBLE_EQ(s.samples[8], 5);
}

TEST(Stats, EvenCountInterpolates) {
  // numpy.percentile([1, 2, 3, 4], [25, 50, 75]) == [1.75, 2.5, 3.25]
  const auto s = summarize({4, 3, 2, 1});
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.q1, 1.75);
  EXPECT_DOUBLE_EQ(s.q3, 3.25);
  EXPECT_DOUBLE_EQ(s.iqr, 1.5);
}

TEST(Stats, NonUniformSpacing) {
  // numpy.percentile([0.1, 0.2, 0.4, 1.6, 10.0], [25, 50, 75]) == [0.2, 0.4, 1.6]
  const auto s = summarize({10.0, 0.4, 0.1, 1.6, 0.2});
  EXPECT_DOUBLE_EQ(s.q1, 0.2);
  EXPECT_DOUBLE_EQ(s.median, 0.4);
  EXPECT_DOUBLE_EQ(s.q3, 1.6);
  // numpy.percentile([1, 2, 4, 8, 16, 32], 25) == 2.5; 75 -> 14.0; median 6.0
  const auto t = summarize({1, 2, 4, 8, 16, 32});
  EXPECT_DOUBLE_EQ(t.q1, 2.5);
  EXPECT_DOUBLE_EQ(t.median, 6.0);
  EXPECT_DOUBLE_EQ(t.q3, 14.0);
}

TEST(Stats, SingleSample) {
  const auto s = summarize({0.25});
  EXPECT_DOUBLE_EQ(s.median, 0.25);
  EXPECT_DOUBLE_EQ(s.q1, 0.25);
  EXPECT_DOUBLE_EQ(s.q3, 0.25);
  EXPECT_DOUBLE_EQ(s.iqr, 0.0);
}

TEST(Stats, EmptyIsAnError) { EXPECT_THROW(summarize({}), Error); }
