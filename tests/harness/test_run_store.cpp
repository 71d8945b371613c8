// The run folder, resume, and the results documents of a tiny suite
// run through the library on cpu_scalar and reference.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "fake_impls.hpp"
#include "splinebench/error.hpp"
#include "splinebench/runner/run_store.hpp"
#include "splinebench/runner/suite_runner.hpp"

using namespace splinebench;
using namespace splinebench::runner;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A fresh folder under the test's temporary directory, removed afterwards.
class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() / ("splinebench-test-" + std::to_string(::getpid()) + "-" +
                                          std::to_string(counter_++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

std::string read(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::size_t count_files(const fs::path& dir) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.is_regular_file();
  return n;
}

const char* kTinySuite = R"({
  "name": "tiny",
  "sweeps": [
    {"name": "interp", "impls": ["cpu_scalar", "reference"], "shapes": [[7, 6], [5, 4, 3]], "channels": [1, 2],
     "modes": "all", "queries": [40], "patterns": ["uniform", "outside"]},
    {"name": "prefilter", "impls": ["cpu_scalar", "reference"], "shapes": [[33]], "queries": [0]}
  ]})";

RunOptions two_quick_repetitions() {
  RunOptions o;
  o.repetitions = 2;
  o.warmups = 0;
  return o;
}

class Silent : public RunObserver {};

// Counts how many cases really ran (resume must not rerun finished ones).
struct CountingFactory {
  std::shared_ptr<std::map<std::string, int>> made = std::make_shared<std::map<std::string, int>>();
  ImplementationPtr operator()(const std::string& name) const {
    ++(*made)[name];
    return make_implementation(name);
  }
};

}  // namespace

TEST(RunStore, CreatesUniqueFoldersWithManifest) {
  TempDir dir;
  const json manifest = {{"schema", "splinebench-run"}, {"schema_version", kSchemaVersion}, {"context", json::object()}};
  const RunStore a = RunStore::create(dir.path(), "box", "20260101-000000-tiny", manifest);
  const RunStore b = RunStore::create(dir.path(), "box", "20260101-000000-tiny", manifest);
  EXPECT_EQ(a.dir().filename(), "20260101-000000-tiny");
  EXPECT_EQ(b.dir().filename(), "20260101-000000-tiny-2");
  EXPECT_EQ(json::parse(read(b.dir() / "run.json"))["context"]["run_id"], "20260101-000000-tiny-2");
  EXPECT_TRUE(fs::is_directory(a.dir() / "cases"));
}

TEST(RunStore, ResumeRefusesNonRunsAndCompleteRuns) {
  TempDir dir;
  EXPECT_THROW(RunStore::open_for_resume(dir.path() / "nope"), Error);
  EXPECT_THROW(RunStore::open_for_resume(dir.path()), Error);  // no run.json
  EXPECT_FALSE(fs::exists(dir.path() / ".lock")) << "a folder that is no run got a lock file";
  const json manifest = {{"schema", "splinebench-run"}, {"schema_version", kSchemaVersion}, {"context", json::object()}};
  fs::path run_dir;
  {
    const RunStore store = RunStore::create(dir.path(), "box", "r", manifest);
    run_dir = store.dir();
  }  // an interrupted run: its process is gone
  // A temporary left by a killed write is cleared on resume.
  std::ofstream(run_dir / ".partial" / "x.json.123.tmp") << "{\"trunc";
  {
    const RunStore resumed = RunStore::open_for_resume(run_dir);
    EXPECT_EQ(count_files(resumed.dir() / ".partial"), 0u);
    resumed.write_results(json::object(), {});
  }
  try {
    RunStore::open_for_resume(run_dir);
    FAIL() << "resumed a complete run";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is complete"), std::string::npos);
  }
}

TEST(RunStore, OneWriterPerFolder) {
  TempDir dir;
  const json manifest = {{"schema", "splinebench-run"}, {"schema_version", kSchemaVersion}, {"context", json::object()}};
  fs::path run_dir;
  {
    const RunStore running = RunStore::create(dir.path(), "box", "r", manifest);
    run_dir = running.dir();
    EXPECT_EQ(read(run_dir / ".lock"), std::to_string(::getpid()) + "\n");
    // While the run writes the folder, a resume of it is refused, naming the holder
    // (flock locks belong to open files, so this holds within one process too).
    try {
      RunStore::open_for_resume(run_dir);
      FAIL() << "a second writer was let in";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("in use by another splinebench process (pid " +
                                           std::to_string(::getpid()) + ","),
                std::string::npos)
          << e.what();
    }
  }
  {
    const RunStore first = RunStore::open_for_resume(run_dir);
    EXPECT_THROW(RunStore::open_for_resume(run_dir), Error);  // two resumes: the second refuses
    first.write_results(json::object(), {});
    EXPECT_FALSE(fs::exists(run_dir / ".lock")) << "a complete run keeps its lock file";
  }
  EXPECT_THROW(RunStore::open_for_resume(run_dir), Error);
  EXPECT_FALSE(fs::exists(run_dir / ".lock"));
}

TEST(TinySuite, ProducesSchemaValidResultsThatPass) {
  TempDir dir;
  const SuiteSpec suite = parse_suite(json::parse(kTinySuite), "tiny.json");
  const Plan plan = make_plan(suite, {}, registry());
  ASSERT_EQ(plan.cases.size(), 2u * 2u * 3u * 2u * 2u + 2u);
  const RunStore store = RunStore::create(dir.path(), "box", "tiny-run", {{"context", {{"machine", "box"}}}});
  Silent quiet;
  const RunSummary summary = run_plan(plan, two_quick_repetitions(), make_implementation, &store, {}, quiet);
  EXPECT_TRUE(summary.ok()) << summary.line();
  EXPECT_EQ(summary.passed, plan.cases.size());
  EXPECT_EQ(count_files(store.dir() / "cases"), plan.cases.size());
  store.write_results({{"machine", "box"}, {"run_id", "tiny-run"}, {"suite", "tiny"}}, summary.records);

  const json doc = json::parse(read(store.dir() / "results.json"));
  EXPECT_EQ(doc["schema"], "splinebench-results");
  EXPECT_EQ(doc["schema_version"], 1);
  ASSERT_EQ(doc["records"].size(), plan.cases.size());
  for (const json& r : doc["records"]) {
    SCOPED_TRACE(r.value("case_id", "?"));
    for (const char* key : {"case_id", "impl", "evaluation", "device", "dims", "shape", "channels", "fields", "mode", "data",
                            "queries", "pattern", "threads", "status", "message", "repetitions", "warmups",
                            "phases", "throughput", "accuracy", "tolerance", "verdict"})
      EXPECT_TRUE(r.contains(key)) << key;
    EXPECT_EQ(r["status"], "ok");
    EXPECT_EQ(r["verdict"], "pass");
    EXPECT_EQ(r["shape"].size(), r["dims"].get<std::size_t>());
    for (const auto& [name, p] : r["phases"].items()) {
      EXPECT_EQ(p["samples"].size(), 2u) << name;
      for (const char* k : {"median", "min", "max", "q1", "q3", "iqr"}) EXPECT_TRUE(p[k].is_number()) << k;
      EXPECT_LE(p["min"].get<double>(), p["median"].get<double>());
      EXPECT_LE(p["median"].get<double>(), p["max"].get<double>());
    }
    EXPECT_TRUE(r["accuracy"]["prefilter"]["rel_l2"].is_number());
    EXPECT_LE(r["accuracy"]["prefilter"]["rel_l2"].get<double>(), r["tolerance"]["prefilter_rel_l2"].get<double>());
    if (r["queries"].get<int>() > 0) {
      EXPECT_TRUE(r["phases"].contains("evaluate"));
      EXPECT_EQ(r["accuracy"]["interp"]["checked_queries"], r["queries"]);
      EXPECT_LE(r["accuracy"]["interp"]["max_rel_to_maxf"].get<double>(),
                r["tolerance"]["interp_max_rel_to_maxf"].get<double>());
    } else {
      EXPECT_EQ(r["pattern"], "none");
      EXPECT_FALSE(r["accuracy"].contains("interp"));
    }
  }
  // CSV: a header and one row per record.
  const std::string csv = read(store.dir() / "results.csv");
  EXPECT_EQ(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')), plan.cases.size() + 1);
  EXPECT_EQ(csv.rfind("case_id,impl,evaluation,device,sweep,dims,shape", 0), 0u);

  const std::string table = accuracy_table(summary.records);
  EXPECT_NE(table.find("cpu_scalar"), std::string::npos);
  EXPECT_EQ(table.find("FAIL"), std::string::npos) << table;
}

TEST(TinySuite, ResumeRunsOnlyWhatIsMissing) {
  TempDir dir;
  const Plan plan = make_plan(parse_suite(json::parse(kTinySuite), "tiny.json"), {}, registry());
  const RunStore store = RunStore::create(dir.path(), "box", "resume-run", {{"context", json::object()}});
  // A first, "interrupted" run: only the first 10 cases.
  Plan first = plan;
  first.cases.resize(10);
  first.sweeps = {{"interp", 0, 10}};
  Silent quiet;
  run_plan(first, two_quick_repetitions(), make_implementation, &store, {}, quiet);
  const auto before = fs::last_write_time(store.dir() / "cases" / (plan.cases[0].case_hash() + ".json"));

  const auto finished = store.finished_records();
  ASSERT_EQ(finished.size(), 10u);
  CountingFactory factory;
  const RunSummary summary = run_plan(plan, two_quick_repetitions(), factory, &store, finished, quiet);
  EXPECT_EQ(summary.resumed, 10u);
  EXPECT_EQ(summary.records.size(), plan.cases.size());
  EXPECT_TRUE(summary.ok()) << summary.line();
  EXPECT_EQ(count_files(store.dir() / "cases"), plan.cases.size());
  // Finished cases were not rewritten, and the records keep plan order.
  EXPECT_EQ(fs::last_write_time(store.dir() / "cases" / (plan.cases[0].case_hash() + ".json")), before);
  for (std::size_t i = 0; i < plan.cases.size(); ++i)
    EXPECT_EQ(summary.records[i]["case_id"], plan.cases[i].case_id());
}

TEST(RunPlan, SkippedImplementationIsAnnouncedOncePerReason) {
  struct Collect : RunObserver {
    std::vector<std::string> notes;
    void on_note(const std::string& line) override { notes.push_back(line); }
  } observer;
  const SuiteSpec suite = parse_suite(json::parse(R"({"name": "t", "sweeps": [
      {"name": "s", "impls": ["gpu_x"], "shapes": [[4], [5], [6]], "queries": [3, 4]}]})"),
                                      "t.json");
  const Plan plan = make_plan(suite, {}, splinebench::testing::fake_registry());
  const ImplFactory factory = [](const std::string& name) {
    for (const auto& e : splinebench::testing::fake_registry())
      if (e.name == name) return e.make();
    throw Error("no " + name);
  };
  const RunSummary summary = run_plan(plan, two_quick_repetitions(), factory, nullptr, {}, observer);
  EXPECT_EQ(summary.skipped, 6u);
  EXPECT_TRUE(summary.ok());
  ASSERT_EQ(observer.notes.size(), 1u);
  EXPECT_EQ(observer.notes[0], "gpu_x: skipped, not available: no CUDA device");
}

TEST(RunPlan, WrongImplementationMakesTheRunFail) {
  const SuiteSpec suite = parse_suite(json::parse(R"({"name": "t", "sweeps": [
      {"name": "s", "impls": ["cpu_scalar"], "shapes": [[9, 9]], "queries": [50]}]})"),
                                      "t.json");
  const Plan plan = make_plan(suite, {}, registry());
  const ImplFactory factory = [](const std::string&) -> ImplementationPtr {
    return std::make_unique<splinebench::testing::Tampered>("cpu_scalar",
                                                            splinebench::testing::Tampered::Damage::one_value);
  };
  Silent quiet;
  const RunSummary summary = run_plan(plan, two_quick_repetitions(), factory, nullptr, {}, quiet);
  EXPECT_FALSE(summary.ok());
  EXPECT_EQ(summary.failed, 1u);
  EXPECT_EQ(summary.records[0]["verdict"], "fail");
  EXPECT_NE(accuracy_table(summary.records).find("FAIL"), std::string::npos);
}
