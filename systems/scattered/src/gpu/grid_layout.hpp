// The problem in plain arrays a CUDA kernel reads (no Eigen): the grid as three axes
// (leading axes of extent 1 pad D < 3, as in the CPU assembly), each with its coupling
// pattern (basis.hpp), the cells that reach each node, and its exact integral tables
// (thin_plate.hpp); and the samples with their coordinates on the padded axes.
//
// A sample's cell on an axis is floor(x) in [0, n-1] (x = n-1 exactly has its own cell);
// its four taps cell-1 .. cell+2 fold onto the nodes it reaches. touch lists are the
// inverse map: the ascending cells whose taps reach a node. A deterministic gather walks
// them: entry (k, k') collects the samples of the cells in touch(k) ∩ touch(k') per axis.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "splinebench/scattered/problem.hpp"

namespace splinebench::scattered::gpu::detail {

struct AxisLayout {
  int n = 1;
  int mode = 0;                          // Mode's order: 0 mirror, 1 half, 2 periodic
  std::vector<int> offset;               // n + 1: the coupled nodes of node k are node[offset[k] .. offset[k+1])
  std::vector<int> node;
  std::vector<int> touch_offset;         // n + 1
  std::vector<int> touch_cell;           // ascending
  std::vector<int> touch_mask;           // aligned with touch_cell: bit t set when tap t of the cell folds onto k
  std::array<std::vector<double>, 3> integral;  // T_0, T_1, T_2 aligned with node
  // The matrix-free operator's views of the same data:
  //   plain[k]: node k's touch cells are exactly [k-2, k+1] within [0, n-1], cell c through
  //     tap k - c + 1 alone (no folded image of k reaches the line), or n == 1.
  //   stencil[(k * 3 + q) * 7 + (d + 3)]: T_q as a 7-tap stencil on p[fold(k + d)], |d| <= 3;
  //     an entry coupling k to k' sits on the first d with fold(k + d) == k' (zero on the
  //     rest), so sum_d stencil * p[fold(k + d)] is row k of T_q exactly.
  std::vector<int> plain;
  std::vector<double> stencil;
};

inline constexpr int kMaxTerms = 6;  // |alpha| = 2 in 3-D

struct GridLayout {
  std::array<AxisLayout, 3> axis;
  int pad = 0;
  int terms = 0;
  int term_order[kMaxTerms][3] = {};
  double term_weight[kMaxTerms] = {};  // lambda * 2 / alpha!
  std::int64_t rows = 0;
  std::int64_t nnz = 0;                // entries of the product pattern
  int max_row = 0;                     // most entries in a row (7^D away from folds)
};

// Throws splinebench::Error for dims outside 1..3 (the problem's validate() names the rest).
// integrals = false leaves the thin-plate tables zero (a level whose operator is not formed
// from them: MG-PCG's Galerkin levels), which saves their quadrature.
GridLayout make_grid_layout(const GridShape& grid, Mode mode, double lambda, bool integrals = true);

struct SampleArrays {
  std::array<std::vector<double>, 3> coord;  // on the padded axes (0 on a padding axis)
  std::vector<double> value;
};
SampleArrays make_sample_arrays(const Problem& problem);

}  // namespace splinebench::scattered::gpu::detail
