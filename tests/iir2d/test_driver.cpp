// The driver's one-line summaries (what a device log carries when its results folder
// does not come back), on synthetic records of each kind.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "experiment.hpp"

using nlohmann::json;
using splinebench::iir2d::summary_line;

namespace {

json timed(double median_s, double iqr_s) {
  return {{"filter", {{"median", median_s}, {"iqr", iqr_s}}}};
}

}  // namespace

TEST(Iir2dDriver, SummaryOfATimedCheckedCase) {
  const json r = {{"scheme", "flex_tiles"}, {"shape", {2048, 2048}}, {"M", 31}, {"family", "gauss"},
                  {"status", "ok"}, {"message", ""}, {"verdict", "pass"}, {"phases", timed(1.2345e-3, 1.0e-5)},
                  {"accuracy", {{"iir2d", {{"max_rel", 1.6e-6}}}}}};
  EXPECT_EQ(summary_line(r), "case flex_tiles 2048x2048 M=31 gauss: median 1.234 ms (IQR 0.010), pass, max_rel 1.6e-06");
}

TEST(Iir2dDriver, SummaryOfAnEmptyChain) {
  const json r = {{"scheme", "empty_chain_graph"}, {"shape", {512, 512}}, {"M", 0}, {"family", "none"},
                  {"launches", 1023}, {"status", "ok"}, {"message", ""}, {"verdict", "n/a"},
                  {"phases", timed(2.5e-3, 2.0e-6)}};
  EXPECT_EQ(summary_line(r), "case empty_chain_graph 512x512 launches=1023: median 2.500 ms (IQR 0.002)");
}

TEST(Iir2dDriver, SummaryOfAFailedAndASkippedCase) {
  json r = {{"scheme", "fixed"}, {"shape", {7, 5}}, {"M", 31}, {"family", "gauss"}, {"status", "error"},
            {"message", "a block gave up waiting (watchdog)"}, {"verdict", "fail"}, {"phases", timed(1e-3, 0)},
            {"accuracy", {{"iir2d", {{"max_rel", nullptr}}}}}};
  EXPECT_EQ(summary_line(r),
            "case fixed 7x5 M=31 gauss: median 1.000 ms (IQR 0.000), fail, max_rel n/a, error (a block gave up waiting "
            "(watchdog))");
  const json s = {{"scheme", "fixed"}, {"shape", {7, 5}}, {"M", 3}, {"family", "gauss"}, {"status", "skipped"},
                  {"message", "no CUDA device: none found"}, {"verdict", "n/a"}};
  EXPECT_EQ(summary_line(s), "case fixed 7x5 M=3 gauss: skipped (no CUDA device: none found)");
}
