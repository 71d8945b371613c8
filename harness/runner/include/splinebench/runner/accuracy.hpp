// Error measures of an implementation's float32 output against the double oracle.
// Non-finite differences propagate (as NaN or inf) instead of being skipped, so a
// verdict written as `!(error <= tolerance)` fails on them.
#pragma once

#include <cstdint>
#include <vector>

namespace splinebench::runner {

struct PrefilterAccuracy {
  double rel_l2 = 0;   // ||c - c_ref|| / ||c_ref|| over every coefficient of the batch
  double max_abs = 0;  // max |c - c_ref|
  std::int64_t unwritten = 0;  // coefficients still NaN after read-back (poisoned before)
};

// The quantiles of the interpolation error the records keep (results/README.md).
inline constexpr double kErrorQuantiles[] = {0.5, 0.9, 0.99, 0.999};

struct InterpAccuracy {
  double max_abs = 0;          // max |s - s_ref| over the checked values
  double rms = 0;              // sqrt(mean (s - s_ref)^2)
  double rel_l2 = 0;           // ||s - s_ref|| / ||s_ref||
  double max_rel_to_maxf = 0;  // max_abs / max |f| over the batch's samples
  // The distribution, not only the worst value: quantiles (linear interpolation) of
  // |s - s_ref| / max |f| over the checked values, at kErrorQuantiles. NaN when any
  // error is non-finite.
  std::vector<double> quantiles_rel_to_maxf;
  std::int64_t checked_queries = 0;  // per field (a deterministic subset for big cases)
  std::int64_t unwritten = 0;  // outputs left NaN where the coordinates were finite
  bool nan_ok = true;          // unwritten == 0 in every repetition
};

// Coefficients: `got` (float) vs `ref` (double), same length.
PrefilterAccuracy compare_coefficients(const std::vector<float>& got, const std::vector<double>& ref);

// Values at the checked queries. `got` is the full [fields][n][channels] output;
// `ref` is [fields][ids.size()][channels]; `ids` index into the n queries.
InterpAccuracy compare_values(const std::vector<float>& got, std::int64_t fields, std::int64_t n, int channels,
                              const std::vector<std::int64_t>& ids, const std::vector<double>& ref, double max_abs_f);

// Outputs still NaN although their query's coordinates are all finite (the buffer is
// NaN-poisoned before each evaluate, so these were never written). `finite` has one
// entry per query.
std::int64_t count_unwritten(const std::vector<float>& out, std::int64_t fields, std::int64_t n, int channels,
                             const std::vector<char>& finite);

}  // namespace splinebench::runner
