// Shards: a deterministic part of a run's cases, so that N processes (GPUs of a host,
// tasks of a Slurm array) run a suite together, and the merge of their N run folders is
// one run with the unsharded run's cases.
//
// The partition is longest-processing-time first over PlannedCase::work: cases in
// decreasing work (ties by case id), each given to the shard with the least work so far
// (ties to the lower index). It depends only on the plan, so every shard computes the
// same partition; each shard runs its cases in the plan's order.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "splinebench/runner/system.hpp"

namespace splinebench::runner {

struct Shard {
  int index = 1;  // 1..count
  int count = 1;
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};

// "I/N" with 1 <= I <= N <= 4096; splinebench::Error naming `what` otherwise.
Shard parse_shard(const std::string& text, const std::string& what = "--shard");

// The indices (ascending) of the cases of `shard`.
std::vector<std::size_t> shard_case_indices(const std::vector<PlannedCase>& cases, const Shard& shard);

// `inner` restricted to the cases of `shard`: its cases, sweeps and records in the
// plan's order; options() adds "shard": "I/N".
std::unique_ptr<SystemRun> shard_run(std::unique_ptr<SystemRun> inner, const Shard& shard);

// What merging shard runs needs from the caller: the unsharded run re-planned from the
// shards' suite and options (without "shard"), to check the union of their cases.
using Replan = std::unique_ptr<SystemRun> (*)(const nlohmann::json& suite, const std::string& origin,
                                              const nlohmann::json& options);

// Reads the finished shard runs `dirs` (results.json, not yet compacted) and checks they
// are the N shards of one run: the same suite, options and code (git sha and dirty
// state), shard indices 1..N each once, and together exactly the unsharded plan's cases
// with none twice. Returns {"manifest": run.json of the merged run, "records": in the
// plan's order}; the manifest's context is the first shard's, with "shards" listing each
// shard's run id, host, GPU (name, UUID), date and counts. Throws splinebench::Error
// naming what differs.
nlohmann::json merge_shard_runs(const std::vector<std::filesystem::path>& dirs, Replan replan);

}  // namespace splinebench::runner
