#include "splinebench/runner/stats.hpp"

#include <algorithm>
#include <cmath>

#include "splinebench/error.hpp"

namespace splinebench::runner {

double quantile_sorted(const std::vector<double>& sorted, double p) {
  const double pos = p * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + frac * (sorted[hi] - sorted[lo]);
}

SampleStats summarize(std::vector<double> samples) {
  if (samples.empty()) throw Error("cannot summarize an empty list of samples");
  SampleStats s;
  s.samples = std::move(samples);
  std::vector<double> sorted = s.samples;
  std::sort(sorted.begin(), sorted.end());
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = quantile_sorted(sorted, 0.5);
  s.q1 = quantile_sorted(sorted, 0.25);
  s.q3 = quantile_sorted(sorted, 0.75);
  s.iqr = s.q3 - s.q1;
  return s;
}

nlohmann::json stats_json(const SampleStats& s) {
  return {{"samples", s.samples}, {"median", s.median}, {"min", s.min}, {"max", s.max},
          {"q1", s.q1},           {"q3", s.q3},         {"iqr", s.iqr}};
}

nlohmann::json stats_json(const std::vector<double>& samples) { return stats_json(summarize(samples)); }

}  // namespace splinebench::runner
