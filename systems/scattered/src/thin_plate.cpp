#include "splinebench/scattered/thin_plate.hpp"

#include "splinebench/bspline_math.hpp"
#include "splinebench/error.hpp"
#include "splinebench/scattered/basis.hpp"

namespace splinebench::scattered {

namespace {
// 4-point Gauss-Legendre on [0, 1]: exact for polynomials of degree <= 7.
constexpr double kGaussNode[4] = {0.5 - 0.4305681557970262876, 0.5 - 0.1699905217924281324,
                                  0.5 + 0.1699905217924281324, 0.5 + 0.4305681557970262876};
constexpr double kGaussWeight[4] = {0.1739274225687269287, 0.3260725774312730713, 0.3260725774312730713,
                                    0.1739274225687269287};
}  // namespace

std::array<std::array<double, 4>, 4> cell_products(int order, double width) {
  std::array<std::array<double, 4>, 4> m{};
  for (int g = 0; g < 4; ++g) {
    double w[4];
    cell_tap_values(width * kGaussNode[g], order, w);
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) m[a][b] += width * kGaussWeight[g] * w[a] * w[b];
  }
  return m;
}

AxisIntegrals AxisIntegrals::make(Mode mode, const AxisPattern& pattern) {
  AxisIntegrals out;
  const std::int64_t n = pattern.n;
  for (int p = 0; p < 3; ++p) {
    auto& t = out.table[p];
    t.assign(pattern.node.size(), 0.0);
    const auto cell = cell_products(p);
    for (std::int64_t c = 0; c + 1 < n; ++c) {
      std::int64_t k[4];
      for (int a = 0; a < 4; ++a) k[a] = bspline::fold_index(static_cast<int>(mode), c + a - 1, n);
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) t[pattern.offset[k[a]] + pattern.position(k[a], k[b])] += cell[a][b];
    }
  }
  return out;
}

std::vector<ThinPlateTerm> thin_plate_terms(int dims) {
  std::vector<ThinPlateTerm> terms;
  for (int a = 0; a < dims; ++a)
    for (int b = a; b < dims; ++b) {
      ThinPlateTerm term;
      ++term.order[a];
      ++term.order[b];
      term.weight = a == b ? 1.0 : 2.0;  // 2 / alpha!: alpha! = 2 for a pure second derivative, 1 for a mixed one
      terms.push_back(term);
    }
  if (terms.empty()) fail("thin_plate_terms: dims must be >= 1");
  return terms;
}

}  // namespace splinebench::scattered
