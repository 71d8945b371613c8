// The GPU multigrid (gpu_multigrid.hpp) against the CPU's (multigrid.hpp).
//
// Host arithmetic (runs wherever CUDA is built, device or not):
//  - a level's thin-plate tables: length n - 1 and scale 1 give AxisIntegrals' tables;
//    halved, they equal the 1-D Galerkin P^T T_p P where P is exact (odd mirror, even
//    periodic), to 1e-13 relative (both sides are sums of a few hundred f64 terms);
//  - the rediscretized level (the CPU assembly at x / 2 with those tables) equals
//    P^T A P there to 1e-12; elsewhere the deviation is printed (it sits in the last cells);
//  - the design: an f64 model of MG-PCG's V-cycle (the device's levels, Chebyshev
//    smoothing and exact coarsest, test_scattered_gpu_support.hpp) needs at most 1.25x the
//    iterations of the CPU's Gauss-Seidel MG-PCG to 1e-8 and a third of Jacobi-PCG's, and
//    at most 16 where lambda = 2.1 (2-D and 3-D); the counts are printed.
// Device (skipped without one):
//  - P and P^T within (5^D + 1) u (|P| |v|)_k of the f64 products (u = 2^-24: each output
//    sums at most 5^D exact weights times f32 values, one rounding per FMA, plus the
//    input's own rounding);
//  - the coarse operator within (m + 320) u (P^T (F^T F + lambda |R|) P |p|)_k of
//    (P^T A P) p where P is exact: the operator's bound (test_scattered_gpu_operator.cpp)
//    on the coarse grid, whose F^T F and |R| are P^T F^T F P and at most P^T |R| P
//    (P >= 0), m the most samples reaching a coarse row;
//  - gpu_mg_seed against the CPU mg_seed on the same schedule: the relative difference
//    at most K (m + 320) s, K the CG iterations of all levels, s the relative change of the
//    f64 schedule's result when b is perturbed by relative u per entry (its sensitivity
//    to one f32 rounding; each of the K iterations adds at most the operator's error);
//  - gpu_mg_pcg (prepared once, solved to 1e-6 and, on the noise field, to 1e-8), every
//    mode, on a noise field (2-D and 3-D) and a smooth one (2-D): converged in at most
//    1.25 times the f64 model's iterations + 2 (its f32 rounding may cost a few, not the
//    rate) and, in 2-D, in at most 16 (the bound on images); at 1e-6 f64 relres
//    within 10x the tolerance; |c - c*| / |c*| <= kappa relres (kappa the Lanczos
//    estimate, condition.hpp); on the noise field (RMS_g of the seed's order)
//    |RMS_g - RMS_g*| <= 1e-3 RMS_g* against the oracle.
// The timing at the seed's sizes (512^2, 256^3) is not a test: systems/scattered/tools/
// gpu_multigrid_timing.cpp prints it.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <random>
#include <sstream>

#include <Eigen/Dense>
#include <Eigen/SparseCholesky>

#include "splinebench/datasets.hpp"
#include "splinebench/scattered/lanczos_start.hpp"
#include "splinebench/error.hpp"
#include "splinebench/scattered/condition.hpp"
#include "splinebench/scattered/gpu_multigrid.hpp"
#include "splinebench/scattered/gpu_operator.hpp"
#include "splinebench/scattered/metrics.hpp"
#include "splinebench/scattered/reference.hpp"
#include "test_scattered_gpu_support.hpp"

namespace sb = splinebench;
namespace sc = splinebench::scattered;
namespace sct = splinebench::scattered::test;

namespace {

constexpr double kU = 0x1p-24;

using sct::dense_table;
using sct::exact_axis;
using sct::exact_grid;

std::array<std::vector<double>, 3> tables_or_skip(sb::Mode mode, int n, double length, double scale) {
  return sc::gpu::level_axis_tables(mode, n, length, scale);
}

TEST(GpuMultigridLevels, TablesAreAxisIntegralsAndGalerkinWhereExact) {
  try {
    tables_or_skip(sb::Mode::mirror, 5, 4, 1);
  } catch (const sb::Unsupported& e) {
    GTEST_SKIP() << e.what();
  }
  for (sb::Mode mode : sb::kAllModes)
    for (int n = 5; n <= 14; ++n) {
      const sc::AxisPattern pattern = sc::AxisPattern::make(mode, n);
      const sc::AxisIntegrals ref = sc::AxisIntegrals::make(mode, pattern);
      const auto same = tables_or_skip(mode, n, n - 1, 1);
      sb::GridShape coarse;
      const Eigen::MatrixXd p = Eigen::MatrixXd(sc::prolongation(sb::GridShape::make({n}), mode, coarse));
      const int nc = static_cast<int>(coarse.points());
      const auto halved = tables_or_skip(mode, nc, (n - 1) / 2.0, 2);
      for (int q = 0; q < 3; ++q) {
        for (std::size_t j = 0; j < same[q].size(); ++j)
          ASSERT_NEAR(same[q][j], ref.table[q][j], 1e-15) << "mode " << sb::to_string(mode) << " n " << n;
        const Eigen::MatrixXd galerkin = p.transpose() * dense_table(mode, n, ref.table[q]) * p;
        const Eigen::MatrixXd level = dense_table(mode, nc, halved[q]);
        const double rel = (galerkin - level).norm() / galerkin.norm();
        if (exact_axis(mode, n)) EXPECT_LE(rel, 1e-13) << sb::to_string(mode) << " n " << n << " T" << q;
        else std::cout << "  1-D " << sb::to_string(mode) << " n " << n << " T" << q << ": |level - P^T T P| / |P^T T P| = " << rel << "\n";
      }
    }
}

// The level's matrix by the CPU's assembly: samples at x / 2, R from the level tables.
Eigen::MatrixXd rediscretized(const sc::Problem& fine, const sb::GridShape& coarse) {
  const int dims = fine.grid.dims;
  sc::Problem c = fine;
  c.grid = coarse;
  std::array<double, 3> scale{1, 1, 1};
  for (int d = 0; d < dims; ++d) {
    scale[d] = coarse.extent[d] == fine.grid.extent[d] ? 1 : 2;
    for (std::int64_t i = 0; i < fine.samples(); ++i) c.points[d * fine.samples() + i] /= scale[d];
  }
  sc::SparseMatrix m = sc::pattern_matrix(coarse, fine.mode);
  sc::Vector rhs = sc::Vector::Zero(m.rows());
  sc::add_samples(c, m, rhs);
  Eigen::MatrixXd a = Eigen::MatrixXd(m);
  std::vector<std::array<Eigen::MatrixXd, 3>> t(dims);
  for (int d = 0; d < dims; ++d) {
    const int n = static_cast<int>(coarse.extent[d]);
    const auto tab = tables_or_skip(fine.mode, n, (fine.grid.extent[d] - 1) / scale[d], scale[d]);
    for (int q = 0; q < 3; ++q) t[d][q] = dense_table(fine.mode, n, tab[q]);
  }
  for (const sc::ThinPlateTerm& term : sc::thin_plate_terms(dims)) {
    Eigen::MatrixXd k = t[0][term.order[0]];
    for (int d = 1; d < dims; ++d) {
      const Eigen::MatrixXd& b = t[d][term.order[d]];
      Eigen::MatrixXd kron(k.rows() * b.rows(), k.cols() * b.cols());
      for (Eigen::Index i = 0; i < k.rows(); ++i)
        for (Eigen::Index j = 0; j < k.cols(); ++j) kron.block(i * b.rows(), j * b.cols(), b.rows(), b.cols()) = k(i, j) * b;
      k = kron;
    }
    a += fine.lambda * term.weight * k;
  }
  return a;
}

TEST(GpuMultigridLevels, RediscretizedLevelIsGalerkinWhereExact) {
  try {
    tables_or_skip(sb::Mode::mirror, 5, 4, 1);
  } catch (const sb::Unsupported& e) {
    GTEST_SKIP() << e.what();
  }
  const std::vector<sb::GridShape> grids = {sb::GridShape::make({13}), sb::GridShape::make({12}),
                                            sb::GridShape::make({11, 9}), sb::GridShape::make({12, 10}),
                                            sb::GridShape::make({10, 4}), sb::GridShape::make({7, 9, 5}),
                                            sb::GridShape::make({8, 6, 8})};
  for (sb::Mode mode : sb::kAllModes)
    for (const sb::GridShape& g : grids) {
      const sc::Problem p = sct::random_problem(g, mode, 0.7, 1.5, 11);
      const sc::NormalEquations eq = sc::assemble(p);
      const sc::Hierarchy h = sc::Hierarchy::build(g, mode, eq.matrix, 1);
      const Eigen::MatrixXd galerkin = Eigen::MatrixXd(h.matrix(1));
      const Eigen::MatrixXd level = rediscretized(p, h.grid(1));
      const double rel = (galerkin - level).norm() / galerkin.norm();
      if (exact_grid(mode, g)) EXPECT_LE(rel, 1e-12) << sb::to_string(mode) << " " << g.to_string();
      else std::cout << "  " << sb::to_string(mode) << " " << g.to_string() << ": |level - P^T A P|_F / |P^T A P|_F = " << rel << "\n";
    }
}

// The Lanczos estimates' start vectors (lanczos_start.hpp; the device forms them, the
// host model above the same): uniform on [-1, 1) in steps of 2^-23, centred, and another
// vector on every level. On the host, no device needed.
TEST(GpuMultigridDesign, LanczosStartIsUniformAndPerLevel) {
  constexpr long long n = 1 << 20;
  for (int level = 0; level < 3; ++level) {
    double sum = 0, sum_sq = 0, agree = 0;
    for (long long i = 0; i < n; ++i) {
      const float v = sc::lanczos_start_value(level, i);
      ASSERT_GE(v, -1.f);
      ASSERT_LT(v, 1.f);
      ASSERT_EQ(std::ldexp(v + 1.f, 23), std::floor(std::ldexp(v + 1.f, 23))) << "not a multiple of 2^-23";
      ASSERT_EQ(v, sc::lanczos_start_value(level, i)) << "not a function of (level, i)";
      sum += v;
      sum_sq += static_cast<double>(v) * v;
      agree += static_cast<double>(v) * sc::lanczos_start_value(level + 1, i);
    }
    // Mean 0 and variance 1/3 within 5 standard errors (0.577 / sqrt(n) for the mean);
    // the next level's vector uncorrelated with this one likewise.
    EXPECT_LT(std::abs(sum / n), 5 * 0.578 / std::sqrt(double(n))) << level;
    EXPECT_NEAR(sum_sq / n, 1.0 / 3, 5 * 0.3 / std::sqrt(double(n))) << level;
    EXPECT_LT(std::abs(agree / n), 5 * 0.34 / std::sqrt(double(n))) << level;
  }
}

class GpuMultigrid : public testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = sc::gpu::device_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  }
};

std::vector<float> random_vector(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (float& x : v) x = u(rng);
  return v;
}
sc::Vector widen(const std::vector<float>& v) {
  return Eigen::Map<const Eigen::VectorXf>(v.data(), static_cast<Eigen::Index>(v.size())).cast<double>();
}

TEST_F(GpuMultigrid, TransfersMatchTheCpuProlongation) {
  const std::vector<sb::GridShape> grids = {sb::GridShape::make({13}), sb::GridShape::make({12}),
                                            sb::GridShape::make({11, 8}), sb::GridShape::make({9, 4, 7}),
                                            sb::GridShape::make({10, 6, 9})};
  for (sb::Mode mode : sb::kAllModes)
    for (const sb::GridShape& g : grids) {
      const sc::Problem p = sct::random_problem(g, mode, 0.5, 0.5, 3);
      sb::GridShape coarse;
      const sc::SparseMatrix pm = sc::prolongation(g, mode, coarse);
      const Eigen::MatrixXd pabs = Eigen::MatrixXd(pm).cwiseAbs();
      const double factor = (std::pow(5.0, g.dims) + 1) * kU;
      const std::vector<float> vc = random_vector(coarse.points(), 5);
      const sc::Vector fine = widen(sc::gpu::apply_level_transfer(p, 1, 0, vc, true));
      const sc::Vector fine_ref = pm * widen(vc);
      const sc::Vector fine_bound = factor * (pabs * widen(vc).cwiseAbs());
      for (Eigen::Index k = 0; k < fine.size(); ++k)
        ASSERT_LE(std::abs(fine[k] - fine_ref[k]), fine_bound[k]) << sb::to_string(mode) << " " << g.to_string() << " P row " << k;
      const std::vector<float> vf = random_vector(g.points(), 6);
      const sc::Vector co = widen(sc::gpu::apply_level_transfer(p, 1, 0, vf, false));
      const sc::Vector co_ref = pm.transpose() * widen(vf);
      const sc::Vector co_bound = factor * (pabs.transpose() * widen(vf).cwiseAbs());
      for (Eigen::Index k = 0; k < co.size(); ++k)
        ASSERT_LE(std::abs(co[k] - co_ref[k]), co_bound[k]) << sb::to_string(mode) << " " << g.to_string() << " P^T row " << k;
    }
}

TEST_F(GpuMultigrid, CoarseOperatorIsGalerkinWhereExact) {
  const std::vector<std::pair<sb::Mode, sb::GridShape>> cases = {
      {sb::Mode::mirror, sb::GridShape::make({29})},        {sb::Mode::mirror, sb::GridShape::make({13, 11})},
      {sb::Mode::mirror, sb::GridShape::make({9, 7, 9})},   {sb::Mode::periodic, sb::GridShape::make({28})},
      {sb::Mode::periodic, sb::GridShape::make({12, 10})},  {sb::Mode::periodic, sb::GridShape::make({8, 6, 10})},
      {sb::Mode::mirror, sb::GridShape::make({12, 10})},    {sb::Mode::half, sb::GridShape::make({13, 11})},
      {sb::Mode::half, sb::GridShape::make({8, 7, 9})}};
  for (const auto& [mode, g] : cases) {
    const sc::Problem p = sct::random_problem(g, mode, 0.3, 1.2, 17);
    const sc::NormalEquations eq = sc::assemble(p);
    const sc::Hierarchy h = sc::Hierarchy::build(g, mode, eq.matrix, 1);
    const sc::SparseMatrix& pm = h.prolongation(0);
    const std::vector<float> v = random_vector(h.grid(1).points(), 9);
    const sc::Vector gpu = widen(sc::gpu::apply_level_operator(p, 1, 1, v));
    const sc::Vector ref = h.matrix(1) * widen(v);
    const double rel = (gpu - ref).norm() / ref.norm();
    if (!exact_grid(mode, g)) {
      std::cout << "  " << sb::to_string(mode) << " " << g.to_string() << ": |A_1 p - P^T A P p| / |P^T A P p| = " << rel << "\n";
      continue;
    }
    // P^T (F^T F + lambda |R|) P |p| and the most samples reaching a coarse row.
    sc::Problem no_r = p;
    no_r.lambda = 0;
    sc::SparseMatrix abs_a = sc::assemble(no_r).matrix;
    const std::vector<double> r_abs = sct::thin_plate_abs(g, mode, p.lambda);
    for (Eigen::Index j = 0; j < abs_a.nonZeros(); ++j) abs_a.valuePtr()[j] += r_abs[static_cast<std::size_t>(j)];
    const sc::Vector scale = pm.transpose() * (abs_a * (pm * widen(v).cwiseAbs()));
    sc::Problem coarse = p;
    coarse.grid = h.grid(1);
    for (int d = 0; d < g.dims; ++d)
      if (coarse.grid.extent[d] != g.extent[d])
        for (std::int64_t i = 0; i < p.samples(); ++i) coarse.points[d * p.samples() + i] /= 2;
    const std::vector<int> m = sct::samples_per_row(coarse);
    const int m_max = *std::max_element(m.begin(), m.end());
    for (Eigen::Index k = 0; k < gpu.size(); ++k)
      ASSERT_LE(std::abs(gpu[k] - ref[k]), (m_max + 320) * kU * scale[k])
          << sb::to_string(mode) << " " << g.to_string() << " row " << k;
  }
}

TEST_F(GpuMultigrid, SeedScheduleMatchesTheCpu) {
  for (const auto& [mode, g] : std::vector<std::pair<sb::Mode, sb::GridShape>>{
           {sb::Mode::mirror, sb::GridShape::make({17, 17})}, {sb::Mode::periodic, sb::GridShape::make({16, 16})},
           {sb::Mode::mirror, sb::GridShape::make({9, 9, 9})}}) {
    const sc::Problem p = sct::random_problem(g, mode, 0.5, 1.0, 23);
    const sc::NormalEquations eq = sc::assemble(p);
    sc::SeedMultigrid prm;
    prm.n = 1, prm.n0 = 3, prm.n1 = 3, prm.n2 = 3, prm.m = 1, prm.m0 = 3, prm.m1 = 2, prm.m2 = 3, prm.p = 2;
    const sc::Hierarchy h = sc::Hierarchy::build(g, mode, eq.matrix, prm.p);
    sc::Vector x_cpu;
    const sc::SolveReport cpu = sc::mg_seed(h, eq.rhs, x_cpu, prm);
    // Sensitivity of the f64 schedule to one f32 rounding of b.
    std::mt19937_64 rng(29);
    std::uniform_real_distribution<double> unit(-1, 1);
    sc::Vector b2 = eq.rhs;
    for (Eigen::Index i = 0; i < b2.size(); ++i) b2[i] *= 1 + kU * unit(rng);
    sc::Vector x2;
    sc::mg_seed(h, b2, x2, prm);
    const double s = std::max((x2 - x_cpu).norm() / x_cpu.norm(), kU);
    sb::PhaseTimes times;
    const sc::gpu::MultigridResult gpu = sc::gpu::mg_seed_f32(p, prm, times);
    ASSERT_EQ(gpu.report.iterations, cpu.iterations) << gpu.report.message;
    ASSERT_EQ(gpu.report.iterations, prm.fine_iterations());
    long long k_total = 0;
    for (long long it : gpu.level_iterations) k_total += it;
    const std::vector<int> m = sct::samples_per_row(p);
    const int m_max = *std::max_element(m.begin(), m.end());
    const double diff = (widen(gpu.coeffs) - x_cpu).norm() / x_cpu.norm();
    std::cout << "  mg_seed " << sb::to_string(mode) << " " << g.to_string() << ": |x_gpu - x_cpu| / |x_cpu| = " << diff
              << " (sensitivity " << s << ", " << k_total << " CG iterations)\n";
    EXPECT_LE(diff, static_cast<double>(k_total) * (m_max + 320) * s);
    EXPECT_GT(times.get("solve"), 0);
  }
}

// The f64 model of the device's V-cycle (test_scattered_gpu_support.hpp: the device's
// levels, smoother and exact coarsest, without f32) against the CPU's own MG-PCG
// (lexicographic Gauss-Seidel, Galerkin levels, LDL^T on the coarsest) and Jacobi-PCG, to
// relres 1e-8 on the noise field. With lambda = 2.1 both multigrids need few iterations
// (2-D and 3-D). With the 3-D tests' lambda = 0.002 every method needs several times
// more (the nodes without a sample are held by 0.002 R alone, and the error that
// vanishes at the samples is smooth neither for the smoother nor for the coarse grid):
// the model needs no more than 1.25 times the CPU's V-cycle and under a third of
// Jacobi-PCG, so that count is the problem's, not the device design's.
TEST(GpuMultigridDesign, VCycleModelIsAsStrongAsTheCpus) {
  try {
    tables_or_skip(sb::Mode::mirror, 5, 4, 1);
  } catch (const sb::Unsupported& e) {
    GTEST_SKIP() << e.what();
  }
  struct Case {
    sb::GridShape grid;
    double lambda;
  };
  for (const Case& c : {Case{sb::GridShape::make({65, 64}), 2.1}, Case{sb::GridShape::make({20, 17, 14}), 2.1},
                        Case{sb::GridShape::make({20, 17, 14}), 0.002}}) {
    const sb::GridShape& g = c.grid;
    const sb::Mode mode = sb::Mode::mirror;
    const std::vector<float> f32 = sb::datasets::make_field(sb::datasets::FieldKind::noise, g, 1, 41);
    const std::vector<double> field(f32.begin(), f32.end());
    const sc::Problem p =
        sc::problem_from_nodes(g, mode, field, sc::select_top_laplacian(g, mode, field, 0.2), c.lambda);
    const sc::NormalEquations eq = sc::assemble(p);
    sc::IterationControl control;
    control.tolerance = 1e-8;
    control.max_iterations = 2000;
    const sc::gpu::MgPcgOptions options;
    const sct::VCycleModel model(p, eq.matrix, options.coarsest_max_unknowns);
    const int model_it = model.pcg_iterations(eq.rhs, control.tolerance, control.max_iterations);
    const sc::Hierarchy h = sc::Hierarchy::build(g, mode, eq.matrix, -1, options.coarsest_max_unknowns);
    const sc::VCycle cycle(h, mode, sc::Smoother::lexicographic);
    sc::Vector x = sc::Vector::Zero(eq.rhs.size());
    const sc::SolveReport cpu = sc::mg_pcg(eq.matrix, eq.rhs, x, cycle, control);
    x.setZero();
    const sc::SolveReport jacobi =
        sc::conjugate_gradient(eq.matrix, eq.rhs, x, control, sc::jacobi_preconditioner(eq.matrix));
    std::ostringstream what;
    what << "noise " << g.to_string() << " lambda " << c.lambda << " (" << model.grids().size() << " levels)";
    std::cout << "  " << what.str() << ": the device's V-cycle in f64 " << model_it << " iterations, the CPU's mg_pcg "
              << cpu.iterations << ", Jacobi-PCG " << jacobi.iterations << std::endl;
    ASSERT_GT(model_it, 0) << what.str() << ": the model did not converge";
    ASSERT_EQ(cpu.status, sc::SolveStatus::converged) << what.str();
    ASSERT_EQ(jacobi.status, sc::SolveStatus::converged) << what.str();
    EXPECT_LE(model_it, 1.25 * cpu.iterations) << what.str();
    EXPECT_LE(3 * model_it, jacobi.iterations) << what.str();
    if (c.lambda > 1) {
      EXPECT_LE(model_it, 16) << what.str();
    }
  }
}

TEST_F(GpuMultigrid, PcgConvergesToTheOracle) {
  for (sb::datasets::FieldKind kind : {sb::datasets::FieldKind::noise, sb::datasets::FieldKind::smooth})
    for (sb::Mode mode : sb::kAllModes)
      for (const sb::GridShape& g : {sb::GridShape::make({65, 64}), sb::GridShape::make({20, 17, 14})}) {
        // The 3-D oracle's factor takes seconds of CPU (its fill grows as the grid's
        // square): the noise field alone there.
        if (g.dims == 3 && kind == sb::datasets::FieldKind::smooth) continue;
        const std::vector<float> f32 = sb::datasets::make_field(kind, g, 1, 41);
        const std::vector<double> field(f32.begin(), f32.end());
        const double lambda = g.dims == 2 ? 2.1 : 0.002;
        const sc::Problem p =
            sc::problem_from_nodes(g, mode, field, sc::select_top_laplacian(g, mode, field, 0.2), lambda);
        const sc::NormalEquations eq = sc::assemble(p);
        // The oracle at these sizes is solve_reference's direct path (an LDL^T of A):
        // factored once here, for the solution and for the condition estimate's A^-1.
        ASSERT_LE(eq.rhs.size(), sc::default_direct_max_unknowns(g.dims));
        const Eigen::SimplicialLDLT<sc::SparseMatrix> ldlt(eq.matrix);
        ASSERT_EQ(ldlt.info(), Eigen::Success);
        sc::ReferenceSolution ref;
        ref.coeffs = ldlt.solve(eq.rhs);
        ASSERT_LE(sc::relative_residual(eq.matrix, eq.rhs, ref.coeffs), 1e-10);
        const double kappa =
            sc::estimate_condition(eq.matrix, [&](const sc::Vector& b, sc::Vector& y) { y = ldlt.solve(b); }).kappa();
        const double max_value = *std::max_element(p.values.begin(), p.values.end());
        const auto rms = [&](const sc::Vector& c) {
          return sc::rms_g(sc::grid_values(g, mode, std::vector<double>(c.data(), c.data() + c.size())), field,
                           max_value);
        };
        const double rms_ref = rms(ref.coeffs);
        const std::string what = std::string(sb::datasets::to_string(kind)) + " " + std::string(sb::to_string(mode)) + " " +
                                 g.to_string();
        // Default options: 65x64 coarsens to 33x32, 17x16 and 9x8 (at most 256 nodes),
        // 20x17x14 to 10x9x7 and 5x5x4, so the V-cycle passes inner stencil levels.
        const sc::gpu::MgPcgOptions options;
        const auto t0 = std::chrono::steady_clock::now();
        sc::gpu::PreparedMultigrid mg(p, options);
        const double setup_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        // At 1e-6 on every field; at the 1e-8 on the noise field, whose RMS_g is
        // of the seed's order. The model runs once, to the tighter of the two.
        const bool to_1e8 = kind == sb::datasets::FieldKind::noise;
        const std::vector<double> model_history =
            sct::VCycleModel(p, eq.matrix, options.coarsest_max_unknowns).pcg_history(eq.rhs, to_1e8 ? 1e-8 : 1e-6, 500);
        for (const double tolerance : {1e-6, 1e-8}) {
          if (tolerance < 1e-6 && !to_1e8) continue;
          sc::IterationControl control;
          control.tolerance = tolerance;
          control.max_iterations = 500;
          sb::PhaseTimes times;
          const sc::gpu::MultigridResult r = mg.solve(control, times);
          const int model_it = sct::VCycleModel::iterations_to(model_history, tolerance);
          const sc::Vector x = widen(r.coeffs);
          const double relres = sc::relative_residual(eq.matrix, eq.rhs, x);
          const double coeff_err = (x - ref.coeffs).norm() / ref.coeffs.norm();
          const double rms_gpu = rms(x);
          std::cout << "  mg_pcg " << what << " to " << tolerance << ": " << sc::to_string(r.report.status) << " after "
                    << r.report.iterations << " iterations (the f64 model: " << model_it << "), " << r.grids.size()
                    << " levels, operator relres " << r.report.relres << ", f64 relres " << relres << ", |c - c*| / |c*| "
                    << coeff_err << " (kappa " << kappa << ", bound " << kappa * relres << "), RMS_g " << rms_gpu << " vs "
                    << rms_ref << "; setup " << setup_wall << " s wall, solve " << times.get("solve") << " s"
                    << (r.report.message.empty() ? "" : "; " + r.report.message) << std::endl;
          ASSERT_EQ(r.report.status, sc::SolveStatus::converged) << what << ": " << r.report.message;
          EXPECT_EQ(r.grids.size(), g.dims == 2 ? 4u : 3u) << what;
          ASSERT_GT(model_it, 0) << what << ": the model did not converge";
          // The device runs the model's cycle in f32: its rounding may cost a few iterations
          // (the 3-D system has kappa 2.5e3, so u kappa is 1.5e-4), not a different rate.
          EXPECT_LE(r.report.iterations, 1.25 * model_it + 2) << what;
          // The bound on images (9 to 16 iterations to 1e-8); the 3-D lambda is the
          // hard case (GpuMultigridDesign.VCycleModelIsAsStrongAsTheCpus).
          if (g.dims == 2) {
            EXPECT_LE(r.report.iterations, 16) << what;
          }
          // The f32 product A x limits how far b - A x falls: 1e-6 is met within 10x; at
          // 1e-8 that limit, not the tolerance, decides (the bound below still holds).
          if (tolerance >= 1e-6) {
            EXPECT_LE(relres, 10 * tolerance) << what;
          }
          EXPECT_LE(coeff_err, kappa * relres) << what;
          // The 1e-3 RMS_g criterion on the noise field (kappa up to 2.5e3 here). The smooth
          // field's systems are worse conditioned (kappa 9e4 in half mode): at relres 1e-6
          // their coefficients are fixed only to about kappa relres (0.1), and RMS_g moved
          // by 1.2e-3 of itself there; the bound above is what holds.
          if (kind == sb::datasets::FieldKind::noise) {
            EXPECT_LE(std::abs(rms_gpu - rms_ref), 1e-3 * rms_ref) << what;
          }
          EXPECT_TRUE(times.has("solve")) << what;
        }
      }
}

// The V-cycle replayed from its CUDA graph does what its launches do: the same
// iterations and the same bits, in the first solve (which captures it) and in a second
// one on the same hierarchy (which only replays it).
TEST_F(GpuMultigrid, VCycleGraphGivesTheLaunchesBits) {
  for (const sb::GridShape& g : {sb::GridShape::make({65, 64}), sb::GridShape::make({20, 17, 14})})
    for (sb::Mode mode : sb::kAllModes) {
      const std::vector<float> f32 = sb::datasets::make_field(sb::datasets::FieldKind::noise, g, 1, 43);
      const std::vector<double> field(f32.begin(), f32.end());
      const sc::Problem p = sc::problem_from_nodes(g, mode, field, sc::select_top_laplacian(g, mode, field, 0.2),
                                                   g.dims == 2 ? 2.1 : 0.002);
      sc::IterationControl control;
      control.tolerance = 1e-8;
      control.max_iterations = 500;
      const std::string what = std::string(sb::to_string(mode)) + " " + g.to_string();
      sc::gpu::MgPcgOptions launches, graph;
      launches.vcycle_graph = false;
      graph.vcycle_graph = true;
      sb::PhaseTimes times;
      sc::gpu::PreparedMultigrid by_launches(p, launches), by_graph(p, graph);
      const sc::gpu::MultigridResult a = by_launches.solve(control, times);
      const sc::gpu::MultigridResult b = by_graph.solve(control, times);
      const sc::gpu::MultigridResult again = by_graph.solve(control, times);
      EXPECT_EQ(a.vcycle, "launches") << what;
      EXPECT_EQ(b.vcycle, "graph") << what;
      EXPECT_EQ(again.vcycle, "graph") << what;
      ASSERT_EQ(a.report.status, sc::SolveStatus::converged) << what << ": " << a.report.message;
      for (const sc::gpu::MultigridResult* r : {&b, &again}) {
        EXPECT_EQ(r->report.status, a.report.status) << what;
        EXPECT_EQ(r->report.iterations, a.report.iterations) << what;
        EXPECT_EQ(r->report.history, a.report.history) << what;
        ASSERT_EQ(r->coeffs.size(), a.coeffs.size()) << what;
        EXPECT_EQ(0, std::memcmp(r->coeffs.data(), a.coeffs.data(), a.coeffs.size() * sizeof(float)))
            << what << ": the graph's coefficients differ from the launches'";
      }
    }
}

}  // namespace
