#include "splinebench/oracle_batch.hpp"

#include <numeric>

#include "splinebench/oracle.hpp"

namespace splinebench::oracle {

// Below this many scalar operations a parallel region costs more than it saves, and
// when the machine is oversubscribed (tests run in parallel) each of its barriers can
// wait a whole scheduler time slice. Results do not depend on the thread count.
constexpr std::int64_t kMinParallelWork = 1 << 16;

void prefilter_f64(const GridShape& shape, std::int64_t fields, double* data, Mode mode) {
  shape.validate();
  const int C = shape.channels;
  const std::int64_t field_values = shape.values();
  for (int axis = 0; axis < shape.dims; ++axis) {
    const std::int64_t n = shape.extent[axis];
    const std::int64_t stride = shape.stride(axis);
    const std::int64_t inner = stride / C;
    const std::int64_t outer = shape.points() / (n * inner);
    const std::vector<double> zpow = pole_powers<double>(2 * n + 1);
    const std::int64_t lines = fields * outer * inner;
#pragma omp parallel if (lines * n * C >= kMinParallelWork)
    {
      std::vector<double> line(static_cast<std::size_t>(n * C));
#pragma omp for schedule(static)
      for (std::int64_t l = 0; l < lines; ++l) {
        const std::int64_t fld = l / (outer * inner);
        const std::int64_t o = (l / inner) % outer;
        const std::int64_t i = l % inner;
        double* start = data + fld * field_values + o * n * stride + i * C;
        for (std::int64_t k = 0; k < n; ++k)
          for (int c = 0; c < C; ++c) line[k * C + c] = start[k * stride + c];
        prefilter_line(line.data(), n, C, C, mode, zpow);
        for (std::int64_t k = 0; k < n; ++k)
          for (int c = 0; c < C; ++c) start[k * stride + c] = line[k * C + c];
      }
    }
  }
}

namespace {

template <typename Coord>
void evaluate_subset(const GridShape& shape, std::int64_t fields, const double* coeffs, Mode mode,
                     const Coord* coords, std::int64_t n, const std::vector<std::int64_t>& query_ids, double* out) {
  shape.validate();
  const int D = shape.dims;
  const int C = shape.channels;
  const auto m = static_cast<std::int64_t>(query_ids.size());
  const std::int64_t taps = std::int64_t{1} << (2 * D);
#pragma omp parallel for schedule(static) if (m * fields * C * taps >= kMinParallelWork)
  for (std::int64_t j = 0; j < m; ++j) {
    double x[kMaxDims];
    for (int d = 0; d < D; ++d) x[d] = static_cast<double>(coords[d * n + query_ids[j]]);
    for (std::int64_t fld = 0; fld < fields; ++fld)
      evaluate_point<double>(shape, coeffs + fld * shape.values(), mode, x, out + (fld * m + j) * C);
  }
}

std::vector<std::int64_t> every_query(std::int64_t n) {
  std::vector<std::int64_t> all(static_cast<std::size_t>(n));
  std::iota(all.begin(), all.end(), std::int64_t{0});
  return all;
}

}  // namespace

void evaluate_subset_f64(const GridShape& shape, std::int64_t fields, const double* coeffs, Mode mode,
                         const float* coords, std::int64_t n, const std::vector<std::int64_t>& query_ids,
                         double* out) {
  evaluate_subset(shape, fields, coeffs, mode, coords, n, query_ids, out);
}

void evaluate_f64(const GridShape& shape, std::int64_t fields, const double* coeffs, Mode mode,
                  const float* coords, std::int64_t n, double* out) {
  evaluate_subset(shape, fields, coeffs, mode, coords, n, every_query(n), out);
}

void evaluate_f64(const GridShape& shape, std::int64_t fields, const double* coeffs, Mode mode,
                  const double* coords, std::int64_t n, double* out) {
  evaluate_subset(shape, fields, coeffs, mode, coords, n, every_query(n), out);
}

}  // namespace splinebench::oracle
