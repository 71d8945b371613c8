#include "multigrid_levels.hpp"

#include <cmath>

#include "splinebench/bspline_math.hpp"
#include "splinebench/error.hpp"
#include "splinebench/scattered/basis.hpp"
#include "splinebench/scattered/multigrid.hpp"
#include "splinebench/scattered/thin_plate.hpp"

namespace splinebench::scattered::gpu::detail {

namespace {

AxisTransfer make_transfer(Mode mode, int n) {
  GridShape coarse;
  const SparseMatrix p = prolongation(GridShape::make({n}), mode, coarse);
  AxisTransfer t;
  t.fine = n;
  t.coarse = static_cast<int>(coarse.points());
  const SparseMatrix pt = SparseMatrix(p.transpose());
  auto csr = [](const SparseMatrix& m, std::vector<int>& offset, std::vector<int>& index, std::vector<float>& weight) {
    offset.assign(m.outerIndexPtr(), m.outerIndexPtr() + m.rows() + 1);
    index.assign(m.innerIndexPtr(), m.innerIndexPtr() + m.nonZeros());
    weight.assign(m.valuePtr(), m.valuePtr() + m.nonZeros());
  };
  csr(p, t.p_offset, t.p_index, t.p_weight);
  csr(pt, t.r_offset, t.r_index, t.r_weight);
  return t;
}

// Replaces an axis's tables and the operator's 7-tap stencil view of them (grid_layout.hpp:
// an entry coupling k to k' sits on the first d with fold(k + d) == k').
void set_integrals(AxisLayout& ax, std::array<std::vector<double>, 3> tables) {
  ax.integral = std::move(tables);
  ax.stencil.assign(static_cast<std::size_t>(ax.n) * 21, 0.0);
  for (int k = 0; k < ax.n; ++k)
    for (int j = ax.offset[k]; j < ax.offset[k + 1]; ++j) {
      int d = -3;
      while (d <= 3 && bspline::fold_index(ax.mode, k + d, ax.n) != ax.node[j]) ++d;
      if (d > 3) fail("GPU multigrid: nodes " + std::to_string(k) + " and " + std::to_string(ax.node[j]) + " couple beyond |d| <= 3");
      for (int q = 0; q < 3; ++q)
        ax.stencil[static_cast<std::size_t>((k * 3 + q) * 7 + d + 3)] += ax.integral[q][static_cast<std::size_t>(j)];
    }
}

}  // namespace

std::array<std::vector<double>, 3> level_axis_integrals(Mode mode, int n, double length, double scale) {
  const AxisPattern pattern = AxisPattern::make(mode, n);
  std::array<std::vector<double>, 3> table;
  for (int p = 0; p < 3; ++p) {
    auto& t = table[p];
    t.assign(pattern.node.size(), 0.0);
    const double factor = std::pow(scale, 1 - 2 * p);
    const auto whole = cell_products(p);
    for (int cell = 0; cell < length; ++cell) {
      const double width = std::min(1.0, length - cell);
      const auto part = width < 1 ? cell_products(p, width) : whole;
      std::int64_t k[4];
      for (int a = 0; a < 4; ++a) k[a] = bspline::fold_index(static_cast<int>(mode), cell + a - 1, n);
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) t[pattern.offset[k[a]] + pattern.position(k[a], k[b])] += factor * part[a][b];
    }
  }
  return table;
}

std::vector<Level> make_levels(const Problem& problem, int coarsenings, std::int64_t coarsest_max_unknowns,
                               int sampled_levels) {
  std::vector<Level> levels(1);
  levels[0].grid = problem.grid;
  levels[0].layout = make_grid_layout(problem.grid, problem.mode, problem.lambda);
  levels[0].samples = make_sample_arrays(problem);
  const int pad = 3 - problem.grid.dims;
  for (int l = 0;; ++l) {
    Level& fine = levels.back();
    if (coarsenings >= 0 ? l == coarsenings : fine.grid.points() <= coarsest_max_unknowns) break;
    std::vector<std::int64_t> extents;
    bool halved = false;
    for (int a = pad; a < 3; ++a) {
      int like = -1;  // an earlier axis of the same extent has the same transfer
      for (int b = pad; b < a && like < 0; ++b)
        if (fine.layout.axis[b].n == fine.layout.axis[a].n) like = b;
      fine.to_coarser[a] = like >= 0 ? fine.to_coarser[like] : make_transfer(problem.mode, fine.layout.axis[a].n);
      extents.push_back(fine.to_coarser[a].coarse);
      halved = halved || !fine.to_coarser[a].identity();
    }
    if (!halved) {
      if (coarsenings >= 0)
        fail("GPU multigrid: grid " + problem.grid.to_string() + " cannot be coarsened " +
             std::to_string(coarsenings) + " times (every axis needs >= 5 nodes to halve)");
      break;
    }
    Level coarse;
    coarse.grid = GridShape::make(extents);
    const bool sampled = static_cast<int>(levels.size()) < sampled_levels;
    coarse.layout = make_grid_layout(coarse.grid, problem.mode, problem.lambda, false);
    coarse.scale = fine.scale;
    for (int a = 0; a < 3; ++a)
      if (a >= pad && !fine.to_coarser[a].identity()) coarse.scale[a] *= 2;
    if (!sampled) {
      levels.push_back(std::move(coarse));
      continue;
    }
    coarse.samples.value = fine.samples.value;
    for (int a = 0; a < 3; ++a) {
      coarse.samples.coord[a] = levels[0].samples.coord[a];
      for (double& x : coarse.samples.coord[a]) x /= coarse.scale[a];
      if (a >= pad)
        set_integrals(coarse.layout.axis[a], level_axis_integrals(problem.mode, coarse.layout.axis[a].n,
                                 (static_cast<double>(levels[0].layout.axis[a].n) - 1) / coarse.scale[a], coarse.scale[a]));
    }
    levels.push_back(std::move(coarse));
  }
  return levels;
}

}  // namespace splinebench::scattered::gpu::detail
