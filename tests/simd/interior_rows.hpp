// Queries whose taps along the contiguous axis need no folding (cell in [1, N-3]) on
// every lane, so each vector takes the fast paths that mixed queries reach only on
// some vectors: cpu_simd's row loads without folded taps (C = 1) and paired gathers
// (C = 2), and cpu_sse's row loads (C = 1).
// The other axes keep "outside" coordinates (folding there). Compared with the
// oracle evaluated on the implementation's own coefficients, so only the evaluation
// is measured.
//
// Bound: nested sums of 4 terms per axis with non-negative weights summing to 1;
// per level the products and sums round by <= 4u of max|c|, and the weights (a few
// operations each) by <= 5u: 10 D u max|c| (u = 2^-24).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "common/accuracy.hpp"
#include "splinebench/oracle_batch.hpp"
#include "splinebench/datasets.hpp"
#include "splinebench/implementation.hpp"

namespace splinebench::testing {

inline std::vector<std::vector<std::int64_t>> interior_row_shapes() {
  return {{9}, {5, 11}, {3, 7, 12}, {4, 3, 5, 9}, {3, 2, 4, 3, 8}, {2, 3, 2, 3, 2, 7}};
}

struct InteriorRowCheck {
  double max_error = 0;
  double bound = 0;
  std::int64_t unwritten = 0;
};

inline InteriorRowCheck check_interior_rows(Implementation& impl, const GridShape& shape, Mode mode) {
  const int D = shape.dims;
  const int C = shape.channels;
  const std::int64_t n = 203;  // a partial vector at every width
  std::vector<float> coords = datasets::make_queries(datasets::QueryPattern::outside, shape, n, 31);
  const std::int64_t last = shape.extent[D - 1];
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<float> interior(1.0f, static_cast<float>(last - 3) + 0.999f);
  for (std::int64_t q = 0; q < n; ++q) coords[(D - 1) * n + q] = interior(rng);
  const std::vector<float> field = datasets::make_field(datasets::FieldKind::noise, shape, 1, 32);
  PhaseTimes times;
  impl.prepare(shape, 1, field.data(), mode, true, times);
  std::vector<float> coeffs(field.size());
  impl.read_coefficients(coeffs.data(), times);
  std::vector<float> values(static_cast<std::size_t>(n * C));
  poison(values);
  impl.evaluate(coords.data(), n, values.data(), times);
  std::vector<double> expected(values.size());
  const std::vector<double> c64 = to_double(coeffs);
  oracle::evaluate_f64(shape, 1, c64.data(), mode, coords.data(), n, expected.data());
  InteriorRowCheck r;
  r.unwritten = count_nan(values);
  r.max_error = max_abs_diff(values, expected);
  r.bound = 10.0 * D * kUnitRoundoff<float> * max_abs(coeffs);
  return r;
}

}  // namespace splinebench::testing
