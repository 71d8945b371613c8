// Suite parsing and planning: expansion of the axes, device selectors, defaults,
// counts like "2^20", and every impossible sweep rejected with a message that names
// the problem.
#include <gtest/gtest.h>

#include <cctype>

#include <filesystem>
#include <set>
#include <thread>

#include "fake_impls.hpp"
#include "splinebench/error.hpp"
#include "splinebench/runner/plan.hpp"
#include "splinebench/runner/suite.hpp"

using namespace splinebench;
using namespace splinebench::runner;
using nlohmann::json;

namespace {

SuiteSpec parse(const std::string& text) { return parse_suite(json::parse(text), "test.json"); }

Plan plan_of(const std::string& text, PlanOptions options = {}) {
  return make_plan(parse(text), options, splinebench::testing::fake_registry());
}

// The message of the splinebench::Error `fn` throws ("" if none).
template <typename Fn>
std::string thrown_message(Fn fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string sweep_with(const std::string& body) {
  return R"({"name": "t", "sweeps": [{"name": "s", )" + body + "}]}";
}

}  // namespace

TEST(SuiteParse, CountsAcceptPowersAndProducts) {
  EXPECT_EQ(parse_count(json(1048576), "q"), 1048576);
  EXPECT_EQ(parse_count(json("2^20"), "q"), 1048576);
  EXPECT_EQ(parse_count(json("64^4"), "q"), 16777216);
  EXPECT_EQ(parse_count(json("3*2^10"), "q"), 3072);
  EXPECT_EQ(parse_count(json("0"), "q"), 0);
  EXPECT_NE(thrown_message([] { parse_count(json("2^"), "q"); }), "");
  EXPECT_NE(thrown_message([] { parse_count(json("two"), "q"); }), "");
  EXPECT_NE(thrown_message([] { parse_count(json(1.5), "q"); }), "");
  EXPECT_NE(thrown_message([] { parse_count(json("2^70"), "q"); }).find("too large"), std::string::npos);
}

TEST(SuiteParse, SizesTimesDimsAndDefaults) {
  const SuiteSpec s = parse(R"({
    "name": "t", "repetitions": 11, "warmups": 1,
    "defaults": {"impls": ["cpu"], "modes": "all", "queries": [0, "2^4"]},
    "sweeps": [{"name": "a", "dims": [1, 3], "sizes": [2, 5], "channels": [1, 4], "patterns": ["uniform", "outside"]}]
  })");
  EXPECT_EQ(s.name, "t");
  EXPECT_EQ(s.repetitions, 11);
  EXPECT_EQ(s.warmups, 1);
  ASSERT_EQ(s.sweeps.size(), 1u);
  const SweepSpec& w = s.sweeps[0];
  const std::vector<std::vector<std::int64_t>> shapes = {{2}, {5}, {2, 2, 2}, {5, 5, 5}};
  EXPECT_EQ(w.shapes, shapes);
  EXPECT_EQ(w.modes.size(), 3u);
  EXPECT_EQ(w.queries, (std::vector<std::int64_t>{0, 16}));
  EXPECT_EQ(w.fields, (std::vector<std::int64_t>{1}));  // default
  EXPECT_EQ(w.data.size(), 1u);                         // default noise
}

TEST(SuitePlan, CartesianProductWithImplementationsInnermost) {
  const Plan p = plan_of(sweep_with(
      R"("impls": ["cpu"], "dims": [2], "sizes": [3, 4], "modes": ["mirror", "half"], "queries": [0, 10],
         "patterns": ["uniform", "sorted"])"));
  // 2 shapes x 2 modes x (1 prefilter-only + 2 patterns) x 2 cpu implementations.
  EXPECT_EQ(p.cases.size(), 2u * 2u * 3u * 2u);
  EXPECT_EQ(p.cases[0].impl, "cpu_a");
  EXPECT_EQ(p.cases[1].impl, "cpu_mt");
  EXPECT_EQ(p.cases[0].field_key(), p.cases[1].field_key());
  EXPECT_EQ(p.cases[0].case_id(), "cpu_a/D2/3x3/C1/F1/mirror/noise/q0/none/T1");
  std::set<std::string> ids;
  for (const auto& c : p.cases) ids.insert(c.case_id());
  EXPECT_EQ(ids.size(), p.cases.size());
  ASSERT_EQ(p.sweeps.size(), 1u);
  EXPECT_EQ(p.sweeps[0].case_count, p.cases.size());
}

TEST(SuitePlan, SelectorsExcludeAndGpu) {
  const Plan all = plan_of(sweep_with(R"("impls": "all", "exclude": ["cpu_mt"], "shapes": [[4]], "queries": 3)"));
  ASSERT_EQ(all.cases.size(), 2u);
  EXPECT_EQ(all.cases[0].impl, "cpu_a");
  EXPECT_EQ(all.cases[1].impl, "gpu_x");
  EXPECT_EQ(all.cases[1].device, Device::gpu);
  const Plan gpu = plan_of(sweep_with(R"("impls": ["gpu"], "shapes": [[4, 4]], "queries": 3)"));
  ASSERT_EQ(gpu.cases.size(), 1u);
  EXPECT_EQ(gpu.cases[0].impl, "gpu_x");
}

TEST(SuitePlan, ThreadsOnlyMultiplyImplementationsThatTakeThem) {
  const Plan p = plan_of(sweep_with(R"("impls": ["cpu"], "shapes": [[8]], "queries": 3, "threads": [1, 2, 4])"));
  int a = 0, mt = 0;
  for (const auto& c : p.cases) (c.impl == "cpu_a" ? a : mt) += 1;
  EXPECT_EQ(a, 1);
  EXPECT_EQ(mt, 3);
  PlanOptions forced;
  forced.threads = 2;
  const Plan q = plan_of(sweep_with(R"("impls": ["cpu_mt"], "shapes": [[8]], "queries": 3, "threads": [1, 4])"), forced);
  ASSERT_EQ(q.cases.size(), 1u);
  EXPECT_EQ(q.cases[0].threads, 2);
}

TEST(SuitePlan, ThreadCountsAreBounded) {
  const int limit = max_threads();
  EXPECT_EQ(limit, std::max(1024, 4 * static_cast<int>(std::thread::hardware_concurrency())));
  const std::string over = std::to_string(limit + 1);
  EXPECT_NE(thrown_message([&] { parse(sweep_with(R"("impls": ["cpu_mt"], "shapes": [[8]], "queries": 3, "threads": [)" +
                                            over + "]")); })
                .find("must be in [1, " + std::to_string(limit) + "], got " + over),
            std::string::npos);
  EXPECT_NO_THROW(parse(sweep_with(R"("impls": ["cpu_mt"], "shapes": [[8]], "queries": 3, "threads": [)" +
                                   std::to_string(limit) + "]")));
  PlanOptions options;
  options.threads = limit + 1;
  EXPECT_NE(thrown_message([&] { plan_of(sweep_with(R"("impls": ["cpu_mt"], "shapes": [[8]], "queries": 3)"), options); })
                .find("--threads must be in [1, " + std::to_string(limit) + "]"),
            std::string::npos);
}

TEST(SuitePlan, ImplAndRegexFilters) {
  PlanOptions opt;
  opt.only_impls = {"cpu_mt"};
  opt.case_filter = "/half/";
  const Plan p = plan_of(sweep_with(R"("impls": "all", "shapes": [[8]], "modes": "all", "queries": 3)"), opt);
  ASSERT_EQ(p.cases.size(), 1u);
  EXPECT_EQ(p.cases[0].case_id(), "cpu_mt/D1/8/C1/F1/half/noise/q3/uniform/T1");
  opt.case_filter = "nothing-matches-this";
  EXPECT_NE(thrown_message([&] { plan_of(sweep_with(R"("impls": "all", "shapes": [[8]], "queries": 3)"), opt); })
                .find("selects no case"),
            std::string::npos);
  opt.case_filter = "([";
  EXPECT_NE(thrown_message([&] { plan_of(sweep_with(R"("impls": "all", "shapes": [[8]], "queries": 3)"), opt); })
                .find("invalid regular expression"),
            std::string::npos);
}

TEST(SuitePlan, DuplicateCasesRunOnce) {
  const Plan p = plan_of(R"({"name": "t", "sweeps": [
      {"name": "a", "impls": ["cpu_a"], "shapes": [[5]], "queries": [3, 3]},
      {"name": "b", "impls": ["cpu_a"], "shapes": [[5]], "queries": 3}]})");
  EXPECT_EQ(p.cases.size(), 1u);
  EXPECT_EQ(p.sweeps[1].case_count, 0u);
}

// Each impossible sweep: the message must name the problem.
struct Impossible {
  const char* what;
  std::string suite;
  const char* expected;
};

// Printed and named by what is wrong (e.g. ImpossibleSweep.IsRejectedWithAClearMessage/D_0).
[[maybe_unused]] void PrintTo(const Impossible& c, std::ostream* os) { *os << c.what; }
std::string impossible_name(const ::testing::TestParamInfo<Impossible>& info) {
  std::string name;
  for (const char* p = info.param.what; *p != '\0'; ++p) {
    if (std::isalnum(static_cast<unsigned char>(*p)) != 0) {
      name += *p;
    } else if (!name.empty() && name.back() != '_') {
      name += '_';
    }
  }
  while (!name.empty() && name.back() == '_') name.pop_back();
  return name;
}

class ImpossibleSweep : public ::testing::TestWithParam<Impossible> {};

TEST_P(ImpossibleSweep, IsRejectedWithAClearMessage) {
  const Impossible& c = GetParam();
  const std::string msg = thrown_message([&] { plan_of(c.suite); });
  ASSERT_NE(msg, "") << c.what << ": accepted";
  EXPECT_NE(msg.find(c.expected), std::string::npos) << c.what << ": message was: " << msg;
  EXPECT_NE(msg.find("test.json"), std::string::npos) << "message should name the file: " << msg;
}

INSTANTIATE_TEST_SUITE_P(
    All, ImpossibleSweep,
    ::testing::Values(
        Impossible{"unknown impl", sweep_with(R"("impls": ["cpu_sse"], "shapes": [[4]], "queries": 1)"),
                   "unknown implementation 'cpu_sse'"},
        Impossible{"unknown excluded impl",
                   sweep_with(R"("impls": "all", "exclude": ["nope"], "shapes": [[4]], "queries": 1)"),
                   "unknown implementation 'nope'"},
        Impossible{"unknown mode", sweep_with(R"("impls": "all", "shapes": [[4]], "modes": ["wrap"], "queries": 1)"),
                   "unknown mode 'wrap'"},
        Impossible{"unknown pattern",
                   sweep_with(R"("impls": "all", "shapes": [[4]], "patterns": ["random"], "queries": 1)"),
                   "unknown query pattern 'random'"},
        Impossible{"unknown data", sweep_with(R"("impls": "all", "shapes": [[4]], "data": ["zeros"], "queries": 1)"),
                   "unknown data 'zeros'"},
        Impossible{"D = 0", sweep_with(R"("impls": "all", "dims": [0], "sizes": [4], "queries": 1)"),
                   "D must be in [1, 6], got 0"},
        Impossible{"D = 7", sweep_with(R"("impls": "all", "dims": [7], "sizes": [4], "queries": 1)"),
                   "D must be in [1, 6], got 7"},
        Impossible{"7-axis shape", sweep_with(R"("impls": "all", "shapes": [[2,2,2,2,2,2,2]], "queries": 1)"),
                   "has 7 axes; D must be in [1, 6]"},
        Impossible{"shape length differs from D",
                   sweep_with(R"("impls": "all", "dims": [3], "shapes": [[4, 4]], "queries": 1)"),
                   "has 2 axes, which differs from every D"},
        Impossible{"extent 0", sweep_with(R"("impls": "all", "shapes": [[4, 0]], "queries": 1)"),
                   "every extent (samples per axis) must be >= 1, got 0"},
        Impossible{"size 0", sweep_with(R"("impls": "all", "dims": [2], "sizes": [0], "queries": 1)"),
                   "samples per axis must be >= 1, got 0"},
        Impossible{"negative queries", sweep_with(R"("impls": "all", "shapes": [[4]], "queries": [-1])"),
                   "queries per call must be >= 0, got -1"},
        Impossible{"empty axis", sweep_with(R"("impls": "all", "shapes": [[4]], "channels": [], "queries": 1)"),
                   "channels: empty axis list"},
        Impossible{"empty impls", sweep_with(R"("impls": [], "shapes": [[4]], "queries": 1)"), "impls: empty axis list"},
        Impossible{"empty shapes", sweep_with(R"("impls": "all", "shapes": [], "queries": 1)"),
                   "shapes: empty axis list"},
        Impossible{"missing queries", sweep_with(R"("impls": "all", "shapes": [[4]])"), "queries: missing"},
        Impossible{"sizes and shapes", sweep_with(R"("impls": "all", "dims": [1], "sizes": [4], "shapes": [[4]], "queries": 1)"),
                   "exactly one of"},
        Impossible{"sizes without dims", sweep_with(R"("impls": "all", "sizes": [4], "queries": 1)"),
                   "\"sizes\" needs \"dims\""},
        Impossible{"unknown key", sweep_with(R"("impls": "all", "shapes": [[4]], "querys": 1)"),
                   "'querys': unknown key"},
        Impossible{"zero fields", sweep_with(R"("impls": "all", "shapes": [[4]], "fields": [0], "queries": 1)"),
                   "fields per batch must be >= 1"},
        Impossible{"too few repetitions",
                   R"({"name": "t", "repetitions": 3, "sweeps": [{"name": "s", "impls": "all", "shapes": [[4]], "queries": 1}]})",
                   "repetitions (at least 9"},
        Impossible{"no sweeps", R"({"name": "t", "sweeps": []})", "non-empty list of sweeps"},
        Impossible{"duplicate sweep names",
                   R"({"name": "t", "sweeps": [{"name": "s", "impls": "all", "shapes": [[4]], "queries": 1},
                                              {"name": "s", "impls": "all", "shapes": [[4]], "queries": 1}]})",
                   "two sweeps are named 's'"},
        Impossible{"bad suite name", R"({"name": "a/b", "sweeps": [{"name": "s", "impls": "all", "shapes": [[4]], "queries": 1}]})",
                   "must be non-empty letters"}),
    impossible_name);

TEST(SuitePlan, UnknownImplInCommandLineFilter) {
  PlanOptions opt;
  opt.only_impls = {"cpu_simd_typo"};
  const std::string msg = thrown_message([&] { plan_of(sweep_with(R"("impls": "all", "shapes": [[4]], "queries": 1)"), opt); });
  EXPECT_NE(msg.find("--impl: unknown implementation 'cpu_simd_typo'"), std::string::npos) << msg;
}

// The suites shipped in harness/suites parse, and plan against this build's registry
// (a device selector that matches nothing is allowed; a plan with no case is not,
// which the gpu suite hits in a build without GPU implementations).
TEST(ShippedSuites, AllParseAndPlan) {
  for (const char* name : {"quick", "full", "thesis", "ruijters", "gpu"}) {
    SCOPED_TRACE(name);
    SuiteSpec s;
    ASSERT_NO_THROW(s = load_named_suite(name));
    EXPECT_EQ(s.name, name);
    EXPECT_GE(s.repetitions, 9);
    bool any_gpu = false;
    for (const auto& e : registry()) any_gpu |= e.device == Device::gpu;
    if (std::string(name) == "gpu" && !any_gpu) {
      EXPECT_NE(thrown_message([&] { make_plan(s, {}, registry()); }).find("selects no case"), std::string::npos);
      continue;
    }
    Plan p;
    ASSERT_NO_THROW(p = make_plan(s, {}, registry()));
    EXPECT_FALSE(p.cases.empty());
  }
}

TEST(ShippedSuites, QuickCoversWhatItPromises) {
  const Plan p = make_plan(load_named_suite("quick"), {}, registry());
  std::set<int> dims, channels;
  std::set<Mode> modes;
  std::set<std::int64_t> short_lengths, fields, queries;
  std::set<std::string> patterns;
  bool prefilter_only = false;
  for (const auto& c : p.cases) {
    dims.insert(c.shape.dims);
    channels.insert(c.shape.channels);
    modes.insert(c.mode);
    fields.insert(c.fields);
    queries.insert(c.queries);
    patterns.insert(c.pattern_name());
    prefilter_only |= c.queries == 0;
    for (int d = 0; d < c.shape.dims; ++d)
      if (c.shape.extent[d] <= 4) short_lengths.insert(c.shape.extent[d]);
  }
  EXPECT_EQ(dims, (std::set<int>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(channels, (std::set<int>{1, 2, 4}));
  EXPECT_EQ(modes.size(), 3u);
  EXPECT_EQ(short_lengths, (std::set<std::int64_t>{1, 2, 3, 4}));
  EXPECT_TRUE(patterns.count("outside") && patterns.count("sorted") && patterns.count("uniform"));
  EXPECT_GE(queries.size(), 4u);
  EXPECT_GE(fields.size(), 2u);
  EXPECT_TRUE(prefilter_only);
}
