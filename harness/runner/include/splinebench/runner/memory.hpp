// Host memory: how much a job needs and how much this process can still have, so
// that a job too large is refused before any work ("needs N GiB of host memory, M GiB
// available") instead of ending in std::bad_alloc after minutes.
//
// The needs are estimates of the peak, from the shapes alone: the harness's own
// buffers are counted exactly, an implementation's by what its interface contract and
// its declared device and arithmetic imply (it keeps its own copy of the fields). GPU
// memory is not checked: no implementation reports its device buffers, and a
// device allocation that fails already ends the case with a CUDA error message.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "splinebench/implementation.hpp"
#include "splinebench/runner/case_runner.hpp"
#include "splinebench/runner/plan.hpp"
#include "splinebench/runner/suite_runner.hpp"

namespace splinebench::runner {

struct MemoryLimit {
  std::uint64_t bytes = 0;
  std::string source;  // which limit is the tightest, e.g. "MemAvailable in /proc/meminfo"
};

// The least of: MemAvailable (/proc/meminfo); the memory cgroup's limit less its
// usage, for this process's cgroup and its ancestors (v2 memory.max/memory.current,
// v1 memory.limit_in_bytes/memory.usage_in_bytes); RLIMIT_AS less the address space
// already mapped and RLIMIT_DATA less the data segment. nullopt when none is readable.
std::optional<MemoryLimit> available_memory();

// Host bytes an implementation holds for `fields` fields of `shape` and `queries`
// queries, from what it declares: the reference (f64) a double copy of the fields and
// double values; a CPU f32 implementation a float copy and bin-sorted query records
// (cpu_common: 4 floats per query up to D = 3, 8 above); a GPU implementation pinned
// staging for fields, coordinates and values.
std::uint64_t implementation_host_bytes(const Capabilities& caps, const GridShape& shape, std::int64_t fields,
                                        std::int64_t queries);

// Peak host bytes of one case of a run (CaseRunner): the samples, the oracle's double
// coefficients, the coefficient read-back, coordinates, outputs and the checked oracle
// values, plus implementation_host_bytes.
std::uint64_t case_host_bytes(const CaseSpec& spec, const Capabilities& caps, const RunOptions& options);

// Per case of `plan`, in order: its peak host bytes when it will run here (implementation
// available, case supported), nullopt when it will be skipped.
std::vector<std::optional<std::uint64_t>> runnable_case_bytes(const Plan& plan, const RunOptions& options,
                                                               const ImplFactory& make_impl);

// The case of `plan` that needs the most host memory among those that will run here:
// implementation available and the case supported (others are skipped), and not in
// `finished` (a resume). `spec` is null when no case will run.
struct CaseNeed {
  const CaseSpec* spec = nullptr;
  std::uint64_t bytes = 0;
};
CaseNeed largest_case_need(const Plan& plan, const RunOptions& options, const ImplFactory& make_impl,
                           const std::map<std::string, nlohmann::json>& finished = {});

// "12.5" (GiB, two significant digits below 10).
std::string gib(std::uint64_t bytes);

// Throws splinebench::Error("<what> needs N GiB of host memory, M GiB available
// (<source>)<advice>") when `need` exceeds available_memory(); does nothing when no
// limit is readable.
void require_memory(std::uint64_t need, const std::string& what, const std::string& advice = "");

}  // namespace splinebench::runner
