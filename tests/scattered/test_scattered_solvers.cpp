// The CPU f64 solvers against the oracle: each converges where it should, to within the
// bound its residual gives (||c - c*|| / ||c*|| <= cond(A) relres, cond from a dense
// eigen-decomposition of these small systems); undamped Jacobi's divergence in 3-D is
// reported as a status with a finite iterate.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/SparseCholesky>

#include "splinebench/datasets.hpp"
#include "splinebench/error.hpp"
#include "splinebench/scattered/assembly.hpp"
#include "splinebench/scattered/condition.hpp"
#include "splinebench/scattered/metrics.hpp"
#include "splinebench/scattered/multigrid.hpp"
#include "splinebench/scattered/reference.hpp"
#include "splinebench/scattered/solvers.hpp"

namespace sb = splinebench;
namespace sc = splinebench::scattered;

namespace {

std::vector<double> smooth_field(const sb::GridShape& grid, std::uint64_t seed) {
  const std::vector<float> f = sb::datasets::make_field(sb::datasets::FieldKind::smooth, grid, 1, seed);
  return std::vector<double>(f.begin(), f.end());
}

struct Fixture {
  sb::GridShape grid;
  sb::Mode mode;
  sc::NormalEquations eq;
  sc::Vector exact;
  double cond = 0;
};

Fixture make_fixture(std::vector<std::int64_t> extents, sb::Mode mode, double fraction, double lambda, bool laplace,
                     bool dense_condition = true) {
  Fixture fx;
  fx.grid = sb::GridShape::make(extents);
  fx.mode = mode;
  const std::vector<double> field = smooth_field(fx.grid, 41);
  const auto nodes = laplace ? sc::select_top_laplacian(fx.grid, mode, field, fraction)
                             : sc::select_random(fx.grid, fraction, 5);
  fx.eq = sc::assemble(sc::problem_from_nodes(fx.grid, mode, field, nodes, lambda));
  const sc::ReferenceSolution ref = sc::solve_reference(fx.eq, fx.grid.dims);
  EXPECT_EQ(ref.report.status, sc::SolveStatus::converged) << ref.report.message;
  fx.exact = ref.coeffs;
  if (dense_condition) {
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(Eigen::MatrixXd(fx.eq.matrix), Eigen::EigenvaluesOnly);
    fx.cond = eig.eigenvalues().maxCoeff() / eig.eigenvalues().minCoeff();
  }
  return fx;
}

// ||c - c*|| / ||c*|| <= cond(A) * relres (+ the oracle's own error, far below).
void expect_within_residual_bound(const Fixture& fx, const sc::Vector& c, const sc::SolveReport& rep,
                                  const std::string& what) {
  const double err = (c - fx.exact).norm() / fx.exact.norm();
  EXPECT_LE(err, fx.cond * rep.relres + 1e-12) << what << ": cond " << fx.cond << " relres " << rep.relres;
}

sc::IterationControl to(double tolerance, int max_iterations) {
  sc::IterationControl c;
  c.tolerance = tolerance;
  c.max_iterations = max_iterations;
  return c;
}

class Solvers2D : public testing::TestWithParam<sb::Mode> {};

TEST_P(Solvers2D, EachConvergesToTheOracle) {
  // 32 x 16: multiples of 4 down to the coarsest multigrid level, so the multicolour
  // ordering is valid on every level in every mode.
  const Fixture fx = make_fixture({32, 16}, GetParam(), 0.3, 0.5, false);
  const sc::SparseMatrix& a = fx.eq.matrix;
  const sc::Vector& b = fx.eq.rhs;
  const int n = static_cast<int>(b.size());
  {
    sc::Vector x = sc::Vector::Zero(n);
    const auto rep = sc::conjugate_gradient(a, b, x, to(1e-12, 5000));
    EXPECT_EQ(rep.status, sc::SolveStatus::converged) << rep.message;
    EXPECT_EQ(static_cast<int>(rep.history.size()), rep.iterations);
    expect_within_residual_bound(fx, x, rep, "cg");
  }
  {
    sc::Vector x = sc::Vector::Zero(n);
    const auto rep = sc::jacobi(a, b, x, sc::jacobi_damping(a), to(1e-10, 200000));
    EXPECT_EQ(rep.status, sc::SolveStatus::converged) << rep.message;
    expect_within_residual_bound(fx, x, rep, "damped jacobi");
  }
  for (bool symmetric : {false, true}) {
    sc::Vector x = sc::Vector::Zero(n);
    const auto rep = sc::coloured_gauss_seidel(a, b, x, sc::colouring_multicolour(fx.grid, a), symmetric,
                                               to(1e-10, 100000));
    EXPECT_EQ(rep.status, sc::SolveStatus::converged) << rep.message;
    expect_within_residual_bound(fx, x, rep, symmetric ? "sgs_mc" : "gs_mc");
  }
  {
    sc::Vector x = sc::Vector::Zero(n);
    const auto rep = sc::gauss_seidel_lexicographic(a, b, x, false, to(1e-10, 100000));
    EXPECT_EQ(rep.status, sc::SolveStatus::converged) << rep.message;
    expect_within_residual_bound(fx, x, rep, "gs_lex");
  }
  {
    sc::Vector x = sc::Vector::Zero(n);
    const auto rep = sc::coloured_gauss_seidel(a, b, x, sc::colouring_seed_gs8x(fx.grid), false, to(1e-10, 100000));
    EXPECT_EQ(rep.status, sc::SolveStatus::converged) << rep.message;
    expect_within_residual_bound(fx, x, rep, "gs8x");
  }
  for (sc::Smoother smoother : {sc::Smoother::lexicographic, sc::Smoother::multicolour}) {
    const sc::Hierarchy h = sc::Hierarchy::build(fx.grid, fx.mode, a, -1, 16);
    EXPECT_GE(h.levels(), 3);
    const sc::VCycle cycle(h, fx.mode, smoother);
    sc::Vector x = sc::Vector::Zero(n);
    const auto rep = sc::mg_pcg(a, b, x, cycle, to(1e-12, 500));
    EXPECT_EQ(rep.status, sc::SolveStatus::converged) << rep.message;
    expect_within_residual_bound(fx, x, rep, "mg_pcg");
  }
}

INSTANTIATE_TEST_SUITE_P(Scattered, Solvers2D, testing::ValuesIn(sb::kAllModes),
                         [](const auto& info) { return std::string(sb::to_string(info.param)); });

TEST(Solvers, JacobiSpectralEstimateMatchesTheDenseEigenvalue) {
  const Fixture fx = make_fixture({12, 10}, sb::Mode::mirror, 0.3, 0.1, true);
  const Eigen::MatrixXd a = Eigen::MatrixXd(fx.eq.matrix);
  const Eigen::VectorXd s = a.diagonal().cwiseSqrt().cwiseInverse();
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(s.asDiagonal() * a * s.asDiagonal(), Eigen::EigenvaluesOnly);
  const double truth = eig.eigenvalues().maxCoeff();
  const double est = sc::jacobi_spectral_radius_estimate(fx.eq.matrix, 20);
  EXPECT_LE(est, truth * (1 + 1e-12));  // a Ritz value never exceeds it
  EXPECT_GE(est, 0.98 * truth);
}

// The condition estimate behind the error bound: Ritz values inside the spectrum (so kappa
// is never over-estimated) and close to its ends on the normal equations, 2-D and 3-D.
TEST(Solvers, ConditionEstimateMatchesTheDenseSpectrum) {
  for (const auto& [extents, lambda] : {std::pair<std::vector<std::int64_t>, double>{{24, 20}, 2.1},
                                        std::pair<std::vector<std::int64_t>, double>{{9, 8, 7}, 0.002}}) {
    const Fixture fx = make_fixture(extents, sb::Mode::mirror, 0.2, lambda, true);
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(Eigen::MatrixXd(fx.eq.matrix), Eigen::EigenvaluesOnly);
    const double top = eig.eigenvalues().maxCoeff(), bottom = eig.eigenvalues().minCoeff();
    Eigen::SimplicialLDLT<sc::SparseMatrix> ldlt(fx.eq.matrix);
    ASSERT_EQ(ldlt.info(), Eigen::Success);
    const sc::ConditionEstimate e =
        sc::estimate_condition(fx.eq.matrix, [&](const sc::Vector& b, sc::Vector& x) { x = ldlt.solve(b); }, 30);
    EXPECT_LE(e.lambda_max, top * (1 + 1e-10));
    EXPECT_GE(e.lambda_max, top * (1 - 1e-3));
    EXPECT_GE(e.lambda_min, bottom * (1 - 1e-10));
    EXPECT_LE(e.lambda_min, bottom * (1 + 1e-2));
    EXPECT_LE(e.kappa(), fx.cond * (1 + 1e-9));
    EXPECT_GE(e.kappa(), 0.98 * fx.cond) << "kappa " << fx.cond << " estimated " << e.kappa();
  }
  EXPECT_THROW(sc::estimate_condition(sc::SparseMatrix(), [](const sc::Vector&, sc::Vector&) {}), sb::Error);
}

TEST(Solvers, UndampedJacobiDivergesIn3DAndSaysSo) {
  // Top-20 % |Laplacian| of a smooth 3-D field at the seed's volume lambda.
  const Fixture fx = make_fixture({10, 10, 10}, sb::Mode::mirror, 0.2, 0.002, true, false);
  const double rho = sc::jacobi_spectral_radius_estimate(fx.eq.matrix);
  ASSERT_GT(rho, 2.0) << "lambda_max(D^-1 A) <= 2: undamped Jacobi would converge here";
  sc::Vector x = sc::Vector::Zero(fx.eq.rhs.size());
  const auto rep = sc::jacobi(fx.eq.matrix, fx.eq.rhs, x, 1.0, to(0, 1000));
  EXPECT_EQ(rep.status, sc::SolveStatus::diverged);
  EXPECT_LT(rep.iterations, 1000);
  EXPECT_NE(rep.message.find("diverged at iteration"), std::string::npos) << rep.message;
  EXPECT_TRUE(x.allFinite());
  EXPECT_TRUE(std::isfinite(rep.relres));
  // Damped by the Lanczos estimate it converges.
  sc::Vector y = sc::Vector::Zero(fx.eq.rhs.size());
  const auto damped = sc::jacobi(fx.eq.matrix, fx.eq.rhs, y, 1.0 / rho, to(0, 300));
  EXPECT_EQ(damped.status, sc::SolveStatus::max_iterations);
  ASSERT_FALSE(damped.history.empty());
  EXPECT_LT(damped.history.back(), 0.5 * damped.history.front());
  for (std::size_t i = 1; i < damped.history.size(); ++i) EXPECT_LE(damped.history[i], damped.history[i - 1] * (1 + 1e-12));
}

TEST(Solvers, MultigridPreconditioningCutsIterations) {
  // 65^2, top-20 % |Laplacian| at the seed's image lambda: plain CG needs hundreds of
  // iterations to 1e-10; a V-cycle preconditioner removes most of them.
  const Fixture fx = make_fixture({65, 65}, sb::Mode::mirror, 0.2, 2.1, true, false);
  const sc::SparseMatrix& a = fx.eq.matrix;
  sc::Vector x = sc::Vector::Zero(fx.eq.rhs.size());
  const auto cg = sc::conjugate_gradient(a, fx.eq.rhs, x, to(1e-10, 20000));
  ASSERT_EQ(cg.status, sc::SolveStatus::converged);
  const sc::Hierarchy h = sc::Hierarchy::build(fx.grid, fx.mode, a);
  const sc::VCycle cycle(h, fx.mode, sc::Smoother::lexicographic);
  sc::Vector y = sc::Vector::Zero(fx.eq.rhs.size());
  const auto pcg = sc::mg_pcg(a, fx.eq.rhs, y, cycle, to(1e-10, 2000));
  ASSERT_EQ(pcg.status, sc::SolveStatus::converged);
  RecordProperty("cg_iterations", cg.iterations);
  RecordProperty("mg_pcg_iterations", pcg.iterations);
  EXPECT_LE(pcg.iterations * 4, cg.iterations) << "mg_pcg " << pcg.iterations << " cg " << cg.iterations;
  EXPECT_LE((y - fx.exact).norm(), 1e-6 * fx.exact.norm());
}

TEST(Solvers, SeedMultigridRunsItsScheduleAndReducesTheResidual) {
  for (sb::Mode mode : sb::kAllModes) {
    const Fixture fx = make_fixture({33, 29}, mode, 0.2, 2.1, true, false);
    const sc::SeedMultigrid prm;  // Table 4's parameters
    const sc::Hierarchy h = sc::Hierarchy::build(fx.grid, mode, fx.eq.matrix, prm.p);
    ASSERT_EQ(h.levels(), 3);
    EXPECT_EQ(h.grid(1).extent[0], 17);
    EXPECT_EQ(h.grid(2).extent[1], 8);
    sc::Vector x;
    int seen = 0;
    const auto rep = sc::mg_seed(h, fx.eq.rhs, x, prm, [&](int, const sc::Vector&) { ++seen; });
    EXPECT_EQ(rep.iterations, prm.fine_iterations());
    EXPECT_EQ(seen, prm.fine_iterations());
    EXPECT_TRUE(x.allFinite());
    EXPECT_LT(rep.relres, 1e-2) << sb::to_string(mode);
    // At least as good as plain CG with the same number of fine iterations.
    sc::Vector y = sc::Vector::Zero(fx.eq.rhs.size());
    const auto cg = sc::conjugate_gradient(fx.eq.matrix, fx.eq.rhs, y, to(0, prm.fine_iterations()));
    EXPECT_LE((x - fx.exact).norm(), (y - fx.exact).norm() * 1.5) << sb::to_string(mode) << " cg relres " << cg.relres;
  }
}

TEST(Solvers, MulticolourOrderRefusesCoupledSameColours) {
  const sb::GridShape grid = sb::GridShape::make({10, 12});
  const sc::SparseMatrix periodic = sc::pattern_matrix(grid, sb::Mode::periodic);
  EXPECT_THROW(sc::colouring_multicolour(grid, periodic), sb::Unsupported);
  for (sb::Mode mode : {sb::Mode::mirror, sb::Mode::half})
    EXPECT_NO_THROW(sc::colouring_multicolour(grid, sc::pattern_matrix(grid, mode)));
}

TEST(Solvers, ZeroDiagonalIsSingularNotNaN) {
  sc::Problem p;
  p.grid = sb::GridShape::make({12});
  p.points = {1.5};
  p.values = {2.0};
  const sc::NormalEquations eq = sc::assemble(p);
  sc::Vector x = sc::Vector::Zero(12);
  EXPECT_EQ(sc::jacobi(eq.matrix, eq.rhs, x, 1.0, to(0, 10)).status, sc::SolveStatus::singular);
  EXPECT_EQ(sc::gauss_seidel_lexicographic(eq.matrix, eq.rhs, x, true, to(0, 10)).status, sc::SolveStatus::singular);
  EXPECT_TRUE(x.allFinite());
}

}  // namespace
