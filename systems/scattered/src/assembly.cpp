#include "splinebench/scattered/assembly.hpp"

#include <array>
#include <limits>

#include "splinebench/error.hpp"
#include "splinebench/scattered/basis.hpp"
#include "splinebench/scattered/thin_plate.hpp"

namespace splinebench::scattered {

namespace {

// The grid seen as three axes: leading axes of extent 1 pad D < 3 (they change no flat
// index; their basis is the constant 1, their T0 is 1 and T1 = T2 = 0).
struct Axes {
  std::array<AxisPattern, 3> pattern;
  std::array<std::int64_t, 3> n{1, 1, 1};
  int pad = 0;  // number of leading padding axes

  Axes(const GridShape& grid, Mode mode) : pad(3 - grid.dims) {
    for (int a = 0; a < 3; ++a) {
      n[a] = a < pad ? 1 : grid.extent[a - pad];
      pattern[a] = AxisPattern::make(a < pad ? Mode::mirror : mode, n[a]);
    }
  }
  std::int64_t flat(std::int64_t k0, std::int64_t k1, std::int64_t k2) const { return (k0 * n[1] + k1) * n[2] + k2; }
};

AxisTaps padded_or_real_taps(const Axes& axes, Mode mode, int a, double x) {
  if (a < axes.pad) {
    AxisTaps one;
    one.count = 1;
    one.weight[0] = 1;
    return one;
  }
  return axis_taps(mode, axes.n[a], x, 0);
}

}  // namespace

SparseMatrix pattern_matrix(const GridShape& grid, Mode mode) {
  if (grid.dims < 1 || grid.dims > kMaxReconstructionDims)
    fail("scattered reconstruction: dims must be 1, 2 or 3, got " + std::to_string(grid.dims));
  const Axes axes(grid, mode);
  const std::int64_t rows = grid.points();
  std::int64_t nnz = 0;
  for (std::int64_t k0 = 0; k0 < axes.n[0]; ++k0)
    for (std::int64_t k1 = 0; k1 < axes.n[1]; ++k1)
      for (std::int64_t k2 = 0; k2 < axes.n[2]; ++k2)
        nnz += std::int64_t{axes.pattern[0].length(k0)} * axes.pattern[1].length(k1) * axes.pattern[2].length(k2);
  if (rows > std::numeric_limits<int>::max() || nnz > std::numeric_limits<int>::max())
    fail("scattered reconstruction: grid " + grid.to_string() + " has " + std::to_string(nnz) +
         " matrix entries, more than the CPU oracle's 32-bit indices address");

  SparseMatrix m(static_cast<int>(rows), static_cast<int>(rows));
  m.resizeNonZeros(static_cast<Eigen::Index>(nnz));
  int* outer = m.outerIndexPtr();
  int* inner = m.innerIndexPtr();
  double* value = m.valuePtr();
  std::int64_t at = 0;
  outer[0] = 0;
  const auto& p = axes.pattern;
  for (std::int64_t k0 = 0; k0 < axes.n[0]; ++k0)
    for (std::int64_t k1 = 0; k1 < axes.n[1]; ++k1)
      for (std::int64_t k2 = 0; k2 < axes.n[2]; ++k2) {
        for (std::int64_t j0 = p[0].offset[k0]; j0 < p[0].offset[k0 + 1]; ++j0)
          for (std::int64_t j1 = p[1].offset[k1]; j1 < p[1].offset[k1 + 1]; ++j1)
            for (std::int64_t j2 = p[2].offset[k2]; j2 < p[2].offset[k2 + 1]; ++j2) {
              inner[at] = static_cast<int>(axes.flat(p[0].node[j0], p[1].node[j1], p[2].node[j2]));
              value[at] = 0;
              ++at;
            }
        outer[axes.flat(k0, k1, k2) + 1] = static_cast<int>(at);
      }
  return m;
}

void add_samples(const Problem& problem, SparseMatrix& matrix, Vector& rhs) {
  const Axes axes(problem.grid, problem.mode);
  const auto& p = axes.pattern;
  const int* outer = matrix.outerIndexPtr();
  double* value = matrix.valuePtr();
  const std::int64_t n = problem.samples();
  for (std::int64_t i = 0; i < n; ++i) {
    AxisTaps taps[3];
    for (int a = 0; a < 3; ++a)
      taps[a] = padded_or_real_taps(axes, problem.mode, a, a < axes.pad ? 0.0 : problem.coordinate(a - axes.pad, i));
    // pos[a][s][t]: place of tap t's node among tap s's neighbours on axis a.
    int pos[3][4][4];
    int len[3][4];
    for (int a = 0; a < 3; ++a)
      for (int s = 0; s < taps[a].count; ++s) {
        len[a][s] = p[a].length(taps[a].node[s]);
        for (int t = 0; t < taps[a].count; ++t) pos[a][s][t] = p[a].position(taps[a].node[s], taps[a].node[t]);
      }
    const double f = problem.values[i];
    for (int s0 = 0; s0 < taps[0].count; ++s0)
      for (int s1 = 0; s1 < taps[1].count; ++s1)
        for (int s2 = 0; s2 < taps[2].count; ++s2) {
          const std::int64_t row = axes.flat(taps[0].node[s0], taps[1].node[s1], taps[2].node[s2]);
          const double wr = taps[0].weight[s0] * taps[1].weight[s1] * taps[2].weight[s2];
          rhs[row] += wr * f;
          double* row_values = value + outer[row];
          for (int t0 = 0; t0 < taps[0].count; ++t0)
            for (int t1 = 0; t1 < taps[1].count; ++t1) {
              const int base = (pos[0][s0][t0] * len[1][s1] + pos[1][s1][t1]) * len[2][s2];
              const double w01 = wr * taps[0].weight[t0] * taps[1].weight[t1];
              for (int t2 = 0; t2 < taps[2].count; ++t2)
                row_values[base + pos[2][s2][t2]] += w01 * taps[2].weight[t2];
            }
        }
  }
}

void add_thin_plate(const GridShape& grid, Mode mode, double weight, SparseMatrix& matrix) {
  const Axes axes(grid, mode);
  const auto& p = axes.pattern;
  std::array<AxisIntegrals, 3> integrals;
  for (int a = 0; a < 3; ++a) {
    if (a < axes.pad) {
      integrals[a].table = {std::vector<double>{1.0}, std::vector<double>{0.0}, std::vector<double>{0.0}};
    } else {
      integrals[a] = AxisIntegrals::make(mode, p[a]);
    }
  }
  // Each term's per-axis orders on the padded axes.
  std::vector<std::array<int, 3>> orders;
  std::vector<double> weights;
  for (const ThinPlateTerm& term : thin_plate_terms(grid.dims)) {
    std::array<int, 3> o{0, 0, 0};
    for (int d = 0; d < grid.dims; ++d) o[axes.pad + d] = term.order[d];
    orders.push_back(o);
    weights.push_back(weight * term.weight);
  }
  double* value = matrix.valuePtr();
  std::int64_t at = 0;
  for (std::int64_t k0 = 0; k0 < axes.n[0]; ++k0)
    for (std::int64_t k1 = 0; k1 < axes.n[1]; ++k1)
      for (std::int64_t k2 = 0; k2 < axes.n[2]; ++k2)
        for (std::int64_t j0 = p[0].offset[k0]; j0 < p[0].offset[k0 + 1]; ++j0)
          for (std::int64_t j1 = p[1].offset[k1]; j1 < p[1].offset[k1 + 1]; ++j1)
            for (std::int64_t j2 = p[2].offset[k2]; j2 < p[2].offset[k2 + 1]; ++j2) {
              double r = 0;
              for (std::size_t t = 0; t < orders.size(); ++t)
                r += weights[t] * integrals[0].table[orders[t][0]][j0] * integrals[1].table[orders[t][1]][j1] *
                     integrals[2].table[orders[t][2]][j2];
              value[at++] += r;
            }
}

NormalEquations assemble(const Problem& problem) {
  problem.validate();
  NormalEquations eq;
  eq.matrix = pattern_matrix(problem.grid, problem.mode);
  eq.rhs = Vector::Zero(eq.matrix.rows());
  add_samples(problem, eq.matrix, eq.rhs);
  if (problem.lambda > 0) add_thin_plate(problem.grid, problem.mode, problem.lambda, eq.matrix);
  return eq;
}

}  // namespace splinebench::scattered
