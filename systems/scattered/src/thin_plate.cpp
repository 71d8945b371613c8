#include "splinebench/scattered/thin_plate.hpp"

#include "splinebench/error.hpp"

namespace splinebench::scattered {

namespace {
// 4-point Gauss-Legendre on [0, 1]: exact for polynomials of degree <= 7.
constexpr double kGaussNode[4] = {0.5 - 0.4305681557970262876, 0.5 - 0.1699905217924281324,
                                  0.5 + 0.1699905217924281324, 0.5 + 0.4305681557970262876};
constexpr double kGaussWeight[4] = {0.1739274225687269287, 0.3260725774312730713, 0.3260725774312730713,
                                    0.1739274225687269287};
}  // namespace

AxisIntegrals AxisIntegrals::make(Mode mode, const AxisPattern& pattern) {
  AxisIntegrals out;
  const std::int64_t n = pattern.n;
  for (int p = 0; p < 3; ++p) {
    auto& t = out.table[p];
    t.assign(pattern.node.size(), 0.0);
    for (std::int64_t cell = 0; cell + 1 < n; ++cell)
      for (int g = 0; g < 4; ++g) {
        const AxisTaps taps = axis_taps(mode, n, static_cast<double>(cell) + kGaussNode[g], p);
        for (int a = 0; a < taps.count; ++a)
          for (int b = 0; b < taps.count; ++b)
            t[pattern.offset[taps.node[a]] + pattern.position(taps.node[a], taps.node[b])] +=
                kGaussWeight[g] * taps.weight[a] * taps.weight[b];
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
