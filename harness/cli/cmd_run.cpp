// `splinebench run`: runs a suite (harness/suites/<name>.json or --suite-file) on the
// implementations it selects, checks every case against the double oracle, writes
// results/<machine>/<run-id>/ as cases finish, and prints an accuracy table. Exits
// non-zero when a case fails its accuracy verdict or errors (skips are fine).
#include <chrono>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <set>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include "cli_children.hpp"
#include "cli_merged_run.hpp"
#include "cli_run_progress.hpp"
#include "cli_run_selection.hpp"
#include "cli_systems.hpp"
#include "commands.hpp"
#include "splinebench/error.hpp"
#include "splinebench/io/atomic_file.hpp"
#include "splinebench/registry.hpp"
#include "splinebench/runner/memory.hpp"
#include "splinebench/runner/plan.hpp"
#include "splinebench/runner/run_context.hpp"
#include "splinebench/runner/run_store.hpp"
#include "splinebench/runner/shard.hpp"
#include "splinebench/runner/suite.hpp"
#include "splinebench/runner/suite_runner.hpp"

namespace splinebench::cli {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

struct RunArgs {
  RunSelection sel;  // --suite, --suite-file, --impl, --filter, --threads, --repetitions, --warmups
  std::string results_dir = "results";
  std::optional<std::string> machine;  // given but empty is an error, not the host name
  std::string resume;
  std::string run_dir_file;
  std::string shard;  // --shard I/N
  std::vector<std::string> devices;  // --devices: one shard per device, at once
  bool dry_run = false;
};

// The suite document a new run asks for (--suite or --suite-file).
runner::SuiteDocument suite_document(const RunArgs& args) {
  if (args.sel.suite.empty() == args.sel.suite_file.empty())
    throw Error("give exactly one of --suite NAME or --suite-file PATH (or --resume DIR)");
  return args.sel.suite_file.empty() ? runner::find_named_suite(args.sel.suite)
                                     : runner::read_suite_file(args.sel.suite_file);
}

std::unique_ptr<runner::SystemRun> prepare_new(const RunArgs& args, const runner::SuiteDocument& suite) {
  // Every system's entries share one bound on threads.
  if (args.sel.threads && (*args.sel.threads < 1 || *args.sel.threads > runner::max_threads()))
    throw Error("--threads must be in [1, " + std::to_string(runner::max_threads()) + "], got " +
                std::to_string(*args.sel.threads));
  runner::RunRequest request;
  request.only = args.sel.impls;
  request.filter = args.sel.filter;
  request.threads = args.sel.threads;
  request.repetitions = args.sel.repetitions;
  request.warmups = args.sel.warmups;
  const std::string system = runner::suite_system(suite.doc, suite.origin);
  auto run = system_named(system, suite.origin).prepare(suite.doc, suite.origin, request, nullptr);
  if (!args.shard.empty()) run = runner::shard_run(std::move(run), runner::parse_shard(args.shard));
  return run;
}

std::unique_ptr<runner::SystemRun> prepare_resume(const runner::RunStore& store) {
  const json& m = store.manifest();
  const std::string origin = (store.dir() / "run.json").string() + " (suite)";
  json options = m.at("options");
  std::optional<runner::Shard> shard;
  if (options.contains("shard")) {
    shard = runner::parse_shard(options["shard"].is_string() ? options["shard"].get<std::string>() : "",
                                origin + ": options.shard");
    options.erase("shard");  // the systems read their own options; the shard is the runner's
  }
  auto run = replan(m.at("suite"), origin, options);
  return shard ? runner::shard_run(std::move(run), *shard) : std::move(run);
}

void reject_with_resume(const RunArgs& a) {
  const RunSelection& s = a.sel;
  if (!s.suite.empty() || !s.suite_file.empty() || !s.impls.empty() || s.repetitions || s.warmups || s.threads ||
      !s.filter.empty() || a.machine || a.dry_run || !a.shard.empty())
    throw Error("--resume continues a run with the suite and options it started with; do not combine it with "
                "--suite, --suite-file, --impl, --filter, --threads, --repetitions, --warmups, --machine, "
                "--shard or --dry-run");
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

// `--devices D1,D2,...`: one child `run --shard I/N` per device (CUDA_VISIBLE_DEVICES=DI),
// all at once, into <results-dir>/.shards/<stamp>/ (each child's log beside its run),
// then their merge into <results-dir>/<machine>/. The staging folder goes once the
// merge is written; a shard that did not finish leaves it, to be resumed and merged.
void run_on_devices(const RunArgs& args) {
  const auto started = runner::Clock::now();
  if (!args.resume.empty() || !args.shard.empty() || args.dry_run)
    throw Error("--devices runs one shard per device and merges them; do not combine it with --resume, --shard or "
                "--dry-run (resume an unfinished shard's folder by itself, then `splinebench merge` the shards)");
  if (args.devices.size() > 64) throw Error("--devices: at most 64 devices");
  std::set<std::string> seen;
  for (const std::string& d : args.devices) {
    const bool word = !d.empty() && d.size() <= 64 && std::all_of(d.begin(), d.end(), [](char c) {
      return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
    });
    if (!word) throw Error("--devices: '" + d + "' is neither a device index nor a GPU UUID");
    if (!seen.insert(d).second) throw Error("--devices: device " + d + " given twice");
  }
  const std::string machine = machine_label(args.machine);
  // The request is checked here, once, before any child starts.
  (void)prepare_new(args, suite_document(args));
  const fs::path stage = fs::absolute(fs::path(args.results_dir) / ".shards" /
                                      (runner::utc_compact(runner::Clock::now()) + "-" + std::to_string(::getpid())));
  fs::create_directories(stage);
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const int n = static_cast<int>(args.devices.size());
  std::vector<ChildSpec> children;
  const std::vector<std::string> selection = selection_argv(args.sel);
  for (int i = 1; i <= n; ++i) {
    ChildSpec c;
    c.argv = {self, "run"};
    c.argv.insert(c.argv.end(), selection.begin(), selection.end());
    const std::string tag = "shard-" + std::to_string(i);
    c.argv.insert(c.argv.end(), {"--machine", machine, "--results-dir", stage.string(), "--shard",
                                 std::to_string(i) + "/" + std::to_string(n), "--run-dir-file",
                                 (stage / (tag + ".txt")).string()});
    c.env = {{"CUDA_VISIBLE_DEVICES", args.devices[static_cast<std::size_t>(i - 1)]}};
    c.log = stage / (tag + ".log");
    children.push_back(std::move(c));
  }
  std::cerr << "running " << n << " shards, one per device (" << stage.string() << ")\n";
  const std::vector<int> codes = run_children(children);
  std::vector<fs::path> dirs;
  for (int i = 1; i <= n; ++i) {
    std::ifstream in(stage / ("shard-" + std::to_string(i) + ".txt"));
    std::string dir;
    if (!std::getline(in, dir) || dir.empty())
      throw Error("shard " + std::to_string(i) + "/" + std::to_string(n) + " on device " +
                  args.devices[static_cast<std::size_t>(i - 1)] + " did not finish (exit status " +
                  std::to_string(codes[static_cast<std::size_t>(i - 1)]) + "): see " +
                  (stage / ("shard-" + std::to_string(i) + ".log")).string() +
                  "; resume its run folder there with `splinebench run --resume`, then `splinebench merge` the shards");
    dirs.emplace_back(dir);
  }
  const fs::path merged = write_merged_run(runner::merge_shard_runs(dirs, &replan), args.results_dir, machine,
                                           dirs.size(), started);
  fs::remove_all(stage);
  std::error_code ec;
  fs::remove(stage.parent_path(), ec);  // .shards/, when no other staging is left
  if (!args.run_dir_file.empty()) io::write_file_atomically(args.run_dir_file, merged.string() + "\n");
}

void run_command(const RunArgs& args) {
  check_run_dir_file(args);
  if (!args.devices.empty()) {
    run_on_devices(args);
    return;
  }
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
    const std::string machine = machine_label(args.machine);
    const runner::SuiteDocument suite = suite_document(args);
    prepared = prepare_new(args, suite);
    if (args.dry_run) {
      print_dry_run(*prepared);
      return;
    }
    require_memory_for(*prepared, finished);
    const std::string run_id = runner::utc_compact(now) + "-" + prepared->suite();
    json manifest = {{"schema", "splinebench-run"},
                     {"schema_version", runner::kSchemaVersion},
                     {"system", runner::suite_system(suite.doc, suite.origin)},
                     {"suite", prepared->suite_document().is_null() ? suite.doc : prepared->suite_document()},
                     {"suite_origin", args.sel.suite_file.empty() ? "harness/suites/" + args.sel.suite + ".json"
                                                                  : args.sel.suite_file},
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
  // What the user waited for: one invocation's wall time (a resumed run's earlier
  // invocations are not known here, so it has none).
  const auto end = runner::Clock::now();
  context["finished"] = runner::utc_iso8601(end);
  if (args.resume.empty()) context["wall_seconds"] = std::chrono::duration<double>(end - now).count();
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
  add_selection_options(*cmd, args->sel);
  cmd->add_option("--results-dir", args->results_dir, "Results root (default: results)");
  cmd->add_option("--machine", args->machine, "Machine label: results/<machine>/ (default: short host name)");
  cmd->add_option("--resume", args->resume, "Finish an interrupted run folder (skips its finished cases)");
  cmd->add_option("--run-dir-file", args->run_dir_file, "Write the run folder's path to this file at the end");
  cmd->add_option("--shard", args->shard,
                  "Run part I of N of the cases (I/N, balanced by their expected cost); `splinebench merge` joins "
                  "the N shard runs into one run");
  cmd->add_option("--devices", args->devices,
                  "Run one shard per device at once (comma-separated CUDA device indices or GPU UUIDs, each "
                  "shard with CUDA_VISIBLE_DEVICES set to it) and merge them into one run")
      ->delimiter(',');
  cmd->add_flag("--dry-run", args->dry_run, "Print the cases the suite selects and exit; writes nothing");
  cmd->callback([args] { run_command(*args); });
}

}  // namespace

SPLINEBENCH_COMMAND(register_run);

}  // namespace splinebench::cli
