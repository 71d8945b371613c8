// The f64 oracle of scattered reconstruction, checked against what it must reduce to:
// the prefilter oracle (lambda = 0, one sample per node), constants, exact splines; and
// its refusals (bad input, singular systems).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "splinebench/error.hpp"
#include "splinebench/oracle.hpp"
#include "splinebench/scattered/assembly.hpp"
#include "splinebench/scattered/metrics.hpp"
#include "splinebench/scattered/reference.hpp"

namespace sb = splinebench;
namespace sc = splinebench::scattered;

namespace {

std::vector<double> random_values(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = std::uniform_real_distribution<double>(-1, 1)(rng);
  return v;
}

std::vector<std::int64_t> all_nodes(const sb::GridShape& grid) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(grid.points()));
  for (std::int64_t k = 0; k < grid.points(); ++k) v[k] = k;
  return v;
}

// `per_cell` uniform random samples in every unit cell (and the nodes themselves), so F
// has full column rank and lambda = 0 is well posed.
sc::Problem dense_random_problem(const sb::GridShape& grid, sb::Mode mode, int per_cell, double lambda,
                                 const std::vector<double>& coeffs_or_empty, double constant, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int D = grid.dims;
  std::vector<std::vector<double>> pts(static_cast<std::size_t>(D));
  auto add = [&](const double* x) {
    for (int d = 0; d < D; ++d) pts[d].push_back(x[d]);
  };
  double x[3];
  for (std::int64_t k = 0; k < grid.points(); ++k) {
    for (int d = 0; d < D; ++d) x[d] = static_cast<double>((k / grid.stride(d)) % grid.extent[d]);
    add(x);
    for (int s = 0; s < per_cell; ++s) {
      bool ok = true;
      double y[3];
      for (int d = 0; d < D; ++d) {
        y[d] = x[d] + std::uniform_real_distribution<double>(0, 1)(rng);
        ok = ok && y[d] <= static_cast<double>(grid.extent[d] - 1);
      }
      if (ok) add(y);
    }
  }
  sc::Problem p;
  p.grid = grid;
  p.mode = mode;
  p.lambda = lambda;
  const std::size_t n = pts[0].size();
  for (int d = 0; d < D; ++d) p.points.insert(p.points.end(), pts[d].begin(), pts[d].end());
  p.values.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (coeffs_or_empty.empty()) {
      p.values[i] = constant;
      continue;
    }
    for (int d = 0; d < D; ++d) x[d] = pts[d][i];
    sb::oracle::evaluate_point<double>(grid, coeffs_or_empty.data(), mode, x, &p.values[i]);
  }
  return p;
}

std::vector<std::vector<std::int64_t>> prefilter_shapes() {
  std::vector<std::vector<std::int64_t>> out;
  for (std::int64_t n = 1; n <= 8; ++n) out.push_back({n});
  out.push_back({64});
  for (std::int64_t n = 1; n <= 8; ++n) out.push_back({n, 9 - n});
  out.push_back({64, 64});
  for (std::int64_t n = 1; n <= 6; ++n) out.push_back({n, 7 - n, n == 3 ? 8 : n});
  out.push_back({12, 12, 12});
  return out;
}

TEST(ScatteredReference, OneSamplePerNodeAtLambdaZeroIsThePrefilter) {
  for (sb::Mode mode : sb::kAllModes)
    for (const auto& extents : prefilter_shapes()) {
      const sb::GridShape grid = sb::GridShape::make(extents);
      const std::vector<double> field = random_values(grid.points(), 99 + grid.points());
      const sc::Problem p = sc::problem_from_nodes(grid, mode, field, all_nodes(grid), 0.0);
      const sc::ReferenceSolution sol = sc::solve_reference(sc::assemble(p), grid.dims);
      ASSERT_EQ(sol.report.status, sc::SolveStatus::converged) << sol.report.message;
      std::vector<double> expected = field;
      sb::oracle::prefilter<double>(grid, 1, expected.data(), mode);
      double err = 0, scale = 0;
      for (std::int64_t k = 0; k < grid.points(); ++k) {
        err = std::max(err, std::abs(sol.coeffs[k] - expected[k]));
        scale = std::max(scale, std::abs(expected[k]));
      }
      // The interpolation matrix has condition <= 3 per axis, so F^T F at most 9^D: the
      // LDL^T solve is accurate to a few hundred ulps of the coefficients.
      EXPECT_LE(err, 1e-12 * scale) << sb::to_string(mode) << " " << grid.to_string();
    }
}

TEST(ScatteredReference, ConstantDataGivesAConstantSpline) {
  for (sb::Mode mode : sb::kAllModes)
    for (const auto& extents : std::vector<std::vector<std::int64_t>>{{9}, {7, 6}, {5, 4, 6}})
      for (double lambda : {0.0, 0.5, 20.0}) {
        const sb::GridShape grid = sb::GridShape::make(extents);
        const sc::Problem p = dense_random_problem(grid, mode, 2, lambda, {}, 3.75, 5);
        const sc::ReferenceSolution sol = sc::solve_reference(sc::assemble(p), grid.dims);
        ASSERT_EQ(sol.report.status, sc::SolveStatus::converged) << sol.report.message;
        EXPECT_LE((sol.coeffs.array() - 3.75).abs().maxCoeff(), 1e-12 * 3.75)
            << sb::to_string(mode) << " " << grid.to_string() << " lambda " << lambda;
      }
}

TEST(ScatteredReference, SplineDataAtLambdaZeroGivesBackItsCoefficients) {
  for (sb::Mode mode : sb::kAllModes)
    for (const auto& extents : std::vector<std::vector<std::int64_t>>{{13}, {9, 8}, {6, 5, 7}}) {
      const sb::GridShape grid = sb::GridShape::make(extents);
      const std::vector<double> c_true = random_values(grid.points(), 7);
      const sc::Problem p = dense_random_problem(grid, mode, 4, 0.0, c_true, 0, 11);
      const sc::ReferenceSolution sol = sc::solve_reference(sc::assemble(p), grid.dims);
      ASSERT_EQ(sol.report.status, sc::SolveStatus::converged) << sol.report.message;
      double err = 0;
      for (std::int64_t k = 0; k < grid.points(); ++k) err = std::max(err, std::abs(sol.coeffs[k] - c_true[k]));
      EXPECT_LE(err, 1e-10) << sb::to_string(mode) << " " << grid.to_string() << " pivot ratio " << sol.pivot_ratio;
      EXPECT_LE(sc::rms_at_samples(p, std::vector<double>(sol.coeffs.data(), sol.coeffs.data() + sol.coeffs.size())),
                1e-11);
    }
}

TEST(ScatteredReference, DirectAndConjugateGradientAgree) {
  for (sb::Mode mode : sb::kAllModes) {
    const sb::GridShape grid = sb::GridShape::make({24, 20});
    const std::vector<double> field = random_values(grid.points(), 21);
    const sc::Problem p = sc::problem_from_nodes(grid, mode, field, sc::select_random(grid, 0.3, 4), 0.3);
    const sc::NormalEquations eq = sc::assemble(p);
    const sc::ReferenceSolution direct = sc::solve_reference(eq, 2);
    sc::ReferenceOptions cg;
    cg.direct_max_unknowns = 1;
    const sc::ReferenceSolution iterative = sc::solve_reference(eq, 2, cg);
    ASSERT_EQ(direct.method, "ldlt");
    ASSERT_EQ(iterative.method, "cg");
    ASSERT_EQ(iterative.report.status, sc::SolveStatus::converged) << iterative.report.message;
    EXPECT_LE(iterative.report.relres, 1e-12);
    EXPECT_LE((direct.coeffs - iterative.coeffs).norm(), 1e-10 * direct.coeffs.norm()) << sb::to_string(mode);
    // The multigrid-preconditioned path (grid and mode given) lands on the same solution.
    const sc::ReferenceSolution mg = sc::solve_reference(eq, grid, mode, cg);
    ASSERT_EQ(mg.method, "mg_pcg");
    ASSERT_EQ(mg.report.status, sc::SolveStatus::converged) << mg.report.message;
    EXPECT_LE(mg.report.relres, 1e-12);
    EXPECT_EQ(sc::relative_residual(eq.matrix, eq.rhs, mg.coeffs), mg.report.relres);
    EXPECT_LE((direct.coeffs - mg.coeffs).norm(), 1e-10 * direct.coeffs.norm()) << sb::to_string(mode);
  }
}

TEST(ScatteredReference, HolesAtLambdaZeroAreSingular) {
  for (sb::Mode mode : sb::kAllModes) {
    const sb::GridShape grid = sb::GridShape::make({16, 16});
    const std::vector<double> field = random_values(grid.points(), 1);
    const sc::Problem p = sc::problem_from_nodes(grid, mode, field, sc::select_random(grid, 0.2, 9), 0.0);
    const sc::ReferenceSolution sol = sc::solve_reference(sc::assemble(p), 2);
    EXPECT_EQ(sol.report.status, sc::SolveStatus::singular) << sb::to_string(mode);
    EXPECT_EQ(sol.coeffs.size(), 0);
    EXPECT_NE(sol.report.message.find("singular"), std::string::npos);
    // The same samples with lambda > 0 are well posed.
    sc::Problem q = p;
    q.lambda = 0.1;
    EXPECT_EQ(sc::solve_reference(sc::assemble(q), 2).report.status, sc::SolveStatus::converged);
    // The iterative path names the unknown no sample touches.
    sc::Problem sparse = p;
    sparse.values.resize(1);
    sparse.points = {3.0, 4.0};
    sc::ReferenceOptions cg;
    cg.direct_max_unknowns = 1;
    const sc::ReferenceSolution s2 = sc::solve_reference(sc::assemble(sparse), 2, cg);
    EXPECT_EQ(s2.report.status, sc::SolveStatus::singular);
    EXPECT_NE(s2.report.message.find("diagonal entry"), std::string::npos);
  }
}

void expect_error(const sc::Problem& p, const std::string& fragment) {
  try {
    sc::assemble(p);
    ADD_FAILURE() << "no error; expected one mentioning '" << fragment << "'";
  } catch (const sb::Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(ScatteredReference, BadInputIsAClearError) {
  sc::Problem good;
  good.grid = sb::GridShape::make({8, 8});
  good.points = {1.0, 2.5, 7.0, 0.0};  // (D, n) = x0 of both, then x1 of both
  good.values = {1.0, -1.0};
  good.lambda = 0.1;
  EXPECT_NO_THROW(sc::assemble(good));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  auto with = [&](auto change) {
    sc::Problem p = good;
    change(p);
    return p;
  };
  expect_error(with([](sc::Problem& p) { p.points[1] = 7.0000001; }), "sample 1 has coordinate 7.0000001");
  expect_error(with([](sc::Problem& p) { p.points[2] = -1e-9; }), "outside the grid");
  expect_error(with([&](sc::Problem& p) { p.points[3] = nan; }), "sample 1 has coordinate nan");
  expect_error(with([&](sc::Problem& p) { p.points[0] = inf; }), "sample 0 has coordinate inf");
  expect_error(with([&](sc::Problem& p) { p.values[1] = nan; }), "value of sample 1 is not finite");
  expect_error(with([&](sc::Problem& p) { p.values[0] = -inf; }), "value of sample 0 is not finite");
  expect_error(with([](sc::Problem& p) { p.values.clear(); p.points.clear(); }), "no samples");
  expect_error(with([](sc::Problem& p) { p.points.pop_back(); }), "coordinates for 2 samples");
  expect_error(with([](sc::Problem& p) { p.lambda = -0.5; }), "lambda must be finite and >= 0");
  expect_error(with([&](sc::Problem& p) { p.lambda = nan; }), "lambda must be finite and >= 0");
  expect_error(with([](sc::Problem& p) { p.grid = sb::GridShape::make({4, 4, 4, 4}); }), "dims must be 1, 2 or 3");
  expect_error(with([](sc::Problem& p) { p.grid = sb::GridShape::make({8, 8}, 2); }), "one channel");
}

TEST(ScatteredMetrics, RmsGAndSelection) {
  const sb::GridShape grid = sb::GridShape::make({32, 24});
  const std::vector<double> field = random_values(grid.points(), 3);
  for (sb::Mode mode : sb::kAllModes) {
    // Every node sampled, lambda = 0: the spline interpolates, RMS_g is rounding only.
    const sc::Problem p = sc::problem_from_nodes(grid, mode, field, all_nodes(grid), 0.0);
    const sc::ReferenceSolution sol = sc::solve_reference(sc::assemble(p), 2);
    const std::vector<double> c(sol.coeffs.data(), sol.coeffs.data() + sol.coeffs.size());
    EXPECT_LE(sc::rms_g(sc::grid_values(grid, mode, c), field, 1.0), 1e-12);
    // grid_values agrees with the suite's evaluator at the nodes.
    const std::vector<double> nodes = sc::grid_values(grid, mode, c);
    for (std::int64_t k = 0; k < grid.points(); k += 37) {
      const double x[2] = {static_cast<double>(k / 24), static_cast<double>(k % 24)};
      double s = 0;
      sb::oracle::evaluate_point<double>(grid, c.data(), mode, x, &s);
      EXPECT_NEAR(nodes[k], s, 1e-14);
    }
  }
  // RMS_g of a known difference: 100 * sqrt(mean(e^2)) / max.
  EXPECT_DOUBLE_EQ(sc::rms_g({1, 2, 3, 4}, {1, 2, 3, 6}, 4.0), 100 * std::sqrt(4.0 / 4) / 4);
  EXPECT_THROW(sc::rms_g({1}, {1}, 0.0), sb::Error);

  // Top-|Laplacian|: a single spike is selected first, then its four neighbours.
  std::vector<double> spike(static_cast<std::size_t>(grid.points()), 0.0);
  spike[5 * 24 + 7] = 1;
  const auto top = sc::select_top_laplacian(grid, sb::Mode::mirror, spike, 5.0 / grid.points());
  EXPECT_EQ(top, (std::vector<std::int64_t>{4 * 24 + 7, 5 * 24 + 6, 5 * 24 + 7, 5 * 24 + 8, 6 * 24 + 7}));
  // Ties (all zero) go to the smallest indices.
  const auto flat = sc::select_top_laplacian(grid, sb::Mode::mirror, std::vector<double>(grid.points(), 2.0), 0.01);
  ASSERT_EQ(flat.size(), 8u);
  EXPECT_EQ(flat.back(), 7);
  EXPECT_EQ(sc::select_top_laplacian(grid, sb::Mode::half, field, 0.2).size(),
            static_cast<std::size_t>(std::llround(0.2 * grid.points())));
  EXPECT_THROW(sc::select_top_laplacian(grid, sb::Mode::half, field, 0.0), sb::Error);
  EXPECT_THROW(sc::select_random(grid, 1.5, 1), sb::Error);
  const auto r = sc::select_random(grid, 0.3, 8);
  EXPECT_EQ(r.size(), static_cast<std::size_t>(std::llround(0.3 * grid.points())));
  EXPECT_TRUE(std::adjacent_find(r.begin(), r.end(), [](auto a, auto b) { return a >= b; }) == r.end());
}

}  // namespace
