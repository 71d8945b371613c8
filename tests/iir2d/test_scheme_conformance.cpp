// Every scheme of schemes.def (no name is written here) against the f64 oracle within
// the tolerance the registry states for it, through the harness's own case code (the
// iir2d system's prepare and run_case): 1 x 2048, 2048 x 1, 7 x 5 (M > min(H, W)),
// 64 x 64 and 640 x 480 at M = 1, 3 and 31, gauss and random coefficients. Without a
// device every test skips with "no CUDA device: <reason>".
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "splinebench/iir2d/accuracy.hpp"
#include "splinebench/iir2d/gpu.hpp"
#include "splinebench/iir2d/harness.hpp"

using nlohmann::json;
using namespace splinebench::iir2d;
namespace runner = splinebench::runner;

namespace {

// Skips with "no CUDA device: <reason>" (or "not built: ...") where the schemes cannot run.
#define IIR2D_REQUIRE_DEVICE()                                                                   \
  do {                                                                                           \
    const std::string why_ = gpu_unavailable_reason();                                           \
    if (!why_.empty())                                                                           \
      GTEST_SKIP() << (why_.rfind("no CUDA device", 0) == 0 ? why_ : "no CUDA device: " + why_); \
  } while (0)

json conformance_suite(const std::string& entry, bool empty_chains) {
  return {{"name", "conformance"},
          {"system", "iir2d"},
          {"repetitions", 1},
          {"warmups", 1},
          {"sweeps",
           {{{"name", "conformance"},
             {"shapes", {{1, 2048}, {2048, 1}, {7, 5}, {64, 64}, {640, 480}}},
             {"M", {1, 3, 31}},
             {"families", {"gauss", "random"}},
             {"schemes", empty_chains ? json::array() : json::array({entry})},
             {"empty_chains", empty_chains}}}}};
}

class SchemeConformance : public ::testing::TestWithParam<Scheme> {};

}  // namespace

TEST_P(SchemeConformance, MatchesTheOracleWithinItsStatedTolerance) {
  IIR2D_REQUIRE_DEVICE();
  const SchemeInfo& info = scheme_info(GetParam());
  const auto system = make_iir2d_system();
  runner::RunRequest request;
  request.only = {info.name};
  const auto run = system->prepare(conformance_suite(info.name, false), "conformance", request, nullptr);
  ASSERT_EQ(run->cases().size(), 5u * 3u * 2u);
  for (std::size_t i = 0; i < run->cases().size(); ++i) {
    runner::SkipKind kind = runner::SkipKind::none;
    const json r = run->run_case(i, &kind);
    SCOPED_TRACE(r.value("case_id", "?"));
    ASSERT_EQ(r["status"], "ok") << r["message"];
    EXPECT_EQ(r["impl"], info.name);
    const Tolerance stated = info.tolerance(r["M"].get<int>(), r["gain"].get<double>());
    EXPECT_DOUBLE_EQ(r["tolerance"]["iir2d_max_rel"].get<double>(), stated.max_rel) << "the record's bound is the registry's";
    const json& acc = r["accuracy"]["iir2d"];
    EXPECT_EQ(acc["unwritten"], 0);
    EXPECT_EQ(acc["nonfinite"], 0);
    ASSERT_TRUE(acc["max_rel"].is_number());
    EXPECT_LE(acc["max_rel"].get<double>(), stated.max_rel) << stated.basis;
    EXPECT_EQ(r["verdict"], "pass") << r["message"];
    if (!r["meets_target"].is_null()) {
      EXPECT_EQ(r["meets_target"], true);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, SchemeConformance, ::testing::ValuesIn(all_schemes()),
                         [](const ::testing::TestParamInfo<Scheme>& p) { return std::string(scheme_name(p.param)); });

// The launch floor of every shape runs and completes: "pass", with its launch count.
TEST(Iir2dLaunchFloor, EveryChainRunsAndPasses) {
  IIR2D_REQUIRE_DEVICE();
  const auto system = make_iir2d_system();
  const auto run = system->prepare(conformance_suite(kLaunchFloor, true), "conformance", {}, nullptr);
  ASSERT_EQ(run->cases().size(), 5u * 2u);
  for (std::size_t i = 0; i < run->cases().size(); ++i) {
    const json r = run->run_case(i, nullptr);
    SCOPED_TRACE(r.value("case_id", "?"));
    ASSERT_EQ(r["status"], "ok") << r["message"];
    EXPECT_EQ(r["kind"], kLaunchFloor);
    EXPECT_EQ(r["verdict"], "pass");
    EXPECT_EQ(r["launches"], r["shape"][0].get<long long>() + r["shape"][1].get<long long>() - 1);
    EXPECT_EQ(r["phases"]["filter"]["samples"].size(), 1u);
  }
}
