// Coefficient families of the experiment. The seed's coefficients (fitted by a genetic
// algorithm) are not published, so the timing runs use these; timing does not depend on
// the values, accuracy does through the loop gain sum |b|.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "splinebench/iir2d/filter.hpp"

namespace splinebench::iir2d {

// b(k, l) proportional to exp(-(k^2 + l^2) / (2 (M/3)^2)), b(0, 0) = 0, scaled so that
// sum |b| = gain (0.9 by default: ||y||_inf <= ||x||_inf / (1 - 0.9)). M = 1: no terms.
Window gauss_window(int M, double gain = 0.9);

// Uniform(-1, 1) coefficients from `seed`, b(0, 0) = 0, scaled to sum |b| = gain.
Window random_window(int M, std::uint64_t seed, double gain = 0.95);

// The product of two stable AR(M - 1) denominators: 1 - sum b(k, l) z1^-k z2^-l =
// A(z1) A(z2) with A(z) = prod_r (1 - p_r z^-1), poles cycling through 0.5, -0.5, 0.25,
// -0.25. The filter is then the 1-D recursion 1/A along j followed by the one along i.
// The coefficients are dyadic with few bits, so b is exact in float for M <= 9 (the
// check's range); sum |b| exceeds 1 for M >= 3 (stable all the same: the poles are
// inside the unit circle), so this family is for the exact check, not for accuracy.
struct SeparableWindow {
  Window window;
  std::vector<double> ar;  // a[1..M-1]: y[n] = x[n] + sum_m a[m] y[n - m] (a[0] unused, 0)
};
SeparableWindow separable_window(int M);

// M = 2, b(1, 0) = p, b(0, 1) = q, b(1, 1) = -p q: the impulse response is p^i q^j.
Window impulse_pq_window(double p, double q);

// M = 2, b(1,0) = b(0,1) = z, b(1,1) = -z^2 with z = sqrt(3) - 2: with input 36 f this is
// the causal-causal quadrant of the 2-D cubic B-spline prefilter started from zero.
Window bspline_quadrant_window();

// By name ("gauss", "random", "separable", "bspline_quadrant"); throws on others.
Window make_window(const std::string& family, int M, std::uint64_t seed);
const std::vector<std::string>& family_names();

}  // namespace splinebench::iir2d
