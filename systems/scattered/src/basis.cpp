#include "splinebench/scattered/basis.hpp"

#include <algorithm>
#include <cmath>

#include "splinebench/bspline_math.hpp"
#include "splinebench/error.hpp"

namespace splinebench::scattered {

void cell_tap_values(double a, int order, double w[4]) {
  const double b = 1 - a;
  switch (order) {
    case 0:
      bspline::weights<double>(a, w);
      return;
    case 1:
      w[0] = -b * b / 2;
      w[1] = -2 * a + 1.5 * a * a;
      w[2] = 2 * b - 1.5 * b * b;
      w[3] = a * a / 2;
      return;
    case 2:
      w[0] = b;
      w[1] = -2 + 3 * a;
      w[2] = -2 + 3 * b;
      w[3] = a;
      return;
    default:
      fail("axis_taps: derivative order must be 0, 1 or 2");
  }
}

AxisTaps axis_taps(Mode mode, std::int64_t n, double x, int order) {
  const double fl = std::floor(x);
  double w[4];
  cell_tap_values(x - fl, order, w);
  const auto cell = static_cast<std::int64_t>(fl);
  AxisTaps taps;
  for (int t = 0; t < 4; ++t) {
    const std::int64_t k = bspline::fold_index(static_cast<int>(mode), cell + t - 1, n);
    int j = 0;
    while (j < taps.count && taps.node[j] != k) ++j;
    if (j == taps.count) {
      taps.node[j] = k;
      taps.weight[j] = 0;
      ++taps.count;
    }
    taps.weight[j] += w[t];
  }
  return taps;
}

AxisPattern AxisPattern::make(Mode mode, std::int64_t n) {
  AxisPattern p;
  p.n = n;
  p.offset.assign(static_cast<std::size_t>(n + 1), 0);
  for (std::int64_t k = 0; k < n; ++k) {
    std::int64_t list[7];
    for (int d = -3; d <= 3; ++d) list[d + 3] = bspline::fold_index(static_cast<int>(mode), k + d, n);
    std::sort(list, list + 7);
    const auto end = std::unique(list, list + 7);
    p.node.insert(p.node.end(), list, end);
    p.offset[k + 1] = static_cast<std::int64_t>(p.node.size());
  }
  return p;
}

int AxisPattern::position(std::int64_t k, std::int64_t k2) const {
  // A row away from the ends lists k - 3 .. k + 3 in order: k2 sits at k2 - k + 3. The
  // check keeps this exact for every row (a row's nodes are distinct), so only rows that
  // a boundary folds need the search.
  const std::int64_t guess = k2 - k + 3;
  if (guess >= 0 && guess < offset[k + 1] - offset[k] && node[offset[k] + guess] == k2) return static_cast<int>(guess);
  for (std::int64_t j = offset[k]; j < offset[k + 1]; ++j)
    if (node[j] == k2) return static_cast<int>(j - offset[k]);
  fail("AxisPattern: nodes " + std::to_string(k) + " and " + std::to_string(k2) + " do not couple");
}

}  // namespace splinebench::scattered
