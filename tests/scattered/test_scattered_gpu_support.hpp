// What the GPU scattered-reconstruction tests share: random problems with samples
// anywhere inside the grid (some exactly on nodes and on the last node, where the fourth
// tap has weight 0), and the absolute-value sums that rounding bounds scale with.
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <array>
#include <random>
#include <string>
#include <vector>

#include "splinebench/scattered/assembly.hpp"
#include "splinebench/scattered/basis.hpp"
#include "splinebench/scattered/gpu_cg.hpp"
#include "splinebench/scattered/thin_plate.hpp"

namespace splinebench::scattered::test {

inline Problem random_problem(const GridShape& grid, Mode mode, double lambda, double samples_per_node,
                              std::uint64_t seed) {
  Problem p;
  p.grid = grid;
  p.mode = mode;
  p.lambda = lambda;
  const auto n = std::max<std::int64_t>(4, static_cast<std::int64_t>(samples_per_node * grid.points()));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0), value(-1.0, 1.0);
  p.points.resize(static_cast<std::size_t>(grid.dims * n));
  for (int d = 0; d < grid.dims; ++d) {
    const double top = static_cast<double>(grid.extent[d] - 1);
    for (std::int64_t i = 0; i < n; ++i) {
      double x = unit(rng) * top;
      if (i % 7 == 3) x = std::floor(x);  // on a node
      if (i == 5) x = top;                // on the last node
      p.points[static_cast<std::size_t>(d * n + i)] = x;
    }
  }
  for (std::int64_t i = 0; i < n; ++i) p.values.push_back(value(rng));
  return p;
}

// Per row: how many samples reach the row's node (each entry of that row sums at most
// this many sample products).
inline std::vector<int> samples_per_row(const Problem& p) {
  std::vector<int> count(static_cast<std::size_t>(p.grid.points()), 0);
  const int dims = p.grid.dims;
  for (std::int64_t i = 0; i < p.samples(); ++i) {
    std::array<AxisTaps, 3> taps;
    for (int d = 0; d < dims; ++d) taps[d] = axis_taps(p.mode, p.grid.extent[d], p.coordinate(d, i));
    for (int d = dims; d < 3; ++d) taps[d].count = 1;  // trailing singleton axes
    for (int s0 = 0; s0 < taps[0].count; ++s0)
      for (int s1 = 0; s1 < taps[1].count; ++s1)
        for (int s2 = 0; s2 < taps[2].count; ++s2) {
          std::int64_t row = taps[0].node[s0];
          if (dims > 1) row = row * p.grid.extent[1] + taps[1].node[s1];
          if (dims > 2) row = row * p.grid.extent[2] + taps[2].node[s2];
          ++count[static_cast<std::size_t>(row)];
        }
  }
  return count;
}

// Entry by entry, sum over the thin-plate terms of |weight * prod_d T|: the scale of the
// rounding in lambda R. On the assembly's pattern (same order as matrix.valuePtr()).
inline std::vector<double> thin_plate_abs(const GridShape& grid, Mode mode, double lambda) {
  const int dims = grid.dims;
  std::vector<AxisPattern> pattern;
  std::vector<AxisIntegrals> integrals;
  for (int d = 0; d < dims; ++d) {
    pattern.push_back(AxisPattern::make(mode, grid.extent[d]));
    integrals.push_back(AxisIntegrals::make(mode, pattern.back()));
  }
  const std::vector<ThinPlateTerm> terms = thin_plate_terms(dims);
  std::vector<double> out;
  std::array<std::int64_t, 3> k{0, 0, 0};
  const std::array<std::int64_t, 3> n{grid.extent[0], dims > 1 ? grid.extent[1] : 1, dims > 2 ? grid.extent[2] : 1};
  for (k[0] = 0; k[0] < n[0]; ++k[0])
    for (k[1] = 0; k[1] < n[1]; ++k[1])
      for (k[2] = 0; k[2] < n[2]; ++k[2]) {
        std::array<std::int64_t, 3> lo{0, 0, 0}, hi{1, 1, 1};
        for (int d = 0; d < dims; ++d) {
          lo[d] = pattern[d].offset[k[d]];
          hi[d] = pattern[d].offset[k[d] + 1];
        }
        for (std::int64_t j0 = lo[0]; j0 < hi[0]; ++j0)
          for (std::int64_t j1 = lo[1]; j1 < hi[1]; ++j1)
            for (std::int64_t j2 = lo[2]; j2 < hi[2]; ++j2) {
              const std::array<std::int64_t, 3> j{j0, j1, j2};
              double s = 0;
              for (const ThinPlateTerm& t : terms) {
                double prod = lambda * t.weight;
                for (int d = 0; d < dims; ++d) prod *= integrals[d].table[t.order[d]][j[d]];
                s += std::abs(prod);
              }
              out.push_back(s);
            }
      }
  return out;
}


// Whether P maps the coarse folded space into the fine one on an axis of n nodes (odd
// mirror, even periodic, and axes too short to halve): there a level is Galerkin's.
inline bool exact_axis(Mode mode, std::int64_t n) {
  return n < 5 || (mode == Mode::mirror && n % 2 == 1) || (mode == Mode::periodic && n % 2 == 0);
}
inline bool exact_grid(Mode mode, const GridShape& g) {
  for (int d = 0; d < g.dims; ++d)
    if (!exact_axis(mode, g.extent[d])) return false;
  return true;
}

// Dense table of one axis from pattern-aligned values.
inline Eigen::MatrixXd dense_table(Mode mode, int n, const std::vector<double>& aligned) {
  const AxisPattern pattern = AxisPattern::make(mode, n);
  Eigen::MatrixXd t = Eigen::MatrixXd::Zero(n, n);
  for (int k = 0; k < n; ++k)
    for (auto j = pattern.offset[k]; j < pattern.offset[k + 1]; ++j) t(k, pattern.node[j]) = aligned[j];
  return t;
}

}  // namespace splinebench::scattered::test
