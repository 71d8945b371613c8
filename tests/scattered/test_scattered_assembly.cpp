// The assembly of (F^T F + lambda R, F^T f) against its definition: a dense matrix built
// from the suite's evaluator (F) and from the explicit centred B-spline and its images
// (R), and the interior thin-plate tables against the published Toeplitz values.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include <Eigen/Dense>

#include "splinebench/bspline_math.hpp"
#include "splinebench/oracle.hpp"
#include "splinebench/scattered/assembly.hpp"
#include "splinebench/scattered/basis.hpp"
#include "splinebench/scattered/thin_plate.hpp"

namespace sb = splinebench;
namespace sc = splinebench::scattered;

namespace {

// Centred cubic B-spline and its first two derivatives, piece by piece.
double beta(double t, int order) {
  const double a = std::abs(t);
  const double sign = t < 0 ? -1.0 : 1.0;
  if (a >= 2) return 0;
  if (a < 1) {
    if (order == 0) return 2.0 / 3 - a * a + a * a * a / 2;
    if (order == 1) return sign * (-2 * a + 1.5 * a * a);
    return -2 + 3 * a;
  }
  const double b = 2 - a;
  if (order == 0) return b * b * b / 6;
  if (order == 1) return -sign * b * b / 2;
  return b;
}

// B_k^(order)(x) on a folded line: the sum over every integer image j of k.
double folded_basis(sb::Mode mode, std::int64_t n, std::int64_t k, double x, int order) {
  double sum = 0;
  for (std::int64_t j = -4 * n - 8; j <= 5 * n + 8; ++j)
    if (sb::bspline::fold_index(static_cast<int>(mode), j, n) == k) sum += beta(x - static_cast<double>(j), order);
  return sum;
}

// 5-point Gauss-Legendre on [0, 1] (exact to degree 9; the integrands have degree 6).
constexpr double kNode[5] = {0.5 - 0.4530899229693320, 0.5 - 0.2692346550528415, 0.5,
                             0.5 + 0.2692346550528415, 0.5 + 0.4530899229693320};
constexpr double kWeight[5] = {0.1184634425280945, 0.2393143352496832, 0.2844444444444444, 0.2393143352496832,
                               0.1184634425280945};

// T_p of one axis as a dense matrix, from the definition.
Eigen::MatrixXd dense_integral(sb::Mode mode, std::int64_t n, int order) {
  Eigen::MatrixXd t = Eigen::MatrixXd::Zero(n, n);
  for (std::int64_t cell = 0; cell + 1 < n; ++cell)
    for (int g = 0; g < 5; ++g) {
      const double x = static_cast<double>(cell) + kNode[g];
      Eigen::VectorXd v(n);
      for (std::int64_t k = 0; k < n; ++k) v[k] = folded_basis(mode, n, k, x, order);
      t += kWeight[g] * v * v.transpose();
    }
  return t;
}

sc::Problem random_problem(const sb::GridShape& grid, sb::Mode mode, std::int64_t n, double lambda, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  sc::Problem p;
  p.grid = grid;
  p.mode = mode;
  p.lambda = lambda;
  p.points.resize(static_cast<std::size_t>(grid.dims * n));
  p.values.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    p.values[i] = std::uniform_real_distribution<double>(-1, 1)(rng);
    for (int d = 0; d < grid.dims; ++d) {
      const double top = static_cast<double>(grid.extent[d] - 1);
      // Every fourth sample on a node or on the upper edge: the taps of a = 0 and x = N-1.
      double x = std::uniform_real_distribution<double>(0, top)(rng);
      if (i % 4 == 1) x = std::floor(x);
      if (i % 8 == 3) x = top;
      p.points[d * n + i] = x;
    }
  }
  return p;
}

// F^T F + lambda R and F^T f, dense, from the definition: F from the suite's evaluator
// (oracle::evaluate_point on unit coefficient vectors), R as kron sums of dense_integral.
void dense_system(const sc::Problem& p, Eigen::MatrixXd& a, Eigen::VectorXd& b) {
  const std::int64_t m = p.grid.points();
  const std::int64_t n = p.samples();
  Eigen::MatrixXd f(n, m);
  std::vector<double> unit(static_cast<std::size_t>(m), 0.0);
  double x[3];
  for (std::int64_t k = 0; k < m; ++k) {
    unit[k] = 1;
    for (std::int64_t i = 0; i < n; ++i) {
      for (int d = 0; d < p.grid.dims; ++d) x[d] = p.coordinate(d, i);
      sb::oracle::evaluate_point<double>(p.grid, unit.data(), p.mode, x, &f(i, k));
    }
    unit[k] = 0;
  }
  const Eigen::VectorXd values = Eigen::Map<const Eigen::VectorXd>(p.values.data(), n);
  a = f.transpose() * f;
  b = f.transpose() * values;
  if (p.lambda == 0) return;
  if (p.grid.dims == 1) {
    a += p.lambda * dense_integral(p.mode, p.grid.extent[0], 2);
    return;
  }
  ASSERT_EQ(p.grid.dims, 2);
  // J = s_xx^2 + 2 s_xy^2 + s_yy^2; row index k0 * N1 + k1 (C order): kron(T(axis 0), T(axis 1)).
  Eigen::MatrixXd t0[3], t1[3];
  for (int o = 0; o < 3; ++o) {
    t0[o] = dense_integral(p.mode, p.grid.extent[0], o);
    t1[o] = dense_integral(p.mode, p.grid.extent[1], o);
  }
  auto kron = [](const Eigen::MatrixXd& u, const Eigen::MatrixXd& v) {
    Eigen::MatrixXd out(u.rows() * v.rows(), u.cols() * v.cols());
    for (Eigen::Index i = 0; i < u.rows(); ++i)
      for (Eigen::Index j = 0; j < u.cols(); ++j) out.block(i * v.rows(), j * v.cols(), v.rows(), v.cols()) = u(i, j) * v;
    return out;
  };
  a += p.lambda * (kron(t0[2], t1[0]) + 2 * kron(t0[1], t1[1]) + kron(t0[0], t1[2]));
}

struct Case {
  std::vector<std::int64_t> extents;
  sb::Mode mode;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << sb::to_string(c.mode);
  for (auto e : c.extents) *os << " " << e;
}

std::string case_name(const testing::TestParamInfo<Case>& info) {
  std::string s = std::string(sb::to_string(info.param.mode));
  for (auto e : info.param.extents) s += "_" + std::to_string(e);
  return s;
}

std::vector<Case> small_cases() {
  std::vector<Case> out;
  for (sb::Mode mode : sb::kAllModes) {
    for (std::int64_t n : {1, 2, 3, 4, 5, 7, 8, 12}) out.push_back({{n}, mode});
    for (auto e : std::vector<std::vector<std::int64_t>>{{1, 5}, {2, 3}, {4, 4}, {5, 7}, {8, 6}, {3, 12}})
      out.push_back({e, mode});
  }
  return out;
}

class DenseAssembly : public testing::TestWithParam<Case> {};

TEST_P(DenseAssembly, MatchesTheDefinition) {
  const Case& c = GetParam();
  const sb::GridShape grid = sb::GridShape::make(c.extents);
  for (double lambda : {0.0, 0.7}) {
    const sc::Problem p = random_problem(grid, c.mode, 3 * grid.points() + 5, lambda, 17 + grid.points());
    const sc::NormalEquations eq = sc::assemble(p);
    Eigen::MatrixXd a;
    Eigen::VectorXd b;
    dense_system(p, a, b);
    const Eigen::MatrixXd sparse = Eigen::MatrixXd(eq.matrix);
    const double scale = a.cwiseAbs().maxCoeff();
    // Both sides sum the same few hundred products in f64 in different orders.
    EXPECT_LE((sparse - a).cwiseAbs().maxCoeff(), 1e-13 * scale) << "lambda " << lambda;
    EXPECT_LE((eq.rhs - b).cwiseAbs().maxCoeff(), 1e-13 * b.cwiseAbs().maxCoeff()) << "lambda " << lambda;
    // Symmetric to the last bit? Not required, but within rounding.
    EXPECT_LE((sparse - sparse.transpose()).cwiseAbs().maxCoeff(), 1e-14 * scale);
  }
}

INSTANTIATE_TEST_SUITE_P(Scattered, DenseAssembly, testing::ValuesIn(small_cases()), case_name);

TEST(ThinPlateTables, InteriorRowsAreTheSeedsToeplitzTables) {
  const double expected[3][4] = {{2416.0 / 5040, 1191.0 / 5040, 120.0 / 5040, 1.0 / 5040},
                                 {2.0 / 3, -1.0 / 8, -1.0 / 5, -1.0 / 120},
                                 {8.0 / 3, -1.5, 0.0, 1.0 / 6}};
  for (sb::Mode mode : sb::kAllModes) {
    const std::int64_t n = 20;
    const sc::AxisPattern pattern = sc::AxisPattern::make(mode, n);
    const sc::AxisIntegrals t = sc::AxisIntegrals::make(mode, pattern);
    // Rows 5..14: B_k and its neighbours' supports lie inside [0, N-1] (periodic: all rows).
    for (std::int64_t k = 5; k < 15; ++k)
      for (int p = 0; p < 3; ++p)
        for (int off = -3; off <= 3; ++off) {
          const double v = t.table[p][pattern.offset[k] + pattern.position(k, k + off)];
          EXPECT_NEAR(v, expected[p][std::abs(off)], 1e-15) << sb::to_string(mode) << " T" << p << " row " << k;
        }
  }
}

TEST(ThinPlate, AnnihilatesConstantsAndInteriorLinearFunctions) {
  for (sb::Mode mode : sb::kAllModes)
    for (auto extents : std::vector<std::vector<std::int64_t>>{{16}, {12, 14}, {10, 11, 12}}) {
      const sb::GridShape grid = sb::GridShape::make(extents);
      sc::SparseMatrix r = sc::pattern_matrix(grid, mode);
      sc::add_thin_plate(grid, mode, 1.0, r);
      const double scale = Eigen::MatrixXd(r).cwiseAbs().maxCoeff();
      const sc::Vector ones = sc::Vector::Ones(grid.points());
      EXPECT_LE((r * ones).cwiseAbs().maxCoeff(), 1e-13 * scale) << sb::to_string(mode) << " " << grid.to_string();
      // c_k = a + g . k reproduces a linear s on the interior: (R c)_k vanishes on rows
      // whose B_k support sees no folded coefficient (3 <= k_d <= N_d - 4 on every axis).
      sc::Vector c(grid.points());
      for (std::int64_t k = 0; k < grid.points(); ++k) {
        double v = 0.3;
        for (int d = 0; d < grid.dims; ++d) v += (0.7 + d) * static_cast<double>((k / grid.stride(d)) % grid.extent[d]);
        c[k] = v;
      }
      const sc::Vector rc = r * c;
      int interior = 0;
      for (std::int64_t k = 0; k < grid.points(); ++k) {
        bool inside = true;
        for (int d = 0; d < grid.dims; ++d) {
          const std::int64_t i = (k / grid.stride(d)) % grid.extent[d];
          inside = inside && i >= 3 && i <= grid.extent[d] - 4;
        }
        if (!inside) continue;
        ++interior;
        EXPECT_LE(std::abs(rc[k]), 1e-12 * scale * c.cwiseAbs().maxCoeff()) << "row " << k;
      }
      EXPECT_GT(interior, 0);
      // Positive semi-definite: c^T R c >= 0 for random c.
      std::mt19937_64 rng(3);
      sc::Vector z(grid.points());
      for (auto& v : z) v = std::uniform_real_distribution<double>(-1, 1)(rng);
      EXPECT_GT(z.dot(r * z), 0.0);
    }
}

TEST(AxisTaps, MergeFoldedTapsAndSumToOne) {
  for (sb::Mode mode : sb::kAllModes)
    for (std::int64_t n : {1, 2, 3, 9})
      for (double x : {0.0, 0.25, 0.5, static_cast<double>(n - 1)}) {
        if (x > static_cast<double>(n - 1)) continue;
        const sc::AxisTaps t = sc::axis_taps(mode, n, x);
        double sum = 0;
        for (int i = 0; i < t.count; ++i) {
          sum += t.weight[i];
          for (int j = 0; j < i; ++j) EXPECT_NE(t.node[i], t.node[j]);
          EXPECT_NEAR(t.weight[i], folded_basis(mode, n, t.node[i], x, 0), 1e-15);
        }
        EXPECT_NEAR(sum, 1.0, 1e-15);
        for (int order = 1; order <= 2; ++order) {
          const sc::AxisTaps d = sc::axis_taps(mode, n, x + 0.125 < n - 1 ? x + 0.125 : x, order);
          for (int i = 0; i < d.count; ++i)
            EXPECT_NEAR(d.weight[i], folded_basis(mode, n, d.node[i], x + 0.125 < n - 1 ? x + 0.125 : x, order), 1e-14);
        }
      }
}

}  // namespace
