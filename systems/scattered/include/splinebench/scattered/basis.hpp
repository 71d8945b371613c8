// The folded cubic B-spline basis along one axis. With the coefficients extended by the
// boundary mode, the basis function of node k is the sum of the shifted B-splines of
// every image of k:  B_k(x) = sum_{j : fold(j) = k} beta3(x - j).  For x in [0, N-1] the
// four taps floor(x)-1 .. floor(x)+2 fold onto at most four distinct nodes; taps that
// land on the same node are merged, so each node appears once.
#pragma once

#include <cstdint>
#include <vector>

#include "splinebench/types.hpp"

namespace splinebench::scattered {

// Distinct nodes (folded) and the value of B_k^(order)(x) at each.
struct AxisTaps {
  int count = 0;
  std::int64_t node[4] = {0, 0, 0, 0};
  double weight[4] = {0, 0, 0, 0};
};

// Taps of the `order`-th derivative (0, 1 or 2) of the folded basis at x, for a line of
// n nodes. x must be finite; any x folds correctly, [0, n-1] is what the problem uses.
AxisTaps axis_taps(Mode mode, std::int64_t n, double x, int order = 0);

// The `order`-th derivative (0, 1 or 2) of the four unfolded taps at fraction a in [0, 1]
// of a cell: tap t (node cell + t - 1) is beta3^(order)(a + 1 - t).
void cell_tap_values(double a, int order, double w[4]);

// The nodes a node couples with: B_k and B_k' overlap on [0, n-1] only if
// k' = fold(k + delta) for some |delta| <= 3 (the symmetry of the extension that maps an
// image of k back onto k maps the overlapping image of k' to k +- delta). Per node, the
// sorted distinct such k' (at most 7). Products of these lists over the axes are the
// rows of the normal matrix, so every D-dimensional entry is found from per-axis
// positions.
struct AxisPattern {
  std::int64_t n = 0;
  std::vector<std::int64_t> offset;  // n + 1
  std::vector<std::int64_t> node;    // offset[n] entries

  static AxisPattern make(Mode mode, std::int64_t n);
  int length(std::int64_t k) const { return static_cast<int>(offset[k + 1] - offset[k]); }
  // Position of k2 among the neighbours of k; throws splinebench::Error when they do not
  // couple (a bug, never an input error).
  int position(std::int64_t k, std::int64_t k2) const;
};

}  // namespace splinebench::scattered
