// MG-PCG's direct solve of its coarsest level (src/gpu/coarsest_direct.hpp): the level's
// matrix from its f64 stencil scattered densely, inverted by n Gauss-Jordan sweeps in
// f64, rounded to f32 and applied by one warp per row with f64 sums.
//
// Host arithmetic (a CUDA build, no device needed; the device's code run on the host),
// every mode, 2-D and 3-D, odd and even extents, levels 1 and 2 (and 0 of the 2-D grids):
//  - the dense matrix is the level's matrix by the CPU's assembly within 1e-12 (F^T F +
//    lambda |R|)(k, k') entry by entry, and the sparse one the tests' model uses
//    (level_matrix_host) holds the same entries;
//  - the sweeps' inverse S is within 10 n kappa eps64 max|X| of X, the inverse by Eigen's
//    LLT (Gauss-Jordan on a symmetric positive definite matrix has an LU-based inverse's
//    error);
//  - x = A^-1 b by the device's rows on the host, S rounded to f32: within
//    1.01 (u |x*_i| + (u + 2 n eps64) (|S| |b|)_i + |((S - X) b)_i|) of x* = X b (each
//    entry rounded once, f64 sums of exact products, one final rounding);
//  - a level with a node no sample reaches (lambda = 0) is refused, naming the pivot.
// Device (skipped without one), the same levels:
//  - the f32 inverse formed on the device within u |S_ij| + e ||S||_2 of the host's S,
//    e = 1e-11 kappa_|A| + 10 n kappa eps64 (kappa_|A| = || |A| ||_F ||A^-1||_2: the device's
//    f64 stencil differs from the host's by FMA contraction, at most 2e-12 |A| per entry,
//    and ||S dA S||_2 <= 2e-12 kappa_|A| ||S||_2; the second term is the two sweeps' own
//    error);
//  - its product on fresh random b, into an output poisoned with NaN: every row written,
//    within the host bound above plus e ||S||_2 ||b||_2 of x*;
//  - a hierarchy of one level (the fine grid within coarsest_max_unknowns): MG-PCG's
//    V-cycle is the fine level's inverse, so it converges to 1e-6 in at most 3 iterations;
//  - the sweeps alone, on random symmetric diagonally dominant matrices of 1 to 600 rows
//    (600: more elements than the grid form's threads, so its grid-stride loop turns),
//    in each form (one block, one cooperative launch, one launch per sweep, and the
//    solver's choice): the swept matrix equals the host's sweeps bit for bit, and a
//    negative pivot is reported by its index in every form. Prints each form's device
//    time (the least of three runs) per size.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <sstream>

#include <Eigen/Dense>

#include "splinebench/error.hpp"
#include "splinebench/scattered/gpu_multigrid.hpp"
#include "splinebench/scattered/solvers.hpp"
#include "common/accuracy.hpp"
#include "test_scattered_gpu_support.hpp"

namespace sb = splinebench;
namespace sc = splinebench::scattered;
namespace sct = splinebench::scattered::test;

namespace {

constexpr double kU = 0x1p-24;
constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr int kCoarsenings = 2;

using sb::testing::random_values;
using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct Case {
  sb::Mode mode;
  sb::GridShape grid;
  int level;
};

// Every grid halves twice in every mode; level 0 of the 2-D ones is small enough for the
// host's n^3 sweeps.
std::vector<Case> cases() {
  std::vector<Case> out;
  for (sb::Mode mode : sb::kAllModes)
    for (const sb::GridShape& g : sct::level_test_grids())
      for (int level = g.dims == 2 ? 0 : 1; level <= kCoarsenings; ++level) out.push_back({mode, g, level});
  return out;
}

std::string name_of(const Case& c) {
  return std::string(sb::to_string(c.mode)) + " " + c.grid.to_string() + " level " + std::to_string(c.level);
}

sc::Problem problem_of(const Case& c, std::uint64_t seed) { return sct::random_problem(c.grid, c.mode, 0.7, 1.5, seed); }

RowMatrix as_matrix(const std::vector<double>& v, Eigen::Index n) {
  return Eigen::Map<const RowMatrix>(v.data(), n, n);
}
Eigen::VectorXd widen(const std::vector<float>& v) {
  return Eigen::Map<const Eigen::VectorXf>(v.data(), static_cast<Eigen::Index>(v.size())).cast<double>();
}

// The level's dense matrix, its inverse by Eigen (X) and by the sweeps (S), and the
// scales the bounds use.
struct Inverses {
  Eigen::Index n = 0;
  RowMatrix a, x, s;
  double kappa = 0;      // lambda_max / lambda_min of A
  double s_norm2 = 0;    // ||A^-1||_2
  double kappa_abs = 0;  // || |A| ||_F ||A^-1||_2
};

Inverses inverses(const sc::Problem& p, int level) {
  Inverses r;
  const std::vector<double> dense = sc::gpu::level_matrix_dense_host(p, kCoarsenings, level);
  r.n = static_cast<Eigen::Index>(std::llround(std::sqrt(static_cast<double>(dense.size()))));
  r.a = as_matrix(dense, r.n);
  const Eigen::LLT<Eigen::MatrixXd> llt(r.a);
  r.x = llt.solve(Eigen::MatrixXd::Identity(r.n, r.n));
  r.s = as_matrix(sc::gpu::coarsest_inverse_host(p, kCoarsenings, level), r.n);
  const Eigen::VectorXd ev = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(r.a, Eigen::EigenvaluesOnly).eigenvalues();
  r.kappa = ev.maxCoeff() / ev.minCoeff();
  r.s_norm2 = 1 / ev.minCoeff();
  r.kappa_abs = r.a.cwiseAbs().norm() * r.s_norm2;
  return r;
}

// The bound on x = A^-1 b by the rows (S rounded to f32, f64 sums, one rounding), per row.
Eigen::VectorXd apply_bound(const Inverses& v, const Eigen::VectorXd& b, const Eigen::VectorXd& want) {
  const Eigen::VectorXd scale = v.s.cwiseAbs() * b.cwiseAbs();
  const Eigen::VectorXd sx = ((v.s - v.x) * b).cwiseAbs();
  const double n = static_cast<double>(v.n);
  return 1.01 * (kU * want.cwiseAbs() + (kU + 2 * n * kEps) * scale + sx);
}

TEST(GpuMultigridCoarsestHost, DenseMatrixIsTheLevelMatrix) {
  if (std::string why; !sct::host_levels_available(why)) GTEST_SKIP() << why;
  for (const Case& c : cases()) {
    const std::string what = name_of(c);
    const sc::Problem p = problem_of(c, 61);
    const sct::LevelReference ref = sct::level_reference(p, kCoarsenings, c.level);
    const Eigen::Index n = ref.a.rows();
    const std::vector<double> dense = sc::gpu::level_matrix_dense_host(p, kCoarsenings, c.level);
    ASSERT_EQ(dense.size(), static_cast<std::size_t>(n * n)) << what;
    const RowMatrix a = as_matrix(dense, n);
    const Eigen::MatrixXd sparse = Eigen::MatrixXd(sc::gpu::level_matrix_host(p, kCoarsenings, c.level));
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index j = 0; j < n; ++j) {
        ASSERT_LE(std::abs(a(i, j) - ref.a(i, j)), 1e-12 * ref.a_abs(i, j)) << what << " entry " << i << ", " << j;
        ASSERT_EQ(sparse(i, j), a(i, j)) << what << " entry " << i << ", " << j << " of the sparse level matrix";
      }
  }
}

TEST(GpuMultigridCoarsestHost, SweepsInvertTheLevelAndItsRowsSolve) {
  if (std::string why; !sct::host_levels_available(why)) GTEST_SKIP() << why;
  double worst_inverse = 0, worst_apply = 0;
  for (const Case& c : cases()) {
    const std::string what = name_of(c);
    const sc::Problem p = problem_of(c, 67);
    const Inverses v = inverses(p, c.level);
    const double n = static_cast<double>(v.n);
    const double x_max = v.x.cwiseAbs().maxCoeff();
    const double diff = (v.s - v.x).cwiseAbs().maxCoeff();
    ASSERT_LE(diff, 10 * n * v.kappa * kEps * x_max) << what << " (kappa " << v.kappa << ")";
    worst_inverse = std::max(worst_inverse, diff / (n * v.kappa * kEps * x_max));
    const std::vector<float> bf = random_values<float>(v.n, 71 + static_cast<std::uint64_t>(c.level));
    const Eigen::VectorXd b = widen(bf);
    const Eigen::VectorXd want = v.x * b;
    const Eigen::VectorXd got = widen(sc::gpu::apply_coarsest_host(p, kCoarsenings, c.level, bf));
    const Eigen::VectorXd bound = apply_bound(v, b, want);
    for (Eigen::Index i = 0; i < v.n; ++i) {
      ASSERT_LE(std::abs(got[i] - want[i]), bound[i]) << what << " row " << i;
      if (bound[i] > 0) worst_apply = std::max(worst_apply, std::abs(got[i] - want[i]) / bound[i]);
    }
  }
  std::cout << "  |S - X|_max <= " << worst_inverse << " n kappa eps64 max|X|; the rows' error <= " << worst_apply
            << " of their bound" << std::endl;
}

// 13x11, lambda = 0, samples only in the cells [0, 3)^2: level 2 (4x3) has nodes no
// sample reaches, rows of zeros.
sc::Problem corner_problem() {
  sc::Problem p;
  p.grid = sb::GridShape::make({13, 11});
  p.mode = sb::Mode::mirror;
  p.lambda = 0;
  const int per_axis = 6;
  const std::int64_t count = per_axis * per_axis;
  p.points.resize(static_cast<std::size_t>(2 * count));
  for (int i = 0; i < per_axis; ++i)
    for (int j = 0; j < per_axis; ++j) {
      const auto s = static_cast<std::size_t>(i * per_axis + j);
      p.points[s] = 0.25 + 0.5 * i;
      p.points[static_cast<std::size_t>(count) + s] = 0.25 + 0.5 * j;
      p.values.push_back(std::sin(1.0 * static_cast<double>(s)));
    }
  return p;
}

TEST(GpuMultigridCoarsestHost, NotPositiveDefiniteIsRefused) {
  if (std::string why; !sct::host_levels_available(why)) GTEST_SKIP() << why;
  const sc::Problem p = corner_problem();
  EXPECT_THROW(sc::gpu::coarsest_inverse_host(p, kCoarsenings, 2), sb::Error);
  EXPECT_THROW(sc::gpu::coarsest_inverse_host(p, kCoarsenings, 0), sb::Error);
}

class GpuMultigridCoarsest : public testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = sc::gpu::device_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST_F(GpuMultigridCoarsest, DeviceInverseIsTheHosts) {
  long long entries = 0, equal = 0;
  for (const Case& c : cases()) {
    const std::string what = name_of(c);
    const sc::Problem p = problem_of(c, 73);
    const Inverses v = inverses(p, c.level);
    const std::vector<float> dev = sc::gpu::coarsest_inverse_device(p, kCoarsenings, c.level);
    ASSERT_EQ(dev.size(), static_cast<std::size_t>(v.n * v.n)) << what;
    const double n = static_cast<double>(v.n);
    const double e = 1e-11 * v.kappa_abs + 10 * n * v.kappa * kEps;
    for (Eigen::Index i = 0; i < v.n; ++i)
      for (Eigen::Index j = 0; j < v.n; ++j) {
        const double d = dev[static_cast<std::size_t>(i * v.n + j)];
        ASSERT_LE(std::abs(d - v.s(i, j)), kU * std::abs(v.s(i, j)) + e * v.s_norm2) << what << " entry " << i << ", " << j;
        equal += static_cast<float>(v.s(i, j)) == static_cast<float>(d);
        ++entries;
      }
  }
  std::cout << "  " << equal << " of " << entries << " f32 entries equal to the host's S rounded" << std::endl;
}

TEST_F(GpuMultigridCoarsest, DeviceApplySolvesTheLevel) {
  long long rows = 0, same_as_host = 0;
  for (const Case& c : cases()) {
    const std::string what = name_of(c);
    const sc::Problem p = problem_of(c, 79);
    const Inverses v = inverses(p, c.level);
    const std::vector<float> bf = random_values<float>(v.n, 83 + static_cast<std::uint64_t>(c.level));
    const Eigen::VectorXd b = widen(bf);
    const Eigen::VectorXd want = v.x * b;
    const std::vector<float> dev = sc::gpu::apply_coarsest(p, kCoarsenings, c.level, bf);
    const std::vector<float> host = sc::gpu::apply_coarsest_host(p, kCoarsenings, c.level, bf);
    ASSERT_EQ(dev.size(), static_cast<std::size_t>(v.n)) << what;
    const double n = static_cast<double>(v.n);
    const double e = 1e-11 * v.kappa_abs + 10 * n * v.kappa * kEps;
    const Eigen::VectorXd bound = apply_bound(v, b, want).array() + e * v.s_norm2 * b.norm();
    for (Eigen::Index i = 0; i < v.n; ++i) {
      const float d = dev[static_cast<std::size_t>(i)];
      ASSERT_TRUE(std::isfinite(d)) << what << " row " << i << " not written (poisoned output)";
      ASSERT_LE(std::abs(d - want[i]), bound[i]) << what << " row " << i;
      same_as_host += d == host[static_cast<std::size_t>(i)];
      ++rows;
    }
  }
  std::cout << "  " << same_as_host << " of " << rows << " rows equal to the host's run of the same code" << std::endl;
  EXPECT_THROW(sc::gpu::apply_coarsest(corner_problem(), kCoarsenings, 2, std::vector<float>(12, 1.f)), sb::Error);
}

TEST_F(GpuMultigridCoarsest, OneLevelPcgIsADirectSolve) {
  for (sb::Mode mode : sb::kAllModes) {
    const sc::Problem p = sct::random_problem(sb::GridShape::make({13, 11}), mode, 0.7, 1.5, 89);
    sc::IterationControl control;
    control.tolerance = 1e-6;
    control.max_iterations = 50;
    sb::PhaseTimes times;
    const sc::gpu::MultigridResult r = sc::gpu::mg_pcg_f32(p, control, times);
    const std::string what = std::string(sb::to_string(mode)) + " 13x11";
    ASSERT_EQ(r.report.status, sc::SolveStatus::converged) << what << ": " << r.report.message;
    EXPECT_EQ(r.grids.size(), 1u) << what;
    EXPECT_LE(r.report.iterations, 3) << what;
    const sc::NormalEquations eq = sc::assemble(p);
    EXPECT_LE(sc::relative_residual(eq.matrix, eq.rhs, widen(r.coeffs)), 10 * control.tolerance) << what;
  }
}

// A random symmetric matrix, strictly diagonally dominant with a positive diagonal (so
// positive definite): every pivot of the sweeps is positive.
std::vector<double> dominant_matrix(std::int64_t n, std::uint64_t seed) {
  const std::vector<double> noise = random_values<double>(n * n, seed);
  const auto un = static_cast<std::size_t>(n);
  std::vector<double> a(un * un);
  for (std::size_t i = 0; i < un; ++i)
    for (std::size_t j = 0; j <= i; ++j) a[i * un + j] = a[j * un + i] = noise[i * un + j];
  for (std::size_t i = 0; i < un; ++i) {
    double off = 0;
    for (std::size_t j = 0; j < un; ++j) off += j == i ? 0 : std::abs(a[i * un + j]);
    a[i * un + i] = 1 + off;
  }
  return a;
}

constexpr sc::gpu::CoarsestSweeps kForms[] = {sc::gpu::CoarsestSweeps::one_block, sc::gpu::CoarsestSweeps::grid,
                                              sc::gpu::CoarsestSweeps::launches, sc::gpu::CoarsestSweeps::by_size};
const char* form_name(sc::gpu::CoarsestSweeps f) {
  switch (f) {
    case sc::gpu::CoarsestSweeps::one_block: return "one block";
    case sc::gpu::CoarsestSweeps::grid: return "grid";
    case sc::gpu::CoarsestSweeps::launches: return "launches";
    default: return "by size";
  }
}

TEST_F(GpuMultigridCoarsest, EverySweepFormIsTheHostsBitForBit) {
  for (const std::int64_t n : {1, 2, 7, 32, 33, 64, 96, 128, 255, 256, 600}) {
    const std::vector<double> a = dominant_matrix(n, 97 + static_cast<std::uint64_t>(n));
    const std::vector<double> host = sc::gpu::sweep_dense_host(a, n);
    std::ostringstream times;
    times << "  n = " << n << ", device ms:";
    for (const sc::gpu::CoarsestSweeps form : kForms) {
      const std::string what = std::string(form_name(form)) + ", n = " + std::to_string(n);
      double best = std::numeric_limits<double>::infinity();
      for (int run = 0; run < 3; ++run) {
        const sc::gpu::DeviceSweeps d = sc::gpu::sweep_dense_device(a, n, form);
        ASSERT_EQ(d.bad_pivot, -1) << what;
        ASSERT_EQ(d.swept.size(), host.size()) << what;
        if (std::memcmp(d.swept.data(), host.data(), host.size() * sizeof(double)) != 0) {
          std::size_t e = 0;
          while (std::memcmp(&d.swept[e], &host[e], sizeof(double)) == 0) ++e;
          FAIL() << what << ": entry " << e / static_cast<std::size_t>(n) << ", " << e % static_cast<std::size_t>(n)
                 << " is " << d.swept[e] << " on the device, " << host[e] << " on the host";
        }
        best = std::min(best, d.device_s);
      }
      times << " " << form_name(form) << " " << best * 1e3;
    }
    std::cout << times.str() << std::endl;
  }
}

TEST_F(GpuMultigridCoarsest, EverySweepFormReportsTheFirstBadPivot) {
  for (const std::int64_t n : {7, 200}) {
    const auto un = static_cast<std::size_t>(n);
    std::vector<double> a(un * un, 0.0);
    for (std::size_t i = 0; i < un; ++i) a[i * un + i] = 1.0 + static_cast<double>(i);
    a[5 * un + 5] = -1;
    a[6 * un + 6] = 0;  // a later bad pivot: the first one is reported
    EXPECT_THROW(sc::gpu::sweep_dense_host(a, n), sb::Error);
    for (const sc::gpu::CoarsestSweeps form : kForms)
      EXPECT_EQ(sc::gpu::sweep_dense_device(a, n, form).bad_pivot, 5) << form_name(form) << ", n = " << n;
  }
}

}  // namespace
