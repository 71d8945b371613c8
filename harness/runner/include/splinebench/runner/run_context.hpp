// Where and with what a run was made: git commit, compiler, CUDA and GPU, CPU,
// host, date, and each implementation's own facts. Every probe tolerates absence
// (no git, no CUDA, no /proc) and records null or "unknown" instead of failing.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace splinebench::runner {

using Clock = std::chrono::system_clock;

std::string utc_iso8601(Clock::time_point t);  // 2026-11-22T10:00:00Z
std::string utc_compact(Clock::time_point t);  // 20261122-100000 (for run ids)

// The short host name ("unknown" if it cannot be read).
std::string host_name();

// Machine label check for results/<machine>/: non-empty, no '/', not "." or "..".
void validate_machine_label(const std::string& label);

// {"git_sha", "git_dirty"} for the configured source tree; "unknown"/null without git.
nlohmann::json git_state();

// {"cuda_runtime", "cuda_driver", "gpu"}; all null unless built with CUDA, and "gpu"
// null unless a device is present. Defined in cuda_context.cpp or
// cuda_context_none.cpp depending on the build.
nlohmann::json cuda_context();

// [{"name", "device", "available", "reason"}, ...]: every registered implementation in
// registry order and whether it can run here (reason "" when it can). `splinebench
// list --json` prints it; every run records it in its context as "registry".
nlohmann::json registry_list();

// Everything above plus compiler, CPU and threads. `implementations` maps each
// implementation used to its run_facts().
nlohmann::json collect_context(const std::string& machine, const std::string& run_id, const std::string& suite,
                               Clock::time_point start, const nlohmann::json& implementations);

}  // namespace splinebench::runner
