// The plain C++ side of the GPU benchmarks' shared mechanism (bench/gpu_bench_common),
// run everywhere without a GPU: the axes' cartesian product, a benchmark's rows with
// skipped and failed points, the file written atomically after every benchmark, the
// statistics keys (the harness's), the run context, and set-ups kept between points.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "gpu_bench_common/benchmark.hpp"
#include "gpu_bench_common/measurement.hpp"
#include "splinebench/error.hpp"
#include "splinebench/runner/record.hpp"

namespace splinebench::bench {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("splinebench_bench_common_" + name + "_" +
                                                    std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

json read_json(const fs::path& p) {
  std::ifstream f(p);
  return json::parse(f);
}

TEST(BenchAxes, CartesianProductLastAxisFastest) {
  const auto points = cartesian_product({{"pattern", {"uniform", "sorted"}}, {"impl", {"a", "b", "c"}}});
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[0], (json{{"pattern", "uniform"}, {"impl", "a"}}));
  EXPECT_EQ(points[1], (json{{"pattern", "uniform"}, {"impl", "b"}}));
  EXPECT_EQ(points[3], (json{{"pattern", "sorted"}, {"impl", "a"}}));
  EXPECT_EQ(cartesian_product({}), std::vector<json>{json::object()});
  EXPECT_THROW(cartesian_product({{"empty", {}}}), Error);
}

TEST(BenchAxes, StateReadsItsPoint) {
  State s(json{{"edge", 64}, {"impl", "gpu_naive"}, {"case", {{"edge", 16}, {"queries", 65536}}}});
  EXPECT_EQ(s.int64("edge"), 64);
  EXPECT_EQ(s.string("impl"), "gpu_naive");
  EXPECT_EQ(s.axis("case")["queries"], 65536);
  EXPECT_THROW(s.axis("nope"), Error);
  s.row()["result"] = 1.5;
  EXPECT_EQ(s.row()["edge"], 64) << "a row starts as its point";
  EXPECT_FALSE(s.point().contains("result"));
}

// The same timing keys as the harness's records, so one reader serves both.
TEST(BenchJson, StatsKeysAreTheHarnessRecordKeys) {
  const runner::SampleStats st = runner::summarize({3.0, 1.0, 2.0, 4.0});
  runner::Record record;
  record.phases.emplace_back("evaluate", st);
  const json harness = runner::to_json(record)["phases"]["evaluate"];
  EXPECT_EQ(stats_json(st), harness);
  Measurement m{st, runner::summarize({1e-6, 2e-6}), 1};
  const json j = to_json(m);
  for (const auto& [key, value] : harness.items()) EXPECT_EQ(j[key], value) << key;
  EXPECT_DOUBLE_EQ(j["host_enqueue_median"].get<double>(), 1.5e-6);
  EXPECT_EQ(j["enqueue_outlasted_hold"], 1);
}

TEST(BenchJson, L2StatesRoundTrip) {
  for (L2State s : {L2State::hot, L2State::cold, L2State::clean}) EXPECT_EQ(parse_l2_state(to_string(s)), s);
  EXPECT_FALSE(parse_l2_state("warm").has_value());
  const json t = to_json(TimingSettings{});
  EXPECT_EQ(t["repetitions"], 15);
  EXPECT_TRUE(t["l2_states"].contains("clean"));
}

// Rows in axis order; Unsupported gives "skipped", other exceptions "error" (counted);
// the file is rewritten after each benchmark and no temporary file is left behind.
TEST(BenchFile, RowsSkipsErrorsAndAtomicRewrite) {
  const fs::path dir = fresh_dir("file");
  const fs::path out = dir / "bench.json";
  ResultFile file(out, "splinebench-test", 7, json{{"machine", "test"}});
  EXPECT_FALSE(fs::exists(out)) << "nothing is written before a benchmark has run";
  file.run({"first", "two axes", {{"n", {1, 2}}, {"kind", {"x", "y"}}}, [](State& s) {
              if (s.int64("n") == 2 && s.string("kind") == "x") throw Unsupported("too big");
              if (s.int64("n") == 2 && s.string("kind") == "y") throw Error("broken");
              s.row()["value"] = s.int64("n") * 10;
            }});
  json doc = read_json(out);
  EXPECT_EQ(doc["schema"], "splinebench-test");
  EXPECT_EQ(doc["schema_version"], 7);
  EXPECT_EQ(doc["context"]["machine"], "test");
  const json& b = doc["benchmarks"]["first"];
  EXPECT_EQ(b["description"], "two axes");
  EXPECT_EQ(b["axes"][0], (json{{"name", "n"}, {"values", {1, 2}}}));
  ASSERT_EQ(b["rows"].size(), 4u);
  EXPECT_EQ(b["rows"][0], (json{{"n", 1}, {"kind", "x"}, {"value", 10}}));
  EXPECT_EQ(b["rows"][2]["skipped"], "too big");
  EXPECT_EQ(b["rows"][3]["error"], "broken");
  EXPECT_EQ(file.failures(), 1);

  file.run({"second", "no axes: one point", {}, [](State& s) { s.row()["ok"] = true; }});
  doc = read_json(out);
  EXPECT_TRUE(doc["benchmarks"].contains("first"));
  EXPECT_EQ(doc["benchmarks"]["second"]["rows"], (json::array({{{"ok", true}}})));
  for (const auto& entry : fs::directory_iterator(dir)) EXPECT_EQ(entry.path().filename(), "bench.json");
  fs::remove_all(dir);
}

TEST(BenchFile, MissingFolderIsAnError) {
  ResultFile file(fs::temp_directory_path() / "splinebench_no_such_dir_x" / "b.json", "s", 1, json::object());
  EXPECT_THROW(file.run({"b", "", {}, [](State&) {}}), Error);
}

// The harness's run context, with the program as suite and each implementation's facts.
TEST(BenchContext, HarnessContextWithFacts) {
  const json ctx = bench_context("some_bench", "machine-x", "abc123", {"cpu_scalar"});
  EXPECT_EQ(ctx["suite"], "some_bench");
  EXPECT_EQ(ctx["machine"], "machine-x");
  EXPECT_EQ(ctx["git_sha"], "abc123");
  EXPECT_EQ(ctx["git_source"], "--git-sha");
  EXPECT_TRUE(ctx["implementations"].contains("cpu_scalar"));
  for (const char* key : {"date", "compiler", "cuda_runtime", "gpu", "cpu_model", "registry"})
    EXPECT_TRUE(ctx.contains(key)) << key;
  EXPECT_NE(bench_context("some_bench", "", "", {})["machine"], "") << "defaults to the host name";
}

struct Counted {
  static int alive;
  int made_for;
  explicit Counted(int k) : made_for(k) { ++alive; }
  ~Counted() { --alive; }
};
int Counted::alive = 0;

TEST(BenchKept, OneObjectRemadeOnlyWhenTheKeyChanges) {
  Kept<Counted> kept;
  int makes = 0;
  auto get = [&](int k) -> Counted& {
    return kept.get(k, [&] {
      ++makes;
      EXPECT_EQ(Counted::alive, 0) << "the old object is freed before the new one is made";
      return std::make_unique<Counted>(k);
    });
  };
  EXPECT_EQ(get(1).made_for, 1);
  EXPECT_EQ(get(1).made_for, 1);
  EXPECT_EQ(makes, 1);
  EXPECT_EQ(get(2).made_for, 2);
  EXPECT_EQ(makes, 2);
  EXPECT_EQ(Counted::alive, 1);
  kept.reset();
  EXPECT_EQ(Counted::alive, 0);
}

}  // namespace
}  // namespace splinebench::bench
