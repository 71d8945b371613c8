#include "splinebench/runner/record.hpp"

#include <cmath>
#include <cstdio>
#include <iterator>

namespace splinebench::runner {
namespace {

using nlohmann::json;

// JSON has no NaN or infinity: write them as null (the verdict already accounts for
// them, and readers treat null as "no valid number").
json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
json number(const std::optional<double>& v) { return v ? number(*v) : json(nullptr); }
// {"p50": .., "p90": .., "p99": .., "p99.9": ..} at runner::kErrorQuantiles.
json quantiles(const std::vector<double>& values) {
  json q = json::object();
  for (std::size_t i = 0; i < values.size() && i < std::size(kErrorQuantiles); ++i) {
    char key[16];
    std::snprintf(key, sizeof key, "p%g", 100 * kErrorQuantiles[i]);
    q[key] = number(values[i]);
  }
  return q;
}

}  // namespace

const SampleStats* Record::phase(const std::string& name) const {
  for (const auto& [n, s] : phases)
    if (n == name) return &s;
  return nullptr;
}

json to_json(const Record& r) {
  const CaseSpec& c = r.spec;
  json j = {{"case_id", c.case_id()},
            {"impl", c.impl},
            {"evaluation", r.evaluation},
            {"device", std::string(to_string(c.device))},
            {"sweep", c.sweep},
            {"dims", c.shape.dims},
            {"shape", c.shape.extents()},
            {"channels", c.shape.channels},
            {"fields", c.fields},
            {"mode", std::string(to_string(c.mode))},
            {"data", std::string(datasets::to_string(c.data))},
            {"queries", c.queries},
            {"pattern", c.pattern_name()},
            {"threads", c.threads},
            {"status", r.status},
            {"message", r.message},
            {"repetitions", r.repetitions},
            {"warmups", r.warmups}};
  if (!r.threads_used.empty()) {
    json used = json::object();
    for (const auto& [phase_name, n] : r.threads_used) used[phase_name] = n;
    j["threads_used"] = used;
  }
  json phases = json::object();
  for (const auto& [name, s] : r.phases) phases[name] = stats_json(s);
  j["phases"] = phases;
  j["throughput"] = {{"prefilter_samples_per_s", number(r.throughput.prefilter_samples_per_s)},
                     {"prefilter_GBps", number(r.throughput.prefilter_GBps)},
                     {"queries_per_s", number(r.throughput.queries_per_s)},
                     {"evaluate_GBps", number(r.throughput.evaluate_GBps)}};
  json accuracy = json::object();
  if (r.prefilter)
    accuracy["prefilter"] = {{"rel_l2", number(r.prefilter->rel_l2)},
                             {"max_abs", number(r.prefilter->max_abs)},
                             {"unwritten", r.prefilter->unwritten}};
  if (r.interp)
    accuracy["interp"] = {{"max_abs", number(r.interp->max_abs)},
                          {"rms", number(r.interp->rms)},
                          {"rel_l2", number(r.interp->rel_l2)},
                          {"max_rel_to_maxf", number(r.interp->max_rel_to_maxf)},
                          {"quantiles_rel_to_maxf", quantiles(r.interp->quantiles_rel_to_maxf)},
                          {"checked_queries", r.interp->checked_queries},
                          {"unwritten", r.interp->unwritten},
                          {"nan_ok", r.interp->nan_ok}};
  j["accuracy"] = accuracy;
  if (r.tolerance)
    j["tolerance"] = {{"prefilter_rel_l2", r.tolerance->prefilter_rel_l2},
                      {"interp_max_rel_to_maxf", r.tolerance->interp_max_rel_to_maxf},
                      {"basis", r.tolerance->basis}};
  else
    j["tolerance"] = json::object();
  j["verdict"] = r.verdict;
  if (!r.known_defect.empty()) j["known_defect"] = r.known_defect;
  return j;
}

}  // namespace splinebench::runner
