#include "splinebench/scattered/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "splinebench/bspline_math.hpp"
#include "splinebench/error.hpp"
#include "splinebench/oracle.hpp"

namespace splinebench::scattered {

namespace {

std::int64_t selection_count(const GridShape& grid, double fraction) {
  if (!(fraction > 0 && fraction <= 1)) fail("sample selection: fraction must be in (0, 1], got " + std::to_string(fraction));
  const auto count = static_cast<std::int64_t>(std::llround(fraction * static_cast<double>(grid.points())));
  if (count < 1) fail("sample selection: fraction " + std::to_string(fraction) + " of " + grid.to_string() + " selects no node");
  return count;
}

}  // namespace

std::vector<double> grid_values(const GridShape& grid, Mode mode, const std::vector<double>& coeffs) {
  if (static_cast<std::int64_t>(coeffs.size()) != grid.points()) fail("grid_values: coefficient count does not match the grid");
  std::vector<double> out = coeffs;
  for (int axis = 0; axis < grid.dims; ++axis) {
    const std::int64_t n = grid.extent[axis];
    const std::int64_t stride = grid.stride(axis);
    const std::int64_t outer = grid.points() / (n * stride);
    std::vector<double> line(static_cast<std::size_t>(n));
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t i = 0; i < stride; ++i) {
        double* start = out.data() + o * n * stride + i;
        for (std::int64_t k = 0; k < n; ++k) line[k] = start[k * stride];
        for (std::int64_t k = 0; k < n; ++k) {
          const std::int64_t left = bspline::fold_index(static_cast<int>(mode), k - 1, n);
          const std::int64_t right = bspline::fold_index(static_cast<int>(mode), k + 1, n);
          start[k * stride] = (line[left] + 4 * line[k] + line[right]) / 6;
        }
      }
  }
  return out;
}

double rms_g(const std::vector<double>& spline_at_nodes, const std::vector<double>& field, double max_value) {
  if (spline_at_nodes.size() != field.size() || field.empty()) fail("rms_g: spline and field sizes differ or are empty");
  if (!std::isfinite(max_value) || max_value <= 0) fail("rms_g: max_value must be finite and > 0");
  double sum = 0;
  for (std::size_t k = 0; k < field.size(); ++k) {
    const double e = spline_at_nodes[k] - field[k];
    sum += e * e;
  }
  return std::sqrt(sum / static_cast<double>(field.size())) * 100.0 / max_value;
}

double rms_at_samples(const Problem& problem, const std::vector<double>& coeffs) {
  const int D = problem.grid.dims;
  double sum = 0;
  double x[3];
  for (std::int64_t i = 0; i < problem.samples(); ++i) {
    for (int d = 0; d < D; ++d) x[d] = problem.coordinate(d, i);
    double s = 0;
    oracle::evaluate_point<double>(problem.grid, coeffs.data(), problem.mode, x, &s);
    const double e = s - problem.values[i];
    sum += e * e;
  }
  return std::sqrt(sum / static_cast<double>(problem.samples()));
}

std::vector<double> laplacian(const GridShape& grid, Mode mode, const std::vector<double>& field) {
  std::vector<double> out(field.size(), 0.0);
  const std::int64_t points = grid.points();
  for (std::int64_t k = 0; k < points; ++k) {
    double sum = 0;
    for (int axis = 0; axis < grid.dims; ++axis) {
      const std::int64_t n = grid.extent[axis];
      const std::int64_t stride = grid.stride(axis);
      const std::int64_t i = (k / stride) % n;
      const std::int64_t base = k - i * stride;
      const std::int64_t left = bspline::fold_index(static_cast<int>(mode), i - 1, n);
      const std::int64_t right = bspline::fold_index(static_cast<int>(mode), i + 1, n);
      sum += field[base + left * stride] + field[base + right * stride] - 2 * field[k];
    }
    out[k] = sum;
  }
  return out;
}

std::vector<std::int64_t> select_top_laplacian(const GridShape& grid, Mode mode, const std::vector<double>& field,
                                               double fraction) {
  if (static_cast<std::int64_t>(field.size()) != grid.points()) fail("sample selection: field size does not match the grid");
  const std::int64_t count = selection_count(grid, fraction);
  const std::vector<double> lap = laplacian(grid, mode, field);
  std::vector<std::int64_t> order(field.size());
  std::iota(order.begin(), order.end(), std::int64_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::int64_t a, std::int64_t b) { return std::abs(lap[a]) > std::abs(lap[b]); });
  order.resize(static_cast<std::size_t>(count));
  std::sort(order.begin(), order.end());
  return order;
}

std::vector<std::int64_t> select_random(const GridShape& grid, double fraction, std::uint64_t seed) {
  const std::int64_t count = selection_count(grid, fraction);
  std::vector<std::int64_t> all(static_cast<std::size_t>(grid.points()));
  std::iota(all.begin(), all.end(), std::int64_t{0});
  std::mt19937_64 rng(seed);
  // Partial Fisher-Yates: the first `count` entries are a uniform draw without replacement.
  for (std::int64_t i = 0; i < count; ++i) {
    std::uniform_int_distribution<std::int64_t> pick(i, grid.points() - 1);
    std::swap(all[i], all[pick(rng)]);
  }
  all.resize(static_cast<std::size_t>(count));
  std::sort(all.begin(), all.end());
  return all;
}

Problem problem_from_nodes(const GridShape& grid, Mode mode, const std::vector<double>& field,
                           const std::vector<std::int64_t>& nodes, double lambda) {
  Problem p;
  p.grid = grid;
  p.mode = mode;
  p.lambda = lambda;
  const auto n = static_cast<std::int64_t>(nodes.size());
  p.points.resize(static_cast<std::size_t>(grid.dims * n));
  p.values.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t k = nodes[i];
    p.values[i] = field[k];
    for (int d = 0; d < grid.dims; ++d) p.points[d * n + i] = static_cast<double>((k / grid.stride(d)) % grid.extent[d]);
  }
  return p;
}

}  // namespace splinebench::scattered
