// splinebench-iir2d: the fixed-vs-flexible allocation experiment of seed 004 (a 2-D IIR
// filter swept over its window size), written as a results folder in the standard
// schema; and the deadlock demonstration. Usage: systems/iir2d/README.md.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>

#include "experiment.hpp"
#include "splinebench/error.hpp"
#include "splinebench/io/atomic_file.hpp"
#include "splinebench/runner/plan.hpp"
#include "splinebench/runner/run_context.hpp"
#include "splinebench/runner/run_store.hpp"

using namespace splinebench;
using nlohmann::json;

namespace {

std::string hash_of(const std::string& id) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(runner::fnv1a64(id)));
  return buf;
}

int run(const std::string& plan_name, const std::string& suite_file, const std::vector<std::string>& scheme_names,
        const std::vector<std::string>& sweeps, const std::string& results_dir, std::string machine,
        const iir2d::ExperimentOptions& base, bool repetitions_given, bool warmups_given, bool case_files) {
  iir2d::ExperimentOptions o = base;
  for (const auto& n : scheme_names) o.schemes.push_back(iir2d::parse_scheme(n));
  iir2d::ExperimentPlan plan;
  if (!suite_file.empty()) plan = iir2d::load_suite_file(suite_file);
  else if (plan_name == "seed") plan = iir2d::seed_plan();
  else if (plan_name == "quick") plan = iir2d::quick_plan();
  else throw Error("iir2d: unknown plan '" + plan_name + "' (seed, quick)");
  if (!repetitions_given) o.repetitions = plan.repetitions;
  if (!warmups_given) o.warmups = plan.warmups;
  std::vector<iir2d::ExperimentCase> cases = plan.cases;
  const std::string& plan_label = plan.name;
  if (!sweeps.empty()) {
    std::vector<iir2d::ExperimentCase> kept;
    for (const auto& c : cases)
      if (std::find(sweeps.begin(), sweeps.end(), c.sweep) != sweeps.end()) kept.push_back(c);
    if (kept.empty()) throw Error("iir2d: no case of the plan is in the sweeps asked for");
    cases = std::move(kept);
  }
  if (machine.empty()) machine = runner::host_name();
  runner::validate_machine_label(machine);

  const auto start = runner::Clock::now();
  const std::string suite = plan_label == "iir2d" ? plan_label : "iir2d-" + plan_label;
  const std::string run_id = runner::utc_compact(start) + "-" + suite;
  json schemes = json::array();
  for (auto s : o.schemes.empty() ? iir2d::all_schemes() : o.schemes) schemes.push_back(iir2d::scheme_name(s));
  json impls = json::object();
  impls["iir2d"] = {"schemes=" + schemes.dump()};
  json context = runner::collect_context(machine, run_id, suite, start, impls);
  json manifest = {{"schema", "splinebench-run"},
                   {"schema_version", runner::kSchemaVersion},
                   {"suite", {{"name", suite}, {"operation", "iir2d"}, {"plan", plan_label}, {"suite_file", suite_file}, {"sweeps", sweeps}, {"schemes", schemes}}},
                   {"suite_origin", "splinebench-iir2d"},
                   {"options",
                    {{"repetitions", o.repetitions}, {"warmups", o.warmups}, {"seed", o.seed},
                     {"empty_chains", o.empty_chains}}},
                   {"context", context}};
  io::install_interrupt_guard();
  runner::RunStore store = runner::RunStore::create(results_dir, machine, run_id, manifest);
  std::vector<json> records;
  int failed = 0;
  iir2d::run_experiment(cases, o, [&](const json& r) {
    if (case_files) store.save_record(hash_of(r["case_id"].get<std::string>()), r);
    records.push_back(r);
    failed += r["verdict"] == "fail";
    std::cout << iir2d::summary_line(r) << std::endl;  // flushed: the log keeps what finished
  });
  store.write_results(store.manifest()["context"], records);
  // Without per-case files the folder is run.json, results.json and results.csv: the
  // store's working folders are empty now and go, so the run travels as three files.
  if (!case_files) {
    std::error_code ec;
    std::filesystem::remove(store.dir() / "cases", ec);     // removes empty folders only
    std::filesystem::remove(store.dir() / ".partial", ec);
  }
  std::cout << store.dir().string() << "\n";
  if (failed) std::cerr << "iir2d: " << failed << " record(s) failed their verdict\n";
  return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"splinebench-iir2d: seed 004's 2-D IIR experiment, fixed vs flexible allocation"};
  app.require_subcommand(1);

  auto* run_cmd = app.add_subcommand("run", "run the experiment and write results/<machine>/<run-id>/");
  std::string plan = "seed", suite_file, results = "results", machine;
  std::vector<std::string> scheme_names, sweeps;
  iir2d::ExperimentOptions opts;
  run_cmd->add_option("--plan", plan, "seed (the full experiment) or quick")->capture_default_str();
  run_cmd->add_option("--schemes", scheme_names, "fixed, fixed_graph, flex_locks, flex_tiles, flex_tiles16 (default all)")
      ->delimiter(',');
  run_cmd->add_option("--suite-file", suite_file, "a suite file (harness/suites/iir2d.json) instead of --plan");
  run_cmd->add_option("--sweeps", sweeps, "only these sweeps of the plan (seed: fig3, sizes, shapes, shapes-small, accuracy)")
      ->delimiter(',');
  run_cmd->add_option("--results", results, "results folder")->capture_default_str();
  run_cmd->add_option("--machine", machine, "machine label (default: host name)");
  auto* reps = run_cmd->add_option("--repetitions", opts.repetitions, "timed runs per case (default: the plan's, 9)")
                   ->check(CLI::PositiveNumber);
  auto* warm = run_cmd->add_option("--warmups", opts.warmups, "untimed runs first (default: the plan's, 2)")
                   ->check(CLI::NonNegativeNumber);
  run_cmd->add_option("--seed", opts.seed, "input noise and random coefficients")->capture_default_str();
  bool no_chains = false, case_files = false;
  run_cmd->add_flag("--case-files", case_files,
                    "also write each record to cases/ as it finishes (kept if the run dies; many files)");
  run_cmd->add_flag("--no-empty-chains", no_chains, "skip the empty launch chains");

  auto* demo = app.add_subcommand("deadlock-demo", "show the deadlock of rows pinned to blocks (a host timeout ends it)");
  double timeout = 5.0;
  demo->add_option("--timeout", timeout, "seconds before the host raises the abort flag")->capture_default_str();

  CLI11_PARSE(app, argc, argv);
  try {
    if (*run_cmd) {
      opts.empty_chains = !no_chains;
      return run(plan, suite_file, scheme_names, sweeps, results, machine, opts, reps->count() > 0,
                 warm->count() > 0, case_files);
    }
    const iir2d::DeadlockDemo d = iir2d::run_deadlock_demo(timeout);
    std::cout << "blocks " << d.blocks << ", resident capacity " << d.resident_capacity << ", "
              << (d.deadlocked ? "deadlocked: the host timeout raised the abort flag" : "completed") << ", "
              << d.gave_up << " blocks gave up, " << d.seconds << " s\n";
    return d.deadlocked ? 0 : 2;
  } catch (const Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
