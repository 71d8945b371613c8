// Summary statistics of repeated timings. Quantiles use linear interpolation between
// order statistics (the "type 7" rule, NumPy's default), so reports computed in
// Python from the raw samples agree with the numbers stored here.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

namespace splinebench::runner {

struct SampleStats {
  std::vector<double> samples;  // in measurement order
  double median = 0;
  double min = 0;
  double max = 0;
  double q1 = 0;
  double q3 = 0;
  double iqr = 0;
};

// Quantile p in [0, 1] of `sorted` (ascending, non-empty) by linear interpolation.
double quantile_sorted(const std::vector<double>& sorted, double p);

// Throws splinebench::Error when `samples` is empty.
SampleStats summarize(std::vector<double> samples);

// A phase's JSON in every record: {"samples", "median", "min", "max", "q1", "q3", "iqr"}.
nlohmann::json stats_json(const SampleStats& stats);
// stats_json(summarize(samples)).
nlohmann::json stats_json(const std::vector<double>& samples);

}  // namespace splinebench::runner
