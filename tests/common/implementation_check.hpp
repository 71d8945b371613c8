// Runs any Implementation on one case and compares it with the double oracle, the way
// every implementation test area needs it (header-only; links through splinebench_impls
// and splinebench_datasets, which every test links):
//   mixed_queries(shape, n, seed)      uniform + outside + edge points (exact ends, grid
//                                      points, half-integers beyond the ends), (D, n) layout
//   check_against_oracle(impl, case)   prepare -> read_coefficients -> evaluate on poisoned
//                                      buffers; per-field prefilter rel L2 and interpolation
//                                      max |s - s_ref| / max|f| against the oracle run on the
//                                      same float samples and float coordinates
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include "common/accuracy.hpp"
#include "splinebench/oracle_batch.hpp"
#include "splinebench/datasets.hpp"
#include "splinebench/implementation.hpp"
#include "splinebench/phase_times.hpp"

namespace splinebench::testing {

// Coordinates that sit exactly on the places where folding and weights change: the ends
// 0 and N-1, random grid points, half-integers just beyond the ends, points more than a
// period away (the extension repeats) and huge ones.
inline std::vector<float> edge_queries(const GridShape& shape, std::int64_t n, std::uint64_t seed) {
  std::vector<float> coords(static_cast<std::size_t>(shape.dims * n));
  std::mt19937_64 rng(seed);
  for (int d = 0; d < shape.dims; ++d) {
    const double last = static_cast<double>(shape.extent[d] - 1);
    // The last two are beyond int32 and far beyond any period: folding must reduce them
    // before converting to an integer.
    const double specials[] = {0.0,          last,           -0.5, last + 0.5, -1.0, last + 1.0,
                               -last - 3.25, 2 * last + 3.75, 3.0e9, -1.0e30};
    std::uniform_int_distribution<int> pick(0, 11);
    std::uniform_int_distribution<std::int64_t> grid(0, shape.extent[d] - 1);
    for (std::int64_t q = 0; q < n; ++q) {
      const int p = pick(rng);
      coords[d * n + q] = static_cast<float>(p < 10 ? specials[p] : static_cast<double>(grid(rng)));
    }
  }
  return coords;
}

// Concatenation of uniform, outside and edge queries, `per_pattern` of each.
inline std::vector<float> mixed_queries(const GridShape& shape, std::int64_t per_pattern, std::uint64_t seed) {
  const std::vector<std::vector<float>> parts{
      datasets::make_queries(datasets::QueryPattern::uniform, shape, per_pattern, seed),
      datasets::make_queries(datasets::QueryPattern::outside, shape, per_pattern, seed + 1),
      edge_queries(shape, per_pattern, seed + 2)};
  const std::int64_t n = per_pattern * static_cast<std::int64_t>(parts.size());
  std::vector<float> coords(static_cast<std::size_t>(shape.dims * n));
  for (int d = 0; d < shape.dims; ++d)
    for (std::size_t p = 0; p < parts.size(); ++p)
      std::copy_n(parts[p].begin() + d * per_pattern, per_pattern,
                  coords.begin() + d * n + static_cast<std::int64_t>(p) * per_pattern);
  return coords;
}

struct CheckCase {
  GridShape shape;
  Mode mode = Mode::mirror;
  datasets::FieldKind kind = datasets::FieldKind::noise;
  std::int64_t fields = 3;
  std::int64_t queries_per_pattern = 100;
  std::uint64_t seed = 1;
};

struct CheckResult {
  double prefilter_rel_l2 = 0;        // worst field: ||c - c_ref|| / ||c_ref||
  double interp_max_rel_to_maxf = 0;  // worst field: max |s - s_ref| / max |f|
  std::int64_t unwritten_coefficients = 0;  // NaN left in the poisoned coefficient buffer
  std::int64_t unwritten_values = 0;        // NaN left in the poisoned value buffer
  // Everything the comparison used, for further checks by the caller.
  std::vector<float> input, coords, coefficients, values;
  std::vector<double> oracle_coefficients, oracle_values;
  std::int64_t queries = 0;
};

inline CheckResult check_against_oracle(Implementation& impl, const CheckCase& c) {
  CheckResult r;
  const GridShape& shape = c.shape;
  const std::int64_t field_values = shape.values();
  r.input = datasets::make_field(c.kind, shape, c.fields, c.seed);
  r.coords = mixed_queries(shape, c.queries_per_pattern, c.seed + 10);
  r.queries = static_cast<std::int64_t>(r.coords.size()) / shape.dims;
  const std::int64_t value_count = c.fields * r.queries * shape.channels;

  PhaseTimes times;
  impl.prepare(shape, c.fields, r.input.data(), c.mode, /*prefilter=*/true, times);
  r.coefficients.resize(r.input.size());
  poison(r.coefficients);
  impl.read_coefficients(r.coefficients.data(), times);
  r.values.resize(static_cast<std::size_t>(value_count));
  poison(r.values);
  impl.evaluate(r.coords.data(), r.queries, r.values.data(), times);
  r.unwritten_coefficients = count_nan(r.coefficients);
  r.unwritten_values = count_nan(r.values);

  r.oracle_coefficients = to_double(r.input);
  oracle::prefilter_f64(shape, c.fields, r.oracle_coefficients.data(), c.mode);
  r.oracle_values.resize(static_cast<std::size_t>(value_count));
  oracle::evaluate_f64(shape, c.fields, r.oracle_coefficients.data(), c.mode, r.coords.data(), r.queries,
                       r.oracle_values.data());

  const std::int64_t field_outputs = r.queries * shape.channels;
  for (std::int64_t f = 0; f < c.fields; ++f) {
    const auto slice = [f](const auto& v, std::int64_t size) {
      using T = typename std::decay_t<decltype(v)>::value_type;
      return std::vector<T>(v.begin() + f * size, v.begin() + (f + 1) * size);
    };
    const std::vector<float> input_f = slice(r.input, field_values);
    r.prefilter_rel_l2 = std::max(
        r.prefilter_rel_l2, rel_l2(slice(r.coefficients, field_values), slice(r.oracle_coefficients, field_values)));
    r.interp_max_rel_to_maxf =
        std::max(r.interp_max_rel_to_maxf, max_abs_diff(slice(r.values, field_outputs),
                                                        slice(r.oracle_values, field_outputs)) /
                                               max_abs(input_f));
  }
  return r;
}

}  // namespace splinebench::testing
