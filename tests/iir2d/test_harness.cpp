// The iir2d system in the harness (systems/iir2d/harness), without a device: the
// registry it lists, the shipped suites, what the plan refuses and how it names it,
// the memory pre-check's inputs, the records of a run where no scheme can run (every
// one skipped with the reason, nothing allocated), the run folder and resume, and the
// console table. The records of runs on a device: test_scheme_conformance.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "splinebench/error.hpp"
#include "splinebench/iir2d/gpu.hpp"
#include "splinebench/iir2d/harness.hpp"
#include "splinebench/runner/memory.hpp"
#include "splinebench/runner/run_store.hpp"
#include "splinebench/runner/suite_runner.hpp"

using nlohmann::json;
namespace fs = std::filesystem;
namespace sb = splinebench;
namespace runner = splinebench::runner;
using namespace splinebench::iir2d;

namespace {

json suite_with(const std::vector<json>& sweeps) {
  return {{"name", "t"}, {"system", "iir2d"}, {"repetitions", 1}, {"warmups", 0}, {"sweeps", json(sweeps)}};
}

json small_sweep() {
  return {{"name", "small"}, {"shapes", {{8, 8}, {1, 5}}}, {"M", {1, 3}}, {"families", {"gauss"}}};
}

std::unique_ptr<runner::SystemRun> prepare(const json& suite, const runner::RunRequest& request = {}) {
  return make_iir2d_system()->prepare(suite, "test.json", request, nullptr);
}

// The message of the Error prepare throws, "" when it accepts.
std::string refusal(const json& suite, const runner::RunRequest& request = {}) {
  try {
    prepare(suite, request);
  } catch (const sb::Error& e) {
    return e.what();
  }
  return "";
}

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

json shipped(const std::string& name) { return read_json(fs::path(SPLINEBENCH_SUITES_DIR) / (name + ".json")); }

std::vector<std::string> ids(const runner::SystemRun& run) {
  std::vector<std::string> v;
  for (const auto& c : run.cases()) v.push_back(c.id);
  return v;
}

// A scratch folder removed at the end of the test.
struct Scratch {
  fs::path dir = fs::temp_directory_path() /
                 ("iir2d_harness_" + std::to_string(::getpid()) + "_" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Scratch() { fs::remove_all(dir); }
  ~Scratch() { fs::remove_all(dir); }
};

struct Notes : runner::RunObserver {
  std::vector<std::string> lines;
  void on_note(const std::string& line) override { lines.push_back(line); }
};

#define REQUIRE_NO_DEVICE()                                                                         \
  do {                                                                                              \
    if (gpu_unavailable_reason().empty())                                                           \
      GTEST_SKIP() << "a CUDA device is present: the records of runs are test_scheme_conformance's"; \
  } while (0)

}  // namespace

TEST(Iir2dHarness, ListsTheSchemeRegistryAndTheLaunchFloor) {
  const auto system = make_iir2d_system();
  EXPECT_EQ(system->name(), "iir2d");
  EXPECT_EQ(system->entry_noun(), "scheme");
  const json reg = system->registry();
  ASSERT_EQ(reg.size(), scheme_registry().size() + 1);
  const std::string why = gpu_unavailable_reason();
  for (std::size_t k = 0; k < reg.size(); ++k) {
    const json& e = reg[k];
    SCOPED_TRACE(e.dump());
    EXPECT_EQ(e["name"], k < scheme_registry().size() ? std::string(scheme_registry()[k].name) : kLaunchFloor);
    EXPECT_EQ(e["device"], "gpu");
    EXPECT_EQ(e["available"], why.empty());
    EXPECT_EQ(e["reason"], why);
    ASSERT_TRUE(e["capabilities"].is_object());
    if (k < scheme_registry().size()) {
      const SchemeInfo& info = scheme_registry()[k];
      EXPECT_EQ(e["capabilities"]["launch_model"], info.launch_model);
      EXPECT_EQ(e["capabilities"]["deterministic"], info.deterministic);
      EXPECT_EQ(e["capabilities"]["any_M"], info.any_m);
      EXPECT_EQ(e["capabilities"]["shapes"], info.shapes);
      EXPECT_EQ(e["capabilities"]["tolerance_basis"], info.tolerance(31, 0.9).basis);
    }
  }
}

// harness/suites/iir2d.json is the seed's experiment: 2048^2 at every M in 1..31, three
// more sizes, non-square and degenerate shapes, a window larger than the image, the
// random family; every scheme on each, and the launch floor once per shape.
TEST(Iir2dHarness, ShippedSuiteIsTheSeedExperiment) {
  const auto run = prepare(shipped("iir2d"));
  EXPECT_EQ(run->suite(), "iir2d");
  const std::size_t schemes = all_schemes().size();
  std::map<std::string, std::size_t> per_sweep;
  for (const auto& s : run->sweeps()) per_sweep[s.name] = s.case_count;
  // Floors: 2048^2 in fig3; 512^2, 4096^2, 8192^2 in sizes; four shapes; 7 x 5.
  EXPECT_EQ(per_sweep["fig3"], 31 * schemes + 2);
  EXPECT_EQ(per_sweep["sizes"], 3 * 2 * schemes + 3 * 2);
  EXPECT_EQ(per_sweep["shapes"], 4 * 2 * schemes + 4 * 2);
  EXPECT_EQ(per_sweep["shapes-small"], schemes + 2);
  EXPECT_EQ(per_sweep["accuracy"], 2 * schemes);  // 2048^2 had its floor in fig3
  std::set<int> fig3;
  bool one_by_n = false, n_by_one = false, big_window = false;
  for (const auto& id : ids(*run)) {
    if (id.find("/2048x2048/") != std::string::npos && id.find("/gauss/") != std::string::npos)
      fig3.insert(std::stoi(id.substr(id.find("/M") + 2)));
    one_by_n |= id.find("/1x2048/") != std::string::npos;
    n_by_one |= id.find("/2048x1/") != std::string::npos;
    big_window |= id.find("/7x5/M31/") != std::string::npos;
  }
  EXPECT_EQ(fig3.size(), 31u);
  EXPECT_TRUE(one_by_n && n_by_one && big_window);
  const json o = run->options();
  EXPECT_EQ(o["repetitions"], 9);
  EXPECT_EQ(o["warmups"], 2);
}

// iir2d-quick: 256^2 at M = 1, 3, 5, 9, 31; 1 x 300, 300 x 1 and 7 x 5 at M = 31; the
// random family at 256^2, M = 31.
TEST(Iir2dHarness, ShippedQuickSuite) {
  const auto run = prepare(shipped("iir2d-quick"));
  EXPECT_EQ(run->suite(), "iir2d-quick");
  const std::size_t schemes = all_schemes().size();
  EXPECT_EQ(run->cases().size(), (5 + 3 + 1) * schemes + 4 * 2);
  const auto all = ids(*run);
  const std::string first = scheme_name(all_schemes().front());
  for (const std::string& id : {"iir2d/" + first + "/256x256/M9/gauss/++", "iir2d/" + first + "/1x300/M31/gauss/++",
                               "iir2d/" + first + "/300x1/M31/gauss/++", "iir2d/" + first + "/7x5/M31/gauss/++",
                               "iir2d/" + first + "/256x256/M31/random/++",
                               std::string("iir2d/empty_chain_graph/7x5/M0/none/++")})
    EXPECT_NE(std::find(all.begin(), all.end(), id), all.end()) << id;
}

// Cases: sweep by sweep, shape x M x family, the schemes innermost (one input, one
// oracle for all of them), the launch floor after the first input of each shape, once
// per shape in a run; case ids and hashes unique.
TEST(Iir2dHarness, SchemesInnermostAndOneFloorPerShape) {
  json second = small_sweep();
  second["name"] = "again";
  second["shapes"] = {{8, 8}};
  second["M"] = {5};
  const auto run = prepare(suite_with({small_sweep(), second}));
  const std::size_t n = all_schemes().size();
  ASSERT_EQ(run->cases().size(), 2 * 2 * n + 2 * 2 + n);
  std::vector<std::string> expect;
  for (const std::string shape : {"8x8", "1x5"}) {
    for (const std::string M : {"1", "3"}) {
      for (Scheme s : all_schemes()) expect.push_back("iir2d/" + std::string(scheme_name(s)) + "/" + shape + "/M" + M + "/gauss/++");
      if (M == "1")
        for (const char* chain : {"empty_chain", "empty_chain_graph"})
          expect.push_back("iir2d/" + std::string(chain) + "/" + shape + "/M0/none/++");
    }
  }
  for (Scheme s : all_schemes()) expect.push_back("iir2d/" + std::string(scheme_name(s)) + "/8x8/M5/gauss/++");
  EXPECT_EQ(ids(*run), expect);
  std::set<std::string> hashes;
  for (const auto& c : run->cases()) {
    EXPECT_TRUE(hashes.insert(c.hash()).second) << c.id;
    EXPECT_EQ(c.impl, c.id.find("empty_chain") != std::string::npos ? kLaunchFloor : c.id.substr(6, c.id.find('/', 6) - 6));
    EXPECT_GT(c.work, 0);
    EXPECT_EQ(c.will_run, gpu_unavailable_reason().empty());
  }
  ASSERT_EQ(run->sweeps().size(), 2u);
  EXPECT_EQ(run->sweeps()[1].first_case, 2 * 2 * n + 4);
  EXPECT_EQ(run->sweeps()[1].case_count, n);
}

TEST(Iir2dHarness, ImplAndFilterSelectCases) {
  runner::RunRequest only_one;
  only_one.only = {scheme_name(all_schemes().back())};
  for (const auto& c : prepare(suite_with({small_sweep()}), only_one)->cases()) EXPECT_EQ(c.impl, only_one.only[0]);
  runner::RunRequest floors;
  floors.only = {kLaunchFloor};
  const auto run = prepare(suite_with({small_sweep()}), floors);
  EXPECT_EQ(run->cases().size(), 4u);
  for (const auto& c : run->cases()) EXPECT_EQ(c.impl, kLaunchFloor);
  runner::RunRequest filtered;
  filtered.filter = "/1x5/M3/";
  const auto f = prepare(suite_with({small_sweep()}), filtered);
  EXPECT_EQ(f->cases().size(), all_schemes().size());
  for (const auto& c : f->cases()) EXPECT_NE(c.id.find("/1x5/M3/"), std::string::npos);
  // A sweep's own scheme list, less its exclusions, in registry order.
  json sweep = small_sweep();
  sweep["schemes"] = {scheme_name(all_schemes().back()), scheme_name(all_schemes().front())};
  sweep["exclude"] = {scheme_name(all_schemes().back())};
  sweep["empty_chains"] = false;
  const auto chosen = prepare(suite_with({sweep}));
  for (const auto& c : chosen->cases()) EXPECT_EQ(c.impl, scheme_name(all_schemes().front()));
}

TEST(Iir2dHarness, OptionsAreRecordedForAResume) {
  runner::RunRequest request;
  request.only = {scheme_name(all_schemes().front())};
  request.filter = "/8x8/";
  request.threads = 4;
  request.repetitions = 3;
  request.warmups = 1;
  const auto run = prepare(suite_with({small_sweep()}), request);
  const json o = run->options();
  EXPECT_EQ(o["impl"], json(request.only));
  EXPECT_EQ(o["filter"], "/8x8/");
  EXPECT_EQ(o["threads"], 4);
  EXPECT_EQ(o["repetitions"], 3);
  EXPECT_EQ(o["warmups"], 1);
  EXPECT_EQ(o["seed"], 2012);
  const runner::RunRequest back = runner::request_from_options(o, "run.json");
  const auto again = make_iir2d_system()->prepare(suite_with({small_sweep()}), "run.json", back, o);
  EXPECT_EQ(ids(*again), ids(*run));
  // --threads means nothing to a scheme: the plan says so.
  ASSERT_EQ(run->notes().size(), 1u);
  EXPECT_NE(run->notes()[0].find("--threads is ignored"), std::string::npos);
  const json facts = run->entry_facts();
  EXPECT_TRUE(facts.contains(request.only[0]));
}

// Every refusal names the origin and the key, before anything runs.
TEST(Iir2dHarness, BadSuitesAndRequestsAreRefusedByName) {
  auto refused = [](const json& suite, const std::string& part, const runner::RunRequest& request = {}) {
    const std::string m = refusal(suite, request);
    EXPECT_NE(m.find(part), std::string::npos) << "message: '" << m << "', expected to contain '" << part << "'";
    if (!request.only.empty() || request.repetitions || request.warmups || !request.filter.empty()) return;
    EXPECT_EQ(m.rfind("test.json: ", 0), 0u) << m;
  };
  EXPECT_EQ(refusal(suite_with({small_sweep()})), "");
  json s = suite_with({small_sweep()});
  s["operation"] = "iir2d";  // the old driver's key
  refused(s, "unknown key 'operation'");
  s = suite_with({small_sweep()});
  s.erase("system");
  refused(s, "system");
  s = suite_with({small_sweep()});
  s["repetitions"] = 0;
  refused(s, "repetitions: must be an integer in [1,");
  auto sweep_with = [](const char* key, const json& value) {
    json w = small_sweep();
    w[key] = value;
    return suite_with({w});
  };
  refused(sweep_with("threads", 2), "sweeps[0] ('small'): unknown key 'threads'");
  refused(sweep_with("M", {0}), "sweeps[0] ('small'): M: must be an integer in [1, 64]");
  refused(sweep_with("M", {65}), "M: must be an integer in [1, 64]");
  refused(sweep_with("M", {{"from", 5}, {"to", 2}}), "M.to");
  refused(sweep_with("M", "3"), "M: must be a non-empty list");
  refused(sweep_with("shapes", {{0, 4}}), "shapes: a shape is [H, W] with integers H, W >= 1");
  refused(sweep_with("shapes", {{4}}), "shapes: a shape is [H, W]");
  refused(sweep_with("shapes", {{1LL << 40, 1LL << 40}}), "not a possible image");
  refused(sweep_with("families", {"nope"}), "unknown family \"nope\"");
  json unbounded = small_sweep();
  unbounded["families"] = {"separable"};
  unbounded["M"] = {2};  // sum|b| = 1.25: no bound applies
  refused(suite_with({unbounded}), "family 'separable' at M = 2 has sum|b| = 1.25");
  refused(sweep_with("families", {"bspline_quadrant"}), "M = 2 only");
  refused(sweep_with("schemes", {"fast"}), "schemes: unknown scheme \"fast\" (schemes: " + scheme_names());
  refused(sweep_with("exclude", {"fast"}), "exclude: unknown scheme");
  refused(sweep_with("empty_chains", "yes"), "empty_chains: must be true or false");
  refused(suite_with({small_sweep(), small_sweep()}), "sweeps[1] ('small'): name: used by another sweep");
  json twice = small_sweep();
  twice["name"] = "twice";
  refused(suite_with({small_sweep(), twice}), "a case may appear once in a run");
  json d = suite_with({{{"name", "d"}}});
  d["defaults"] = {{"shapes", {{4, 4}}}, {"M", {2}}, {"families", {"gauss"}}};
  EXPECT_EQ(refusal(d), "");  // the defaults fill the sweep
  d["defaults"]["impls"] = "all";
  refused(d, "defaults: unknown key 'impls'");

  runner::RunRequest bad_impl;
  bad_impl.only = {"fast"};
  refused(suite_with({small_sweep()}), "--impl: unknown scheme 'fast' (schemes: " + scheme_names(), bad_impl);
  runner::RunRequest bad_reps;
  bad_reps.repetitions = 0;
  refused(suite_with({small_sweep()}), "--repetitions must be >= 1", bad_reps);
  runner::RunRequest bad_warm;
  bad_warm.warmups = -1;
  refused(suite_with({small_sweep()}), "--warmups must be >= 0", bad_warm);
  runner::RunRequest nothing;
  nothing.filter = "no-such-case";
  refused(suite_with({small_sweep()}), "nothing to run", nothing);
  runner::RunRequest bad_regex;
  bad_regex.filter = "(";
  refused(suite_with({small_sweep()}), "--filter", bad_regex);
}

// A shape no machine here can hold is planned with its host bytes, so `splinebench
// run`'s pre-check refuses it before anything is allocated (it once ended in
// std::bad_alloc); run anyway, its case allocates nothing it cannot have.
TEST(Iir2dHarness, HugeShapeIsRefusedByTheMemoryPreCheck) {
  json sweep = small_sweep();
  sweep["shapes"] = {{100000000, 100000000}};
  sweep["M"] = {3};
  const auto run = prepare(suite_with({sweep}));
  const std::uint64_t image_bytes = std::uint64_t{100000000} * 100000000 * (4 + 4 + 8);  // x, y, oracle
  std::uint64_t worst = 0;
  for (const auto& c : run->cases()) {
    if (c.impl == kLaunchFloor) continue;
    EXPECT_EQ(c.host_bytes, image_bytes) << c.id;
    worst = std::max(worst, c.host_bytes);
  }
  const auto available = runner::available_memory();
  if (available) {
    EXPECT_GT(worst, available->bytes);
    EXPECT_THROW(runner::require_memory(worst, "case"), sb::Error);
  }
  // Without a device the case is skipped without touching the image; with one the
  // device refuses the image before the host allocates it.
  runner::SkipKind kind = runner::SkipKind::none;
  const json r = run->run_case(0, &kind);
  EXPECT_EQ(r["status"], "skipped") << r.dump();
}

// No device: every record is "skipped" with the reason, in the common envelope plus the
// system's fields; the console hears the reason once per entry. The run folder: run.json,
// one file per case in cases/ as it finishes, results.json at the end.
TEST(Iir2dHarness, WithoutADeviceEveryRecordIsSkippedWithTheReason) {
  REQUIRE_NO_DEVICE();
  const std::string why = gpu_unavailable_reason();
  Scratch scratch;
  // A huge image among them: were anything allocated for a skipped case, this would
  // end in std::bad_alloc.
  json huge = small_sweep();
  huge["name"] = "huge";
  huge["shapes"] = {{100000000, 100000000}};
  huge["M"] = {31};
  const auto run = prepare(suite_with({small_sweep(), huge}));
  Notes notes;
  std::size_t n = 0;
  {
    runner::RunStore store = runner::RunStore::create(
        scratch.dir, "ctest", "run",
        {{"schema", "splinebench-run"}, {"schema_version", runner::kSchemaVersion}, {"suite", suite_with({small_sweep()})}, {"options", run->options()}, {"context", json::object()}});
    const runner::RunSummary summary = runner::run_cases(*run, &store, {}, notes);
    n = summary.records.size();
    ASSERT_EQ(n, run->cases().size());
    EXPECT_EQ(summary.skipped, n);
    EXPECT_TRUE(summary.ok());
    for (const json& r : summary.records) {
      SCOPED_TRACE(r.dump());
      for (const char* key : {"case_id", "impl", "device", "sweep", "status", "message", "repetitions", "warmups",
                              "verdict", "operation", "kind", "scheme", "dims", "shape", "M", "family", "quadrant"})
        EXPECT_TRUE(r.contains(key)) << key;
      EXPECT_EQ(r["operation"], "iir2d");
      EXPECT_EQ(r["status"], "skipped");
      EXPECT_EQ(r["message"], why);
      EXPECT_EQ(r["verdict"], "n/a");
      EXPECT_EQ(r["device"], "gpu");
      EXPECT_FALSE(r.contains("phases"));
    }
    store.write_results(json::object(), summary.records);
  }
  std::set<std::string> entries;
  for (const auto& c : run->cases()) entries.insert(c.impl);
  std::size_t skip_lines = 0;
  for (const auto& line : notes.lines) skip_lines += line.find("skipped, " + why) != std::string::npos;
  EXPECT_EQ(skip_lines, entries.size()) << "the reason once per entry";
  const fs::path dir = scratch.dir / "ctest" / "run";
  EXPECT_TRUE(fs::is_regular_file(dir / "run.json"));
  EXPECT_TRUE(fs::is_regular_file(dir / "results.json"));
  EXPECT_TRUE(fs::is_regular_file(dir / "results.csv"));
  for (const auto& c : run->cases()) EXPECT_TRUE(fs::is_regular_file(dir / "cases" / (c.hash() + ".json"))) << c.id;
  EXPECT_EQ(static_cast<std::size_t>(std::distance(fs::directory_iterator(dir / "cases"), fs::directory_iterator())), n);
  EXPECT_EQ(read_json(dir / "results.json")["records"].size(), n);
}

// A run cut short (some case files written, no results.json) finishes with --resume:
// the same plan from run.json's options, the finished cases not rerun.
TEST(Iir2dHarness, ResumeFinishesAnInterruptedRun) {
  Scratch scratch;
  runner::RunRequest request;
  request.only = {scheme_name(all_schemes().front()), kLaunchFloor};
  const json suite = suite_with({small_sweep()});
  const auto run = prepare(suite, request);
  const std::size_t n = run->cases().size();
  ASSERT_GE(n, 4u);
  // The interrupted run: the first half of its records saved, then it died.
  {
    runner::RunStore store = runner::RunStore::create(
        scratch.dir, "ctest", "run", {{"schema", "splinebench-run"}, {"schema_version", runner::kSchemaVersion}, {"suite", suite}, {"options", run->options()}, {"context", json::object()}});
    for (std::size_t i = 0; i < n / 2; ++i) store.save_record(run->cases()[i].hash(), run->run_case(i, nullptr));
  }
  const fs::path dir = scratch.dir / "ctest" / "run";
  runner::RunStore store = runner::RunStore::open_for_resume(dir);
  const json& m = store.manifest();
  const auto resumed = make_iir2d_system()->prepare(m["suite"], "run.json", runner::request_from_options(m["options"], "run.json"),
                                                    m["options"]);
  EXPECT_EQ(ids(*resumed), ids(*run));
  const auto finished = store.finished_records();
  EXPECT_EQ(finished.size(), n / 2);
  Notes notes;
  const runner::RunSummary summary = runner::run_cases(*resumed, &store, finished, notes);
  EXPECT_EQ(summary.resumed, n / 2);
  ASSERT_EQ(summary.records.size(), n);
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(summary.records[i]["case_id"], run->cases()[i].id);
  store.write_results(json::object(), summary.records);
  EXPECT_EQ(read_json(dir / "results.json")["records"].size(), n);
  EXPECT_THROW(runner::RunStore::open_for_resume(dir), sb::Error) << "a complete run is not resumed";
}

// One row per entry: counts, the worst error, the median at the largest shape.
TEST(Iir2dHarness, SummaryTableHasARowPerScheme) {
  const auto run = prepare(suite_with({small_sweep()}));
  auto timed = [](const std::string& impl, std::vector<long long> shape, int M, double rel, double median, const char* verdict) {
    json r = {{"impl", impl}, {"scheme", impl}, {"status", "ok"}, {"verdict", verdict}, {"shape", shape}, {"M", M},
              {"phases", {{"filter", {{"median", median}}}}},
              {"accuracy", {{"iir2d", {{"max_rel", rel}}}}}};
    return r;
  };
  std::vector<json> records = {timed("flex_tiles16", {64, 64}, 3, 1e-7, 1e-4, "pass"),
                               timed("flex_tiles16", {2048, 2048}, 31, 2.5e-7, 5.17e-3, "pass"),
                               timed("fixed", {2048, 2048}, 31, 3e-5, 3.62e-2, "fail"),
                               {{"impl", "fixed"}, {"status", "skipped"}, {"message", "no CUDA device: none"}},
                               {{"impl", kLaunchFloor}, {"scheme", "empty_chain"}, {"status", "ok"}, {"verdict", "pass"},
                                {"shape", {2048, 2048}}, {"M", 0}, {"launches", 4095},
                                {"phases", {{"filter", {{"median", 1.59e-2}}}}}}};
  const std::string table = run->summary_table(records);
  std::istringstream lines(table);
  std::vector<std::string> rows;
  for (std::string line; std::getline(lines, line);) rows.push_back(line);
  ASSERT_EQ(rows.size(), 4u) << table;
  EXPECT_EQ(rows[1].rfind("flex_tiles16", 0), 0u);
  EXPECT_NE(rows[1].find("2.50e-07"), std::string::npos) << rows[1];
  EXPECT_NE(rows[1].find("5.170 ms (2048x2048 M31)"), std::string::npos) << rows[1];
  EXPECT_EQ(rows[2].rfind("fixed", 0), 0u);
  EXPECT_NE(rows[2].find("3.00e-05"), std::string::npos) << rows[2];
  EXPECT_NE(rows[2].find("2      0     1     1     0"), std::string::npos) << rows[2];  // cases, pass, fail, skip, error
  EXPECT_EQ(rows[3].rfind(kLaunchFloor, 0), 0u);
  EXPECT_NE(rows[3].find("15.900 ms (2048x2048 empty_chain)"), std::string::npos) << rows[3];
}
