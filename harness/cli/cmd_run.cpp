// `splinebench run`: runs a suite (harness/suites/<name>.json or --suite-file) on the
// implementations it selects, checks every case against the double oracle, writes
// results/<machine>/<run-id>/ as cases finish, and prints an accuracy table. Exits
// non-zero when a case fails its accuracy verdict or errors (skips are fine).
#include <unistd.h>

#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include "cli_run_progress.hpp"
#include "commands.hpp"
#include "splinebench/error.hpp"
#include "splinebench/io/atomic_file.hpp"
#include "splinebench/registry.hpp"
#include "splinebench/runner/memory.hpp"
#include "splinebench/runner/plan.hpp"
#include "splinebench/runner/run_context.hpp"
#include "splinebench/runner/run_store.hpp"
#include "splinebench/runner/suite.hpp"
#include "splinebench/runner/suite_runner.hpp"

namespace splinebench::cli {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

struct RunArgs {
  std::string suite;
  std::string suite_file;
  std::vector<std::string> impls;
  std::string results_dir = "results";
  std::optional<std::string> machine;  // given but empty is an error, not the host name
  std::optional<int> repetitions;
  std::optional<int> warmups;
  std::string resume;
  std::optional<int> threads;
  std::string filter;
  std::string run_dir_file;
  bool dry_run = false;
};

// Everything the run needs, whether new or resumed.
struct Prepared {
  runner::SuiteSpec suite;
  runner::PlanOptions plan_options;
  runner::RunOptions run_options;
  runner::Plan plan;
};

ImplementationPtr make_registered(const std::string& name) { return make_implementation(name); }

json plan_options_json(const runner::PlanOptions& p, const runner::RunOptions& r) {
  return {{"impl", p.only_impls},
          {"filter", p.case_filter},
          {"threads", p.threads ? json(*p.threads) : json(nullptr)},
          {"repetitions", r.repetitions},
          {"warmups", r.warmups},
          {"max_checked_values", r.max_checked_values}};
}

Prepared prepare_new(const RunArgs& args) {
  if (args.suite.empty() == args.suite_file.empty())
    throw Error("give exactly one of --suite NAME or --suite-file PATH (or --resume DIR)");
  Prepared p;
  p.suite = args.suite_file.empty() ? runner::load_named_suite(args.suite) : runner::load_suite_file(args.suite_file);
  p.plan_options.only_impls = args.impls;
  p.plan_options.case_filter = args.filter;
  p.plan_options.threads = args.threads;
  if (args.repetitions && *args.repetitions < 1) throw Error("--repetitions must be >= 1");
  if (args.warmups && *args.warmups < 0) throw Error("--warmups must be >= 0");
  p.run_options.repetitions = args.repetitions.value_or(p.suite.repetitions);
  p.run_options.warmups = args.warmups.value_or(p.suite.warmups);
  p.plan = runner::make_plan(p.suite, p.plan_options, registry());
  return p;
}

Prepared prepare_resume(const runner::RunStore& store) {
  const json& m = store.manifest();
  Prepared p;
  const std::string origin = (store.dir() / "run.json").string() + " (suite)";
  p.suite = runner::parse_suite(m.at("suite"), origin);
  const json& o = m.at("options");
  p.plan_options.only_impls = o.at("impl").get<std::vector<std::string>>();
  p.plan_options.case_filter = o.at("filter").get<std::string>();
  if (!o.at("threads").is_null()) p.plan_options.threads = o.at("threads").get<int>();
  p.run_options.repetitions = o.at("repetitions").get<int>();
  p.run_options.warmups = o.at("warmups").get<int>();
  p.run_options.max_checked_values = o.at("max_checked_values").get<std::int64_t>();
  p.plan = runner::make_plan(p.suite, p.plan_options, registry());
  return p;
}

void reject_with_resume(const RunArgs& a) {
  if (!a.suite.empty() || !a.suite_file.empty() || !a.impls.empty() || a.repetitions || a.warmups || a.threads ||
      !a.filter.empty() || a.machine || a.dry_run)
    throw Error("--resume continues a run with the suite and options it started with; do not combine it with "
                "--suite, --suite-file, --impl, --filter, --threads, --repetitions, --warmups, --machine or "
                "--dry-run");
}

void print_dry_run(const runner::Plan& plan, const runner::RunOptions& options) {
  for (const auto& note : plan.notes) std::cout << "# " << note << '\n';
  for (const auto& c : plan.cases) std::cout << c.case_id() << '\n';
  std::cout << "# " << plan.cases.size() << " cases, " << options.repetitions << " repetitions after "
            << options.warmups << " warm-ups\n";
}

// Refuses a run whose largest case (of those still to run) needs more host memory
// than this process can have, before anything runs.
void require_memory_for(const Prepared& p, const std::map<std::string, json>& finished) {
  const runner::CaseNeed worst = runner::largest_case_need(p.plan, p.run_options, make_registered, finished);
  if (worst.spec)
    runner::require_memory(worst.bytes, "case " + worst.spec->case_id(), "; leave it out with --filter or --impl");
}

// Checks that the run can report its folder where --run-dir-file asks, before it runs.
void check_run_dir_file(const RunArgs& args) {
  if (args.run_dir_file.empty()) return;
  try {
    io::check_output(args.run_dir_file);
  } catch (const Error& e) {
    throw Error(std::string("--run-dir-file: ") + e.what());
  }
}

void run_command(const RunArgs& args) {
  check_run_dir_file(args);
  std::optional<runner::RunStore> store;
  Prepared prepared;
  std::map<std::string, json> finished;
  std::vector<std::string> unreadable;
  const auto now = runner::Clock::now();
  if (!args.resume.empty()) {
    reject_with_resume(args);
    store.emplace(runner::RunStore::open_for_resume(args.resume));
    prepared = prepare_resume(*store);
    finished = store->finished_records(&unreadable);
    require_memory_for(prepared, finished);
    // Records from before and after the resume should come from the same code.
    json git = runner::git_state();
    const json& ctx = store->manifest()["context"];
    if (git["git_sha"] != ctx.value("git_sha", json(nullptr)) || git["git_dirty"] == true)
      std::cerr << "splinebench: warning: resuming at git " << git["git_sha"].dump()
                << (git["git_dirty"] == true ? " (dirty)" : "") << "; the run started at "
                << ctx.value("git_sha", json("unknown")).dump() << '\n';
    git["date"] = runner::utc_iso8601(now);
    store->manifest()["resumed"].push_back(git);
    store->save_manifest();
  } else {
    // Everything that can be wrong with the request is checked before any folder exists.
    if (args.machine && args.machine->empty())
      throw Error("--machine: empty label; give the name of the results/<machine>/ folder, or leave --machine out "
                  "for the short host name (" + runner::host_name() + ")");
    prepared = prepare_new(args);
    if (args.dry_run) {
      print_dry_run(prepared.plan, prepared.run_options);
      return;
    }
    require_memory_for(prepared, finished);
    const std::string machine = args.machine.value_or(runner::host_name());
    runner::validate_machine_label(machine);
    const std::string run_id = runner::utc_compact(now) + "-" + prepared.suite.name;
    json manifest = {{"schema", "splinebench-run"},
                     {"schema_version", runner::kSchemaVersion},
                     {"suite", prepared.suite.source},
                     {"suite_origin", args.suite_file.empty() ? "harness/suites/" + args.suite + ".json"
                                                              : args.suite_file},
                     {"options", plan_options_json(prepared.plan_options, prepared.run_options)},
                     {"resumed", json::array()}};
    manifest["context"] = runner::collect_context(machine, run_id, prepared.suite.name, now,
                                                  runner::implementation_facts(prepared.plan, make_registered));
    store.emplace(runner::RunStore::create(args.results_dir, machine, run_id, std::move(manifest)));
  }
  std::cerr << "run directory: " << store->dir().string() << " (if interrupted, finish it with: splinebench run --resume "
            << store->dir().string() << ")\n";

  for (const auto& f : unreadable) std::cerr << "splinebench: warning: unreadable case file " << f << "; redoing it\n";
  auto observer = make_console_observer(::isatty(STDERR_FILENO) == 1);
  const runner::RunSummary summary =
      runner::run_plan(prepared.plan, prepared.run_options, make_registered, &*store, finished, *observer);

  json context = store->manifest()["context"];
  context["resumed"] = store->manifest()["resumed"];
  store->write_results(context, summary.records);

  std::cout << '\n' << runner::accuracy_table(summary.records) << '\n' << summary.line() << '\n';
  std::cout << "run directory: " << store->dir().string() << '\n';
  if (!args.run_dir_file.empty()) io::write_file_atomically(args.run_dir_file, store->dir().string() + "\n");
  if (!summary.ok())
    throw Error(std::to_string(summary.failed) + " case(s) failed their accuracy verdict and " +
                std::to_string(summary.errored) + " errored (" + summary.line() + ")");
}

void register_run(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "Run a benchmark suite, check every case against the oracle, write results");
  cmd->add_option("--suite", args->suite, "Suite name: harness/suites/<name>.json (quick, full, thesis, ruijters, gpu)");
  cmd->add_option("--suite-file", args->suite_file, "Suite definition file (instead of --suite)");
  cmd->add_option("--impl", args->impls, "Only these implementations (comma-separated)")->delimiter(',');
  cmd->add_option("--results-dir", args->results_dir, "Results root (default: results)");
  cmd->add_option("--machine", args->machine, "Machine label: results/<machine>/ (default: short host name)");
  cmd->add_option("--repetitions", args->repetitions, "Timed repetitions per case (default: the suite's, >= 9)");
  cmd->add_option("--warmups", args->warmups, "Untimed repetitions before them (default: the suite's, 2)");
  cmd->add_option("--resume", args->resume, "Finish an interrupted run folder (skips its finished cases)");
  cmd->add_option("--threads", args->threads, "Threads for implementations that take them (replaces the suites')");
  cmd->add_option("--filter", args->filter, "Only cases whose case_id matches this regular expression");
  cmd->add_option("--run-dir-file", args->run_dir_file, "Write the run folder's path to this file at the end");
  cmd->add_flag("--dry-run", args->dry_run, "Print the cases the suite selects and exit; writes nothing");
  cmd->callback([args] { run_command(*args); });
}

}  // namespace

SPLINEBENCH_COMMAND(register_run);

}  // namespace splinebench::cli
