// From a suite to the list of cases to run: resolve implementation selectors against
// the registry, expand each sweep's cartesian product, apply the command-line filters.
// Everything that can make a sweep impossible is checked here, before any output
// exists.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "splinebench/datasets.hpp"
#include "splinebench/error.hpp"
#include "splinebench/registry.hpp"
#include "splinebench/runner/suite.hpp"
#include "splinebench/types.hpp"

namespace splinebench::runner {

// One point of a sweep: one implementation on one workload.
struct CaseSpec {
  std::string impl;
  Device device = Device::cpu;
  GridShape shape;  // includes channels
  std::int64_t fields = 1;
  Mode mode = Mode::mirror;
  datasets::FieldSource data = datasets::FieldKind::noise;
  std::int64_t queries = 0;  // 0: prefilter only
  datasets::QueryPattern pattern = datasets::QueryPattern::uniform;  // unused when queries == 0
  int threads = 1;
  std::string sweep;

  // "<impl>/D<d>/<shape>/C<c>/F<f>/<mode>/<data>/q<n>/<pattern|none>/T<t>": unique in a
  // run, stable across runs (reports match cases by it).
  std::string case_id() const;
  // Short file name for the case's record: 16 hex digits of a 64-bit FNV-1a of case_id.
  std::string case_hash() const;
  // "none" for prefilter-only cases, else the pattern's name.
  std::string pattern_name() const;
  // Identify the inputs, independent of the implementation (and of the suite), so
  // every implementation of a case sees the same field and queries, and the oracle
  // runs once per input.
  std::string field_key() const;  // shape, channels, fields, data (and mode, for analytic data)
  std::string query_key() const;  // extents, queries, pattern
};

struct PlanOptions {
  std::vector<std::string> only_impls;  // --impl: empty = no restriction
  std::string case_filter;              // --filter: ECMAScript regex searched in case_id
  std::optional<int> threads;           // --threads: replaces every sweep's threads axis
};

struct PlannedSweep {
  std::string name;
  std::size_t first_case = 0;  // index range in Plan::cases
  std::size_t case_count = 0;
};

struct Plan {
  std::string suite;
  std::vector<CaseSpec> cases;        // sweep by sweep; implementations innermost
  std::vector<PlannedSweep> sweeps;
  std::vector<std::string> notes;     // e.g. a device selector that matched nothing
};

// Throws splinebench::Error for an unknown implementation name (in a sweep, an
// exclude list or `only_impls`), an invalid filter, or when nothing is left to run.
// A real dataset gives its cases its own grid and channels (read from its manifest);
// a sweep stating another shape or channel count is an error naming the data's, and a
// dataset missing from the cache drops its cases with a note naming the package.
Plan make_plan(const SuiteSpec& suite, const PlanOptions& options, const std::vector<RegistryEntry>& registry);

// A suite whose sweeps, with --impl and --filter applied, leave no case (every system's
// planner throws it; a suite of suites skips such a part).
class NoCases : public Error {
 public:
  explicit NoCases(const std::string& what) : Error(what) {}
};

// 64-bit FNV-1a, used for case file names and per-input seeds.
std::uint64_t fnv1a64(const std::string& text);

}  // namespace splinebench::runner
