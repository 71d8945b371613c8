#include "splinebench/runner/accuracy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "splinebench/runner/stats.hpp"

namespace splinebench::runner {
namespace {

// max that lets a NaN through (std::max would keep the old value).
double max_nan(double acc, double v) { return (std::isnan(v) || v > acc) ? v : acc; }

}  // namespace

PrefilterAccuracy compare_coefficients(const std::vector<float>& got, const std::vector<double>& ref) {
  PrefilterAccuracy a;
  double diff2 = 0, ref2 = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    if (std::isnan(got[i]) && !std::isnan(ref[i])) ++a.unwritten;
    const double d = static_cast<double>(got[i]) - ref[i];
    diff2 += d * d;
    ref2 += ref[i] * ref[i];
    a.max_abs = max_nan(a.max_abs, std::abs(d));
  }
  // ref2 == 0 only for an all-zero field, which the datasets never produce.
  a.rel_l2 = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  return a;
}

InterpAccuracy compare_values(const std::vector<float>& got, std::int64_t fields, std::int64_t n, int channels,
                              const std::vector<std::int64_t>& ids, const std::vector<double>& ref,
                              double max_abs_f) {
  InterpAccuracy a;
  const auto m = static_cast<std::int64_t>(ids.size());
  a.checked_queries = m;
  double diff2 = 0, ref2 = 0;
  std::int64_t count = 0;
  std::vector<double> errors;
  errors.reserve(static_cast<std::size_t>(fields * m * channels));
  for (std::int64_t f = 0; f < fields; ++f)
    for (std::int64_t j = 0; j < m; ++j)
      for (int c = 0; c < channels; ++c) {
        const double r = ref[(f * m + j) * channels + c];
        const double g = got[(f * n + ids[j]) * channels + c];
        const double d = g - r;
        diff2 += d * d;
        ref2 += r * r;
        a.max_abs = max_nan(a.max_abs, std::abs(d));
        errors.push_back(std::abs(d));
        ++count;
      }
  a.rms = count ? std::sqrt(diff2 / static_cast<double>(count)) : 0.0;
  a.rel_l2 = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  a.max_rel_to_maxf = max_abs_f > 0 ? a.max_abs / max_abs_f : a.max_abs;
  const double scale = max_abs_f > 0 ? 1.0 / max_abs_f : 1.0;
  const bool finite = std::all_of(errors.begin(), errors.end(), [](double e) { return std::isfinite(e); });
  if (!errors.empty()) std::sort(errors.begin(), errors.end());
  for (double p : kErrorQuantiles)
    a.quantiles_rel_to_maxf.push_back(errors.empty() ? 0.0
                                      : finite     ? quantile_sorted(errors, p) * scale
                                                   : std::numeric_limits<double>::quiet_NaN());
  return a;
}

std::int64_t count_unwritten(const std::vector<float>& out, std::int64_t fields, std::int64_t n, int channels,
                             const std::vector<char>& finite) {
  std::int64_t bad = 0;
  for (std::int64_t f = 0; f < fields; ++f)
    for (std::int64_t q = 0; q < n; ++q) {
      if (!finite[q]) continue;
      const float* v = out.data() + (f * n + q) * channels;
      for (int c = 0; c < channels; ++c) bad += std::isnan(v[c]) ? 1 : 0;
    }
  return bad;
}

}  // namespace splinebench::runner
