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
#include "cli_systems.hpp"
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

// The suite document a new run asks for (--suite or --suite-file).
runner::SuiteDocument suite_document(const RunArgs& args) {
  if (args.suite.empty() == args.suite_file.empty())
    throw Error("give exactly one of --suite NAME or --suite-file PATH (or --resume DIR)");
  return args.suite_file.empty() ? runner::find_named_suite(args.suite) : runner::read_suite_file(args.suite_file);
}

std::unique_ptr<runner::SystemRun> prepare_new(const RunArgs& args, const runner::SuiteDocument& suite) {
  // Every system's entries share one bound on threads.
  if (args.threads && (*args.threads < 1 || *args.threads > runner::max_threads()))
    throw Error("--threads must be in [1, " + std::to_string(runner::max_threads()) + "], got " +
                std::to_string(*args.threads));
  runner::RunRequest request;
  request.only = args.impls;
  request.filter = args.filter;
  request.threads = args.threads;
  request.repetitions = args.repetitions;
  request.warmups = args.warmups;
  const std::string system = runner::suite_system(suite.doc, suite.origin);
  return system_named(system, suite.origin).prepare(suite.doc, suite.origin, request, nullptr);
}

std::unique_ptr<runner::SystemRun> prepare_resume(const runner::RunStore& store) {
  const json& m = store.manifest();
  const std::string origin = (store.dir() / "run.json").string() + " (suite)";
  const json& options = m.at("options");
  const runner::RunRequest request = runner::request_from_options(options, origin);
  const std::string system = runner::suite_system(m.at("suite"), origin);
  return system_named(system, origin).prepare(m.at("suite"), origin, request, options);
}

void reject_with_resume(const RunArgs& a) {
  if (!a.suite.empty() || !a.suite_file.empty() || !a.impls.empty() || a.repetitions || a.warmups || a.threads ||
      !a.filter.empty() || a.machine || a.dry_run)
    throw Error("--resume continues a run with the suite and options it started with; do not combine it with "
                "--suite, --suite-file, --impl, --filter, --threads, --repetitions, --warmups, --machine or "
                "--dry-run");
}

void print_dry_run(const runner::SystemRun& run) {
  for (const auto& note : run.notes()) std::cout << "# " << note << '\n';
  for (const auto& c : run.cases()) std::cout << c.id << '\n';
  const json o = run.options();
  std::cout << "# " << run.cases().size() << " cases, " << o.value("repetitions", 0) << " repetitions after "
            << o.value("warmups", 0) << " warm-ups\n";
}

// Refuses a run whose largest case (of those still to run here) needs more host
// memory than this process can have, before anything runs or is allocated.
void require_memory_for(const runner::SystemRun& run, const std::map<std::string, json>& finished) {
  const runner::PlannedCase* worst = nullptr;
  for (const auto& c : run.cases())
    if (c.will_run && !finished.count(c.id) && (!worst || c.host_bytes > worst->host_bytes)) worst = &c;
  if (worst && worst->host_bytes > 0)
    runner::require_memory(worst->host_bytes, "case " + worst->id, "; leave it out with --filter or --impl");
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
  std::unique_ptr<runner::SystemRun> prepared;
  std::map<std::string, json> finished;
  std::vector<std::string> unreadable;
  const auto now = runner::Clock::now();
  if (!args.resume.empty()) {
    reject_with_resume(args);
    store.emplace(runner::RunStore::open_for_resume(args.resume));
    prepared = prepare_resume(*store);
    finished = store->finished_records(&unreadable);
    require_memory_for(*prepared, finished);
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
    const runner::SuiteDocument suite = suite_document(args);
    prepared = prepare_new(args, suite);
    if (args.dry_run) {
      print_dry_run(*prepared);
      return;
    }
    require_memory_for(*prepared, finished);
    const std::string machine = args.machine.value_or(runner::host_name());
    runner::validate_machine_label(machine);
    const std::string run_id = runner::utc_compact(now) + "-" + prepared->suite();
    json manifest = {{"schema", "splinebench-run"},
                     {"schema_version", runner::kSchemaVersion},
                     {"system", runner::suite_system(suite.doc, suite.origin)},
                     {"suite", prepared->suite_document().is_null() ? suite.doc : prepared->suite_document()},
                     {"suite_origin", args.suite_file.empty() ? "harness/suites/" + args.suite + ".json"
                                                              : args.suite_file},
                     {"options", prepared->options()},
                     {"resumed", json::array()}};
    manifest["context"] = runner::collect_context(machine, run_id, prepared->suite(), now, prepared->entry_facts());
    store.emplace(runner::RunStore::create(args.results_dir, machine, run_id, std::move(manifest)));
  }
  std::cerr << "run directory: " << store->dir().string() << " (if interrupted, finish it with: splinebench run --resume "
            << store->dir().string() << ")\n";

  prepared->set_output_dir(store->dir());
  for (const auto& f : unreadable) std::cerr << "splinebench: warning: unreadable case file " << f << "; redoing it\n";
  auto observer = make_console_observer(::isatty(STDERR_FILENO) == 1);
  const runner::RunSummary summary = runner::run_cases(*prepared, &*store, finished, *observer);

  json context = store->manifest()["context"];
  context["resumed"] = store->manifest()["resumed"];
  store->write_results(context, summary.records);

  std::cout << '\n' << prepared->summary_table(summary.records) << '\n' << summary.line() << '\n';
  std::cout << "run directory: " << store->dir().string() << '\n';
  if (!args.run_dir_file.empty()) io::write_file_atomically(args.run_dir_file, store->dir().string() + "\n");
  if (!summary.ok())
    throw Error(std::to_string(summary.failed) + " case(s) failed their accuracy verdict and " +
                std::to_string(summary.errored) + " errored (" + summary.line() + ")");
}

void register_run(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "Run a benchmark suite, check every case against the oracle, write results");
  cmd->add_option("--suite", args->suite,
                  "Suite name: harness/suites/<name>.json (grid: quick, full, thesis, ruijters, gpu, nightly; "
                  "scattered: scattered, scattered-quick; 2-D IIR: iir2d, iir2d-quick)");
  cmd->add_option("--suite-file", args->suite_file, "Suite definition file (instead of --suite)");
  cmd->add_option("--impl", args->impls,
                  "Only these entries (comma-separated): implementations, scattered solvers or IIR schemes, as the "
                  "suite's system has them (splinebench list)")
      ->delimiter(',');
  cmd->add_option("--results-dir", args->results_dir, "Results root (default: results)");
  cmd->add_option("--machine", args->machine, "Machine label: results/<machine>/ (default: short host name)");
  cmd->add_option("--repetitions", args->repetitions, "Timed repetitions per case (default: the suite's, >= 9)");
  cmd->add_option("--warmups", args->warmups, "Untimed repetitions before them (default: the suite's, 2)");
  cmd->add_option("--resume", args->resume, "Finish an interrupted run folder (skips its finished cases)");
  cmd->add_option("--threads", args->threads, "Threads for entries that take them (replaces the suite's)");
  cmd->add_option("--filter", args->filter, "Only cases whose case_id matches this regular expression");
  cmd->add_option("--run-dir-file", args->run_dir_file, "Write the run folder's path to this file at the end");
  cmd->add_flag("--dry-run", args->dry_run, "Print the cases the suite selects and exit; writes nothing");
  cmd->callback([args] { run_command(*args); });
}

}  // namespace

SPLINEBENCH_COMMAND(register_run);

}  // namespace splinebench::cli
