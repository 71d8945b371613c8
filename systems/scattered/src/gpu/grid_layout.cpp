#include "grid_layout.hpp"

#include <algorithm>

#include "splinebench/bspline_math.hpp"
#include "splinebench/error.hpp"
#include "splinebench/scattered/basis.hpp"
#include "splinebench/scattered/thin_plate.hpp"

namespace splinebench::scattered::gpu::detail {

namespace {

AxisLayout make_axis(Mode mode, int n, bool padding, bool integrals) {
  AxisLayout ax;
  ax.n = n;
  ax.mode = static_cast<int>(mode);
  const AxisPattern pattern = AxisPattern::make(mode, n);
  ax.offset.assign(pattern.offset.begin(), pattern.offset.end());
  ax.node.assign(pattern.node.begin(), pattern.node.end());
  if (padding) {
    // The constant basis of a padding axis: T0 = 1, T1 = T2 = 0 (as the CPU assembly).
    ax.integral = {std::vector<double>{1.0}, std::vector<double>{0.0}, std::vector<double>{0.0}};
  } else if (integrals) {
    ax.integral = AxisIntegrals::make(mode, pattern).table;
  } else {
    ax.integral.fill(std::vector<double>(pattern.node.size(), 0.0));
  }
  if (ax.integral[0].size() != ax.node.size()) fail("scattered GPU: integral tables not aligned with the pattern");
  // Touch lists in two passes over the cells (ascending, so each node's list comes out
  // ascending and a cell repeats only for consecutive taps): count, then fill.
  const auto un = static_cast<std::size_t>(n);
  std::vector<int> last(un, -1), count(un, 0);
  for (int c = 0; c < n; ++c)
    for (int t = 0; t < 4; ++t) {
      const auto k = static_cast<std::size_t>(bspline::fold_index(ax.mode, c + t - 1, n));
      if (last[k] != c) {
        last[k] = c;
        ++count[k];
      }
    }
  ax.touch_offset.assign(un + 1, 0);
  for (std::size_t k = 0; k < un; ++k) ax.touch_offset[k + 1] = ax.touch_offset[k] + count[k];
  ax.touch_cell.assign(static_cast<std::size_t>(ax.touch_offset[un]), 0);
  ax.touch_mask.assign(ax.touch_cell.size(), 0);
  std::vector<int> end(ax.touch_offset.begin(), ax.touch_offset.end() - 1);  // next free slot per node
  for (int c = 0; c < n; ++c)
    for (int t = 0; t < 4; ++t) {
      const auto k = static_cast<std::size_t>(bspline::fold_index(ax.mode, c + t - 1, n));
      if (end[k] == ax.touch_offset[k] || ax.touch_cell[static_cast<std::size_t>(end[k] - 1)] != c)
        ax.touch_cell[static_cast<std::size_t>(end[k]++)] = c;
      ax.touch_mask[static_cast<std::size_t>(end[k] - 1)] |= 1 << t;
    }
  ax.plain.assign(un, 1);
  for (int k = 0; k < n && n > 1; ++k) {
    const int* cells = ax.touch_cell.data() + ax.touch_offset[k];
    const int* bits = ax.touch_mask.data() + ax.touch_offset[k];
    const int size = ax.touch_offset[k + 1] - ax.touch_offset[k];
    const int lo = std::max(0, k - 2), hi = std::min(n - 1, k + 1);
    bool plain = size == hi - lo + 1;
    for (int i = 0; plain && i < size; ++i) plain = cells[i] == lo + i && bits[i] == 1 << (k - cells[i] + 1);
    ax.plain[static_cast<std::size_t>(k)] = plain ? 1 : 0;
  }
  ax.stencil.assign(static_cast<std::size_t>(n) * 21, 0.0);
  for (int k = 0; k < n; ++k)
    for (int j = ax.offset[k]; j < ax.offset[k + 1]; ++j) {
      int d = -3;
      while (d <= 3 && bspline::fold_index(ax.mode, k + d, n) != ax.node[j]) ++d;
      if (d > 3) fail("scattered GPU: node " + std::to_string(ax.node[j]) + " couples to " + std::to_string(k) +
                      " but is no fold(k + d), |d| <= 3 (a bug in the axis pattern)");
      for (int q = 0; q < 3; ++q)
        ax.stencil[static_cast<std::size_t>((k * 3 + q) * 7 + d + 3)] += ax.integral[q][static_cast<std::size_t>(j)];
    }
  return ax;
}

}  // namespace

GridLayout make_grid_layout(const GridShape& grid, Mode mode, double lambda, bool integrals) {
  if (grid.dims < 1 || grid.dims > kMaxReconstructionDims)
    fail("scattered GPU: dims must be 1, 2 or 3, got " + std::to_string(grid.dims));
  GridLayout g;
  g.pad = 3 - grid.dims;
  for (int a = 0; a < 3; ++a) {
    const bool padding = a < g.pad;
    const int n = padding ? 1 : static_cast<int>(grid.extent[a - g.pad]);
    int like = -1;  // an earlier axis of the same kind and extent (a square image's): the same layout
    for (int b = 0; b < a && like < 0; ++b)
      if ((b < g.pad) == padding && g.axis[b].n == n) like = b;
    g.axis[a] = like >= 0 ? g.axis[like] : make_axis(padding ? Mode::mirror : mode, n, padding, integrals);
  }
  for (const ThinPlateTerm& term : thin_plate_terms(grid.dims)) {
    for (int d = 0; d < grid.dims; ++d) g.term_order[g.terms][g.pad + d] = term.order[d];
    g.term_weight[g.terms] = lambda * term.weight;
    ++g.terms;
  }
  g.rows = grid.points();
  std::int64_t len[3] = {0, 0, 0};
  for (int a = 0; a < 3; ++a) {
    const AxisLayout& ax = g.axis[a];
    for (int k = 0; k < ax.n; ++k) len[a] = std::max<std::int64_t>(len[a], ax.offset[k + 1] - ax.offset[k]);
  }
  g.max_row = static_cast<int>(len[0] * len[1] * len[2]);
  std::int64_t per_axis_sum[3] = {0, 0, 0};
  for (int a = 0; a < 3; ++a) per_axis_sum[a] = static_cast<std::int64_t>(g.axis[a].node.size());
  g.nnz = per_axis_sum[0] * per_axis_sum[1] * per_axis_sum[2];  // the pattern is a product
  return g;
}

SampleArrays make_sample_arrays(const Problem& problem) {
  SampleArrays s;
  const auto n = static_cast<std::size_t>(problem.samples());
  const int pad = 3 - problem.grid.dims;
  for (int a = 0; a < 3; ++a) {
    s.coord[a].assign(n, 0.0);
    if (a >= pad)
      std::copy_n(problem.points.begin() + static_cast<std::ptrdiff_t>((a - pad) * n), n, s.coord[a].begin());
  }
  s.value = problem.values;
  return s;
}

}  // namespace splinebench::scattered::gpu::detail
