// `splinebench merge SHARD_RUN...`: joins the finished runs of `splinebench run --shard
// I/N` (N folders, any order) into one run folder, results/<machine>/<run-id>/, that
// reads like the unsharded run (its cases in the plan's order, its options without the
// shard); the context keeps each shard's host, GPU and run id under "shards". Nothing is
// written unless every check passes (runner/shard.hpp).
#include <iostream>
#include <memory>
#include <optional>

#include "cli_merged_run.hpp"
#include "cli_systems.hpp"
#include "commands.hpp"
#include "splinebench/error.hpp"
#include "splinebench/runner/shard.hpp"

namespace splinebench::cli {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

struct MergeArgs {
  std::vector<std::string> runs;
  std::string results_dir = "results";
  std::optional<std::string> machine;
};

void merge_command(const MergeArgs& args) {
  const std::vector<fs::path> dirs(args.runs.begin(), args.runs.end());
  write_merged_run(runner::merge_shard_runs(dirs, &replan), args.results_dir, args.machine, dirs.size());
}

void register_merge(CLI::App& app) {
  auto args = std::make_shared<MergeArgs>();
  auto* cmd = app.add_subcommand("merge", "Join the N shard runs of `run --shard I/N` into one run folder");
  cmd->add_option("runs", args->runs, "The shard runs' folders (finished, not compacted)")->required();
  cmd->add_option("--results-dir", args->results_dir, "Results root (default: results)");
  cmd->add_option("--machine", args->machine, "Machine label: results/<machine>/ (default: the shards' label)");
  cmd->callback([args] { merge_command(*args); });
}

}  // namespace

SPLINEBENCH_COMMAND(register_merge);

}  // namespace splinebench::cli
