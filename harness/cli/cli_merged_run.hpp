// Writing the run that `merge` and `run --devices` make of shard runs.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "splinebench/runner/run_context.hpp"

namespace splinebench::cli {

// Writes runner::merge_shard_runs's result as a finished run folder,
// <results_dir>/<machine>/<run-id>/ (machine: the shards' label unless given); prints
// its case count and folder; returns the folder. Throws splinebench::Error, after
// writing it, when a case failed its verdict or errored (as `run` does). `started`: when
// the shards were started together (`run --devices`): the merged context then gets
// `wall_seconds` from it to the merge, and `finished`; a merge of shard folders run
// apart has neither.
std::filesystem::path write_merged_run(nlohmann::json merged, const std::string& results_dir,
                                       const std::optional<std::string>& machine, std::size_t shards,
                                       std::optional<runner::Clock::time_point> started = std::nullopt);

}  // namespace splinebench::cli
