// The oracle's coefficients against a direct solve of the interpolation system, built
// here from the boundary rules alone (no code shared with the oracle), solved with Eigen
// in long double. This is what catches a wrong closed-form initialisation for short
// lines (SciPy had one: gh-24550), since the recursion is then wrong near both ends.
//
// The system: s(k) = (c[k-1] + 4 c[k] + c[k+1]) / 6 = f[k], k = 0..N-1, where the
// coefficients extend by the same rule as the samples, so an out-of-range neighbour index
// folds back into [0, N-1]:
//   mirror   (f[-k] = f[k], f[N-1+k] = f[N-1-k]): -1 -> 1,    N -> N-2
//   half     (f[-1-k] = f[k], f[N+k] = f[N-1-k]): -1 -> 0,    N -> N-1
//   periodic (f[k+N] = f[k]):                     -1 -> N-1,  N -> 0
// Short lines, where the folds collide:
//   N = 1: every rule maps both neighbours to 0: (1 + 4 + 1) c0 / 6 = f0, so c = f.
//          (mirror of a single sample is the constant sequence: period 1, not 2N-2 = 0.)
//   N = 2: mirror  rows (4 c0 + 2 c1)/6 = f0, (2 c0 + 4 c1)/6 = f1 (both neighbours of
//          each sample are the other sample);
//          periodic: the same system (a 2-periodic sequence is whole-sample symmetric);
//          half    rows (5 c0 + c1)/6 = f0, (c0 + 5 c1)/6 = f1 (each sample is its own
//          outer neighbour).
//   N = 3: mirror (4c0 + 2c1), (c0 + 4c1 + c2), (2c1 + 4c2); half (5c0 + c1), ...,
//          (c1 + 5c2); periodic (c2 + 4c0 + c1), ..., (c1 + 4c2 + c0) — all over 6.
// In D dimensions the system is the Kronecker product of the per-axis matrices (the
// spline is a tensor product), with 3^D non-zeros per row.
//
// Tolerance: the oracle's own coefficient bound (rounding_bounds.hpp) plus the error of
// the reference: each per-axis matrix is strictly diagonally dominant (4 vs 2), so LU has
// no growth and a backward error <= (3^D + 2) u_ld per row; its inverse (the exact
// prefilter) has l-inf norm 3 per axis, so the forward error is <= 3^D (3^D + 2) u_ld
// max|f|, u_ld = 2^-64 (x87 long double). Capped at the 1e-13 relative target.
#include <Eigen/Dense>
#include <Eigen/SparseLU>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/accuracy.hpp"
#include "common/printers.hpp"
#include "splinebench/oracle_batch.hpp"
#include "rounding_bounds.hpp"

using namespace splinebench;
using namespace splinebench::testing;

namespace {

using LD = long double;

// Index of neighbour k (k = -1 or N) folded into [0, N-1] by the rules listed above.
std::int64_t fold_neighbour(Mode mode, std::int64_t k, std::int64_t n) {
  if (k >= 0 && k < n) return k;
  if (n == 1) return 0;
  const bool below = k < 0;
  switch (mode) {
    case Mode::mirror: return below ? 1 : n - 2;
    case Mode::half: return below ? 0 : n - 1;
    case Mode::periodic: return below ? n - 1 : 0;
  }
  return -1;
}

// The 3 (column, weight) entries of row k of one axis' matrix; folded columns may repeat
// and then add up.
std::array<std::pair<std::int64_t, LD>, 3> row_entries(Mode mode, std::int64_t k, std::int64_t n) {
  return {{{fold_neighbour(mode, k - 1, n), LD(1) / 6},
           {k, LD(4) / 6},
           {fold_neighbour(mode, k + 1, n), LD(1) / 6}}};
}

// Sparse interpolation matrix of the whole grid (points x points).
Eigen::SparseMatrix<LD> interpolation_matrix(const GridShape& shape, Mode mode) {
  const std::int64_t P = shape.points();
  std::vector<Eigen::Triplet<LD>> triplets;
  std::int64_t index[kMaxDims];
  for (std::int64_t p = 0; p < P; ++p) {
    unravel(shape, p, index);
    // Odometer over the 3^D neighbour combinations.
    int pick[kMaxDims] = {};
    while (true) {
      LD w = 1;
      std::int64_t col = 0;
      for (int d = 0; d < shape.dims; ++d) {
        const auto [j, wd] = row_entries(mode, index[d], shape.extent[d])[pick[d]];
        w *= wd;
        col = col * shape.extent[d] + j;
      }
      triplets.emplace_back(static_cast<int>(p), static_cast<int>(col), w);  // duplicates are summed
      int d = shape.dims - 1;
      while (d >= 0 && ++pick[d] == 3) pick[d--] = 0;
      if (d < 0) break;
    }
  }
  Eigen::SparseMatrix<LD> a(P, P);
  a.setFromTriplets(triplets.begin(), triplets.end());
  return a;
}

// Coefficients by a direct solve, same layout as the samples (points x channels).
std::vector<LD> solve_directly(const GridShape& shape, Mode mode, const std::vector<double>& f) {
  const std::int64_t P = shape.points();
  const int C = shape.channels;
  using Matrix = Eigen::Matrix<LD, Eigen::Dynamic, Eigen::Dynamic>;
  Matrix rhs(P, C);
  for (std::int64_t p = 0; p < P; ++p)
    for (int c = 0; c < C; ++c) rhs(p, c) = f[p * C + c];
  const Eigen::SparseMatrix<LD> a = interpolation_matrix(shape, mode);
  Matrix x;
  if (P <= 64) {
    x = Matrix(a).partialPivLu().solve(rhs);
  } else {
    Eigen::SparseLU<Eigen::SparseMatrix<LD>> lu;
    lu.compute(a);
    EXPECT_EQ(lu.info(), Eigen::Success) << "SparseLU failed: " << lu.lastErrorMessage();
    x = lu.solve(rhs);
  }
  std::vector<LD> out(static_cast<std::size_t>(P * C));
  for (std::int64_t p = 0; p < P; ++p)
    for (int c = 0; c < C; ++c) out[p * C + c] = x(p, c);
  return out;
}

void compare_with_direct_solve(const GridShape& shape, Mode mode, std::uint64_t seed) {
  const std::vector<double> f = random_values<double>(shape.values(), seed);
  std::vector<double> c = f;
  oracle::prefilter_f64(shape, 1, c.data(), mode);
  const std::vector<LD> ref = solve_directly(shape, mode, f);

  double error = 0;
  std::int64_t worst = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const double e = static_cast<double>(std::abs(static_cast<LD>(c[i]) - ref[i]));
    if (!(e <= error)) error = e, worst = static_cast<std::int64_t>(i);
  }
  const double max_ref = max_abs(ref);
  const double three_d = std::pow(3.0, shape.dims);
  const double ref_error = three_d * (three_d + 2) * kUnitRoundoff<LD> * max_abs(f);
  const double bound = coefficient_error_bound(pass_input_maxima(shape, f, mode), shape.dims) + ref_error;
  const double tolerance = std::min(bound, 1e-13 * max_ref);
  std::printf("[ measured ] %s %s C=%d: max|c - c_solve|/max|c| = %.3g, bound/max|c| = %.3g\n",
              std::string(to_string(mode)).c_str(), shape.to_string().c_str(), shape.channels,
              error / max_ref, bound / max_ref);
  EXPECT_LE(error, tolerance) << to_string(mode) << " " << shape.to_string() << " C=" << shape.channels
                              << ": worst at value " << worst << " (max|c| = " << max_ref << ")";
}

}  // namespace

class ExactSolve1D : public ::testing::TestWithParam<std::tuple<Mode, std::int64_t>> {};

TEST_P(ExactSolve1D, CoefficientsMatchDirectSolve) {
  const auto [mode, n] = GetParam();
  compare_with_direct_solve(GridShape::make({n}, 1), mode, 500 + n);
  compare_with_direct_solve(GridShape::make({n}, 2), mode, 600 + n);
}

INSTANTIATE_TEST_SUITE_P(AllModes, ExactSolve1D,
                         ::testing::Combine(::testing::Values(Mode::mirror, Mode::half, Mode::periodic),
                                            ::testing::Values(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 33,
                                                              200, 1001)),
                         [](const auto& info) {
                           return std::string(to_string(std::get<0>(info.param))) + "_N" +
                                  std::to_string(std::get<1>(info.param));
                         });

using ShapeCase = std::tuple<std::vector<std::int64_t>, int>;  // extents, channels
class ExactSolveND : public ::testing::TestWithParam<std::tuple<Mode, ShapeCase>> {};

// The Kronecker system checks the axis order, strides and channel handling of the
// multi-D prefilter, not only the 1-D recursion.
TEST_P(ExactSolveND, CoefficientsMatchDirectSolve) {
  const auto [mode, shape_case] = GetParam();
  const GridShape shape = GridShape::make(std::get<0>(shape_case), std::get<1>(shape_case));
  compare_with_direct_solve(shape, mode, 700 + shape.values());
}

INSTANTIATE_TEST_SUITE_P(
    AllModes, ExactSolveND,
    ::testing::Combine(::testing::Values(Mode::mirror, Mode::half, Mode::periodic),
                       ::testing::Values(ShapeCase{{5, 3}, 1}, ShapeCase{{2, 7}, 2}, ShapeCase{{1, 4}, 4},
                                         ShapeCase{{13, 11}, 1}, ShapeCase{{4, 1, 3}, 2},
                                         ShapeCase{{3, 2, 5}, 1}, ShapeCase{{6, 5, 7}, 1},
                                         ShapeCase{{2, 3, 2, 3}, 2}, ShapeCase{{3, 2, 1, 2, 3}, 1},
                                         ShapeCase{{2, 2, 3, 2, 2, 3}, 1})),
    [](const auto& info) {
      const ShapeCase& sc = std::get<1>(info.param);
      return std::string(to_string(std::get<0>(info.param))) + "_" +
             GridShape::make(std::get<0>(sc), std::get<1>(sc)).to_string() + "_C" +
             std::to_string(std::get<1>(sc));
    });
