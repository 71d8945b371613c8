// Double-precision oracle entry points for whole batches, parallel over lines and
// queries (OpenMP). The harness and the tests use these; the templated algorithm
// itself is in oracle.hpp.
#pragma once

#include <cstdint>
#include <vector>

#include "splinebench/types.hpp"

namespace splinebench::oracle {

// In place: samples -> coefficients for `fields` fields of `shape`.
void prefilter_f64(const GridShape& shape, std::int64_t fields, double* data, Mode mode);

// coords: (D, n) float32 axis-major (as the implementations receive them, so the
// oracle sees exactly the same points); out: [fields][n][channels].
void evaluate_f64(const GridShape& shape, std::int64_t fields, const double* coeffs, Mode mode,
                  const float* coords, std::int64_t n, double* out);
// Same at double coordinates, used as given (the f64 interface of the implementations).
void evaluate_f64(const GridShape& shape, std::int64_t fields, const double* coeffs, Mode mode,
                  const double* coords, std::int64_t n, double* out);

// Same, at a subset of the queries: `query_ids` index into the n queries; out is
// [fields][query_ids.size()][channels].
void evaluate_subset_f64(const GridShape& shape, std::int64_t fields, const double* coeffs, Mode mode,
                         const float* coords, std::int64_t n, const std::vector<std::int64_t>& query_ids,
                         double* out);

}  // namespace splinebench::oracle
