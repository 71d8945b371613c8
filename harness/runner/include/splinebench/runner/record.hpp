// The result of one case, and its JSON form (schema: results/README.md).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "splinebench/implementation.hpp"
#include "splinebench/runner/accuracy.hpp"
#include "splinebench/runner/plan.hpp"
#include "splinebench/runner/stats.hpp"

namespace splinebench::runner {

struct Throughput {
  std::optional<double> prefilter_samples_per_s;
  std::optional<double> prefilter_GBps;
  std::optional<double> queries_per_s;
  std::optional<double> evaluate_GBps;
};

struct Record {
  CaseSpec spec;
  std::string evaluation;     // Implementation::evaluation(): the arithmetic that formed the values
  std::string status = "ok";  // "ok" | "skipped" | "error"
  std::string message;        // why skipped / the error / why the verdict failed
  int repetitions = 0;
  int warmups = 0;
  std::vector<std::pair<std::string, SampleStats>> phases;  // in the order first recorded
  Throughput throughput;
  std::optional<PrefilterAccuracy> prefilter;
  std::optional<InterpAccuracy> interp;
  std::optional<Tolerance> tolerance;
  std::vector<std::pair<std::string, int>> threads_used;  // Implementation::threads_used()
  std::string verdict = "n/a";  // "pass" | "fail" | "n/a" (not run)
  // A failed verdict the implementation documents (Implementation::known_defect): still
  // "fail", counted apart so that a peer library's known bug does not fail the run.
  std::string known_defect;

  const SampleStats* phase(const std::string& name) const;
};

nlohmann::json to_json(const Record& record);

}  // namespace splinebench::runner
