// What the SIMD evaluation kernels need to know about a prepared grid, in the 32-bit
// integers their gather instructions take, plus the scalar per-query path they fall
// back to for coordinates the vector path does not handle (non-finite, or so large
// that float arithmetic on the cell index would no longer be exact).
#pragma once

#include <cstdint>

#include "splinebench/types.hpp"

namespace splinebench::cpu {

struct EvalAxis {
  std::int32_t extent = 1;  // N
  std::int32_t stride = 1;  // floats between neighbours along the axis
  std::int32_t period = 1;  // period of the mode's extension (bspline::mode_period)
};

struct EvalGrid {
  int dims = 0;
  int channels = 1;
  Mode mode = Mode::mirror;
  EvalAxis axis[kMaxDims];
  // Whether the kernels prefetch the tap rows of queries ahead (prefetch_rows_pays).
  bool prefetch_rows = true;
};

// Software prefetch of the rows of queries ahead, for random queries on a grid of
// `dims` axes and field_bytes per field. It pays where the caches do not hold the
// grid; on AMD Zen 5 (family 0x1A: 32 MiB L3 per CCD, fast) it costs 10-20 % for
// D >= 3 while the grid fits in that L3 and is left out there, while D = 1, 2 (1 and 4
// rows per query) still gain from it (measured: bench/README.md). Everywhere else:
// always, as measured on Intel Xeon, where the 8 MiB grid of the acceptance case gains.
bool prefetch_rows_pays(int dims, std::int64_t field_bytes);

// Throws Unsupported when one field has more than 2^31 - 1 values (gather offsets
// are 32-bit) or an extension period does not fit in 32 bits.
EvalGrid make_eval_grid(const GridShape& shape, Mode mode);

// Coordinates with |x| below this take the vector path on every axis: the cell index
// floor(x) +- 2 and its quotient by the period are then exact in float and int32.
inline constexpr float kVectorCoordLimit = 4194304.0f;  // 2^22

// One query, any coordinate (NaN/inf give NaN), the same nested per-axis sums as the
// vector kernels; x[d] is the coordinate along axis d, out receives `channels` values.
void evaluate_point_scalar(const EvalGrid& grid, const float* coeffs, const float* x, float* out);

// Kernel signature shared by every CPU SIMD variant: evaluates queries [q0, q1) of
// the (D, n) axis-major `coords` on one field's coefficients; out is [n][channels].
using EvalRangeFn = void (*)(const EvalGrid& grid, const float* coeffs, const float* coords,
                             std::int64_t n, std::int64_t q0, std::int64_t q1, float* out);

// Queries as records (bin-sorted batches, query_bins.hpp): query_record_floats(D)
// floats each, coordinates x0 .. x_{D-1} first, and in the last float the bits of the
// int32 index of the query in the caller's order, where its values go.
inline constexpr int query_record_floats(int dims) { return dims <= 3 ? 4 : 8; }

// Kernel signature for records: evaluates records [r0, r1) on one field's
// coefficients; the values of the record with index q go to out[q * channels ...].
using EvalRecordsFn = void (*)(const EvalGrid& grid, const float* coeffs, const float* records, std::int64_t r0,
                               std::int64_t r1, float* out);

}  // namespace splinebench::cpu
