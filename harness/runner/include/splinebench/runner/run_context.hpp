// Where and with what a run was made: git commit, compiler and flags, OpenMP
// settings, CUDA and GPU (clocks included), CPU, host, date, and each
// implementation's own facts. Every probe tolerates absence
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

// The GPU's clocks and persistence mode from nvidia-smi (current and maximum SM and
// memory clocks in MHz), for the device with this PCI bus id; null when nvidia-smi is
// missing or does not list it. The parser is separate so tests can feed it output.
nlohmann::json gpu_clocks(const std::string& pci_bus_id);
nlohmann::json gpu_clocks_from_nvidia_smi(const std::string& csv, const std::string& pci_bus_id);

// [{"name", "device", "available", "reason", "evaluation"}, ...]: every registered implementation in
// registry order and whether it can run here (reason "" when it can). `splinebench
// list --json` prints it; every run records it in its context as "registry".
nlohmann::json registry_list();

// Everything above plus compiler and flags (-march, CUDA architectures), OpenMP
// settings, CPU model, frequency and governor, and threads. `implementations` maps
// each implementation used to its run_facts().
nlohmann::json collect_context(const std::string& machine, const std::string& run_id, const std::string& suite,
                               Clock::time_point start, const nlohmann::json& implementations);

}  // namespace splinebench::runner
