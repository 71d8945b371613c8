// The thin-plate energy on the folded spline space.
//
//   J(s) = integral over prod_d [0, N_d - 1] of sum_{|alpha| = 2} (2 / alpha!) (d^alpha s)^2
//
// (weights 1, 2, 1 in 2-D for xx, xy, yy; 1, 1, 1, 2, 2, 2 in 3-D; s''^2 in 1-D), so
// J(s) = c^T R c with R = sum_alpha (2 / alpha!) kron_d T_{alpha_d}, where
//   T_p[k, k'] = integral_0^{N-1} B_k^(p)(x) B_k'^(p)(x) dx   (p = 0, 1, 2)
// is exact: on each unit interval the integrand is a polynomial of degree <= 6, which
// 4-point Gauss-Legendre integrates exactly. Interior rows (all images away from the
// ends) equal the Toeplitz tables at offsets 0..3:
//   T0 = (2416, 1191, 120, 1) / 5040,  T1 = (2/3, -1/8, -1/5, -1/120),  T2 = (8/3, -3/2, 0, 1/6).
#pragma once

#include <array>
#include <vector>

#include "splinebench/scattered/basis.hpp"

namespace splinebench::scattered {

// T_0, T_1, T_2 of one axis, each aligned with pattern.node (value of entry (k, node[j])
// at j in [offset[k], offset[k+1])). A line of one node (n = 1) has a domain of length 0
// and all-zero tables.
// The integrals over [0, width] of a cell (0 < width <= 1) of the products of its four
// taps' order-th derivatives: entry [t][t'] = int_0^width B_t^(p) B_t'^(p) (4-point
// Gauss-Legendre: exact, the integrand is a polynomial of degree <= 6). Every whole cell
// of a line has the same table; folding only decides which nodes its entries land on.
std::array<std::array<double, 4>, 4> cell_products(int order, double width = 1.0);

struct AxisIntegrals {
  std::array<std::vector<double>, 3> table;
  static AxisIntegrals make(Mode mode, const AxisPattern& pattern);
};

// The multi-indices alpha with |alpha| = 2 in `dims` dimensions as per-axis derivative
// orders, each with its weight 2 / alpha!.
struct ThinPlateTerm {
  std::array<int, 3> order{0, 0, 0};
  double weight = 0;
};
std::vector<ThinPlateTerm> thin_plate_terms(int dims);

}  // namespace splinebench::scattered
