// Writing the run that `merge` and `run --devices` make of shard runs.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace splinebench::cli {

// Writes runner::merge_shard_runs's result as a finished run folder,
// <results_dir>/<machine>/<run-id>/ (machine: the shards' label unless given); prints
// its case count and folder; returns the folder. Throws splinebench::Error, after
// writing it, when a case failed its verdict or errored (as `run` does).
std::filesystem::path write_merged_run(nlohmann::json merged, const std::string& results_dir,
                                       const std::optional<std::string>& machine, std::size_t shards);

}  // namespace splinebench::cli
