// The matrix-free GPU operator against the CPU f64 matrix, and CG on it against the
// oracle. Skips without a device.
//
// Operator bound, row k (u = 2^-24, m_k samples reach node k, P_s = sum of |p| over the
// nodes sample s reaches):
//   |(A p)_gpu - (A p)_f64|_k <= (m_k + 150) u sum_{s reaching k} P_s + 48 u lambda (|R| |p|)_k.
// Per-axis weights are within 10 u absolute (the f32 fraction is within u/2, the tap
// weights' slopes are at most 2/3, the formula rounds at most five times on magnitudes
// <= 7/6, merging adds <= 3 more), so a product of three weights (each <= 1) is within
// 32 u; y_s = (F p)_s sums <= 64 such products (<= 96 u P_s). F^T y (operator_transpose.cuh)
// sums the terms w_t0 (w_t1 (W_2 y_s)) of a node (two roundings in the products, counted
// in the 32 u; the weights are >= 0, so the terms of a sample split over folded images sum
// to its merged weight times |y_s|) along a tree whose paths have at most m_k additions
// along a run of samples, 8 over rows of cells and images along axis 1, and 9 over planes
// and images along axis 0: <= (32 + 96 + m_k + 17) u P_s per sample (|y_s| <= P_s). R p, applied
// separably (operator_kernels.cuh): the f32 tables and lambda-weights are within u
// relative; per stage a table rounding and the fused sums: 7 terms along axis 2, 7 along
// axis 1, <= 3 per W (with its weight's rounding), 21 along axis 0: <= 1 + 7 + 1 + 7 + 4 +
// 1 + 21 = 42 u of (|R| |p|)_k to first order; the final addition one more on either
// part: 48 u, and m_k + 146 <= m_k + 150.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <random>

#include <Eigen/Dense>

#include "splinebench/datasets.hpp"
#include "splinebench/scattered/gpu_operator.hpp"
#include "splinebench/scattered/metrics.hpp"
#include "splinebench/scattered/reference.hpp"
#include "test_scattered_gpu_support.hpp"

namespace sb = splinebench;
namespace sc = splinebench::scattered;
namespace sct = splinebench::scattered::test;

namespace {

constexpr double kU = 0x1p-24;

struct Case {
  sb::Mode mode;
  int dims;
};

// Per dimension, grids that reach the kernels' edges: extents below the 7-tap stencil's
// width (every node folded), 2 and 3 nodes (folds within folds), extents that are not
// multiples of the 32 x 8 tile or of the 64-plane chunk (70 along axis 0: two chunks),
// and long lines whose periodic wrap spans two tiles. Samples include x = n - 1. Grids of
// at most 1100 nodes also run with 20 samples per node (long runs of samples per row of
// cells, as on coarse multigrid levels).
std::vector<sb::GridShape> grids_for(int dims) {
  switch (dims) {
    case 1: return {sb::GridShape::make({29}), sb::GridShape::make({3}), sb::GridShape::make({2}),
                    sb::GridShape::make({70})};
    case 2: return {sb::GridShape::make({14, 11}), sb::GridShape::make({5, 2}), sb::GridShape::make({5, 37}),
                    sb::GridShape::make({9, 70})};
    default: return {sb::GridShape::make({8, 7, 9}), sb::GridShape::make({5, 3, 70}), sb::GridShape::make({3, 9, 4}),
                     sb::GridShape::make({70, 10, 35})};
  }
}

class GpuOperator : public testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    if (const std::string why = sc::gpu::device_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  }
};

// sum over the samples reaching each row of P_s.
std::vector<double> sample_scale(const sc::Problem& pr, const std::vector<double>& p_abs) {
  std::vector<double> out(p_abs.size(), 0.0);
  const int dims = pr.grid.dims;
  for (std::int64_t i = 0; i < pr.samples(); ++i) {
    std::array<sc::AxisTaps, 3> taps;
    for (int d = 0; d < dims; ++d) taps[d] = sc::axis_taps(pr.mode, pr.grid.extent[d], pr.coordinate(d, i));
    for (int d = dims; d < 3; ++d) taps[d].count = 1;
    std::vector<std::int64_t> rows;
    for (int s0 = 0; s0 < taps[0].count; ++s0)
      for (int s1 = 0; s1 < taps[1].count; ++s1)
        for (int s2 = 0; s2 < taps[2].count; ++s2) {
          std::int64_t row = taps[0].node[s0];
          if (dims > 1) row = row * pr.grid.extent[1] + taps[1].node[s1];
          if (dims > 2) row = row * pr.grid.extent[2] + taps[2].node[s2];
          rows.push_back(row);
        }
    double ps = 0;
    for (auto r : rows) ps += p_abs[static_cast<std::size_t>(r)];
    for (auto r : rows) out[static_cast<std::size_t>(r)] += ps;
  }
  return out;
}

TEST_P(GpuOperator, MatchesTheCpuMatrixWithinTheRoundingBound) {
  const Case c = GetParam();
  for (const sb::GridShape& grid : grids_for(c.dims))
  for (const double density : {1.3, 20.0})
  for (const double lambda : {0.0, 0.7}) {
    if (density > 2 && grid.points() > 1100) continue;
    SCOPED_TRACE(grid.to_string() + ", " + std::to_string(density) + " samples per node");
    const sc::Problem problem = sct::random_problem(grid, c.mode, lambda, density, 300 + c.dims);
    const sc::NormalEquations eq = sc::assemble(problem);
    std::mt19937_64 rng(17);
    std::uniform_real_distribution<float> unit(-1.f, 1.f);
    std::vector<float> p(static_cast<std::size_t>(problem.grid.points()));
    for (float& v : p) v = unit(rng);
    const sc::Vector pd = Eigen::Map<const Eigen::VectorXf>(p.data(), static_cast<Eigen::Index>(p.size())).cast<double>();
    const sc::Vector exact = eq.matrix * pd;
    const std::vector<float> gpu = sc::gpu::apply_matrix_free(problem, p);

    const sc::Vector pd_abs = pd.cwiseAbs();
    const std::vector<double> p_abs(pd_abs.data(), pd_abs.data() + pd_abs.size());
    const std::vector<double> scale = sample_scale(problem, p_abs);
    const std::vector<int> m = sct::samples_per_row(problem);
    const std::vector<double> r_abs = sct::thin_plate_abs(problem.grid, problem.mode, lambda);
    int failures = 0;
    for (Eigen::Index k = 0; k < pd.size() && failures < 10; ++k) {
      double rp = 0;
      for (int e = eq.matrix.outerIndexPtr()[k]; e < eq.matrix.outerIndexPtr()[k + 1]; ++e)
        rp += r_abs[static_cast<std::size_t>(e)] * p_abs[static_cast<std::size_t>(eq.matrix.innerIndexPtr()[e])];
      const auto ku = static_cast<std::size_t>(k);
      const double bound = (m[ku] + 150) * kU * scale[ku] + 48 * kU * rp;
      if (!(std::abs(gpu[ku] - exact[k]) <= bound)) {
        ADD_FAILURE() << "lambda " << lambda << " row " << k << ": GPU " << gpu[ku] << " f64 " << exact[k] << " bound "
                      << bound;
        ++failures;
      }
    }
    // No atomics, fixed order: a second product is the same bits.
    EXPECT_EQ(sc::gpu::apply_matrix_free(problem, p), gpu) << "lambda " << lambda;
  }
}

// diag(A) against the CPU matrix's diagonal. Bound, row k (u64 = 2^-53): on either side
// a tap weight (<= 1) is within 3 u64 absolute (at most five roundings on magnitudes
// <= 2/3), a product of three within 11 u64 and its square within 23 u64, so each of the
// m_k sample terms differs by <= 46 u64; the two sums add m_k u64 FtF_kk each; lambda R_kk
// (six products of four factors) within 10 u64 |R|_kk each side; then one rounding to f32:
//   |d_gpu - d_k| <= u32 |d_k| + (48 m_k + 20) u64 (1 + FtF_kk + |R|_kk),
// with FtF_kk <= |d_k| + |R|_kk.
TEST_P(GpuOperator, DiagonalMatchesTheCpuMatrix) {
  const Case c = GetParam();
  for (const sb::GridShape& grid : grids_for(c.dims))
    for (const double lambda : {0.0, 0.7}) {
      SCOPED_TRACE(grid.to_string());
      const sc::Problem problem = sct::random_problem(grid, c.mode, lambda, 1.3, 500 + c.dims);
      const sc::NormalEquations eq = sc::assemble(problem);
      const std::vector<float> d = sc::gpu::matrix_free_diagonal(problem);
      const std::vector<int> m = sct::samples_per_row(problem);
      const std::vector<double> r_abs = sct::thin_plate_abs(problem.grid, problem.mode, lambda);
      ASSERT_EQ(static_cast<Eigen::Index>(d.size()), eq.matrix.rows());
      int failures = 0;
      for (Eigen::Index k = 0; k < eq.matrix.rows() && failures < 10; ++k) {
        double exact = 0, r_kk = 0;
        for (int e = eq.matrix.outerIndexPtr()[k]; e < eq.matrix.outerIndexPtr()[k + 1]; ++e)
          if (eq.matrix.innerIndexPtr()[e] == k) {
            exact = eq.matrix.valuePtr()[e];
            r_kk = r_abs[static_cast<std::size_t>(e)];
          }
        const auto ku = static_cast<std::size_t>(k);
        const double bound = kU * std::abs(exact) + (48.0 * m[ku] + 20) * 0x1p-53 * (1 + std::abs(exact) + 2 * r_kk);
        if (!(std::abs(d[ku] - exact) <= bound)) {
          ADD_FAILURE() << "lambda " << lambda << " row " << k << ": GPU " << d[ku] << " f64 " << exact << " bound "
                        << bound;
          ++failures;
        }
      }
    }
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (sb::Mode mode : sb::kAllModes)
    for (int dims = 1; dims <= 3; ++dims) out.push_back({mode, dims});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Scattered, GpuOperator, testing::ValuesIn(cases()), [](const auto& info) {
  return std::string(sb::to_string(info.param.mode)) + "_" + std::to_string(info.param.dims) + "D";
});

// CG on the operator: converged f32 solutions within ||c - c*|| / ||c*|| <= cond(A) relres
// (relres recomputed here in f64 with the f64 matrix: a theorem for any c) and the
// acceptance bound |RMS_g - RMS_g*| <= 1e-3 RMS_g*.
class GpuOperatorCg : public testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    if (const std::string why = sc::gpu::device_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST_P(GpuOperatorCg, ConvergesToTheOracleWithinItsResidualBound) {
  const Case c = GetParam();
  const sb::GridShape grid = c.dims == 2 ? sb::GridShape::make({32, 32}) : sb::GridShape::make({10, 10, 10});
  const std::vector<float> f32 = sb::datasets::make_field(sb::datasets::FieldKind::smooth, grid, 1, 41);
  const std::vector<double> field(f32.begin(), f32.end());
  const double lambda = c.dims == 2 ? 2.1 : 0.002;
  const sc::Problem problem =
      sc::problem_from_nodes(grid, c.mode, field, sc::select_top_laplacian(grid, c.mode, field, 0.2), lambda);
  const sc::NormalEquations eq = sc::assemble(problem);
  const sc::ReferenceSolution ref = sc::solve_reference(eq, 2);
  ASSERT_EQ(ref.report.status, sc::SolveStatus::converged);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(Eigen::MatrixXd(eq.matrix), Eigen::EigenvaluesOnly);
  const double cond = eig.eigenvalues().maxCoeff() / eig.eigenvalues().minCoeff();

  sc::IterationControl control;
  control.tolerance = 1e-6;
  control.max_iterations = 5000;
  sb::PhaseTimes times;
  const sc::gpu::MatrixFreeCgResult res = sc::gpu::matrix_free_cg_f32(problem, control, times);
  ASSERT_EQ(res.report.status, sc::SolveStatus::converged) << res.report.message;
  for (const char* phase : {"assemble_sort", "assemble_rhs", "solve"}) EXPECT_TRUE(times.has(phase));
  const std::vector<double> x(res.coeffs.begin(), res.coeffs.end());
  const sc::Vector xv = Eigen::Map<const sc::Vector>(x.data(), static_cast<Eigen::Index>(x.size()));
  const double relres = sc::relative_residual(eq.matrix, eq.rhs, xv);
  RecordProperty("iterations", res.report.iterations);
  RecordProperty("relres_f64", std::to_string(relres));
  const double err = (xv - ref.coeffs).norm() / ref.coeffs.norm();
  EXPECT_LE(err, cond * relres * (1 + 1e-6)) << "cond " << cond << " relres " << relres;

  const double max_value = *std::max_element(problem.values.begin(), problem.values.end());
  const std::vector<double> c_ref(ref.coeffs.data(), ref.coeffs.data() + ref.coeffs.size());
  const double rms_ref = sc::rms_g(sc::grid_values(grid, c.mode, c_ref), field, max_value);
  const double rms = sc::rms_g(sc::grid_values(grid, c.mode, x), field, max_value);
  EXPECT_LE(std::abs(rms - rms_ref), 1e-3 * rms_ref) << "RMS_g " << rms << " against " << rms_ref;
}

std::vector<Case> cg_cases() {
  std::vector<Case> out;
  for (sb::Mode mode : sb::kAllModes)
    for (int dims = 2; dims <= 3; ++dims) out.push_back({mode, dims});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Scattered, GpuOperatorCg, testing::ValuesIn(cg_cases()), [](const auto& info) {
  return std::string(sb::to_string(info.param.mode)) + "_" + std::to_string(info.param.dims) + "D";
});

// 256^3 with 20 % samples: 30 CG iterations; the time per iteration against the traffic
// bound (gpu_operator.hpp) as properties and on stdout. Correctness is the tests above;
// this one only checks the run ends with a finite residual.
TEST(GpuOperatorLarge, CgIterationAt256CubedAgainstItsTrafficBound) {
  if (const std::string why = sc::gpu::device_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  const sc::Problem problem = sct::random_problem(sb::GridShape::make({256, 256, 256}), sb::Mode::mirror, 0.002, 0.2, 256);
  sc::IterationControl control;
  control.max_iterations = 30;
  sb::PhaseTimes times;
  sc::gpu::matrix_free_cg_f32(problem, control, times);  // warm-up
  times = {};
  const sc::gpu::MatrixFreeCgResult res = sc::gpu::matrix_free_cg_f32(problem, control, times);
  ASSERT_EQ(res.report.iterations, 30) << res.report.message;
  EXPECT_TRUE(std::isfinite(res.report.relres));
  const double peak = sc::gpu::device_peak_bandwidth();
  const double bound_s = res.bytes_per_iteration / peak;
  std::cout << "256^3, " << problem.samples() << " samples: " << res.seconds_per_iteration * 1e3 << " ms per iteration, "
            << res.bytes_per_iteration / 1e9 << " GB, bound " << bound_s * 1e3 << " ms at this device's peak "
            << peak / 1e12 << " TB/s ("
            << 100 * bound_s / res.seconds_per_iteration << " % of it); sort " << times.get("assemble_sort") * 1e3
            << " ms, rhs " << times.get("assemble_rhs") * 1e3 << " ms\n";
  // Where the time goes: each kernel alone (median of 20 launches), its bytes, and the
  // bandwidth it reaches.
  double kernel_sum_s = 0, kernel_bytes = 0;
  for (const sc::gpu::KernelTime& k : sc::gpu::profile_matrix_free(problem, 20)) {
    if (k.name == "march_chunk") {
      std::cout << "  apply_rows marches " << k.seconds << " planes per block\n";
      continue;
    }
    std::cout << "  " << k.name << ": " << k.seconds * 1e3 << " ms";
    if (k.bytes > 0) {
      // r.r reads 4 N, half of p.Ap's 8 N, in a launch like it: counted as a second dot.
      const int per_iteration = k.name == "dot" ? 2 : 1;
      kernel_sum_s += per_iteration * k.seconds;
      kernel_bytes += k.name == "dot" ? 1.5 * k.bytes : k.bytes;
      std::cout << ", " << k.bytes / 1e9 << " GB, " << k.bytes / k.seconds / 1e12 << " TB/s";
    }
    std::cout << "\n";
    RecordProperty(k.name + "_ms", std::to_string(k.seconds * 1e3));
  }
  std::cout << "  kernels of one iteration: " << kernel_sum_s * 1e3 << " ms for " << kernel_bytes / 1e9
            << " GB; bound / iteration = " << 100 * bound_s / res.seconds_per_iteration << " %\n";
  EXPECT_NEAR(kernel_bytes, res.bytes_per_iteration, 1e-9 * kernel_bytes);
  RecordProperty("ms_per_iteration", std::to_string(res.seconds_per_iteration * 1e3));
  RecordProperty("bound_ms_at_peak", std::to_string(bound_s * 1e3));
  RecordProperty("peak_TBps", std::to_string(peak / 1e12));
  RecordProperty("assemble_sort_ms", std::to_string(times.get("assemble_sort") * 1e3));
  RecordProperty("assemble_rhs_ms", std::to_string(times.get("assemble_rhs") * 1e3));
}

// The multigrid's coarse levels of 256^3 keep all its samples: 128^3 and 64^3 with the
// 3.36 M samples of 20 % at 256^3. apply_rows at the operator's chunk beside the longest
// one (64 planes), printed: a coarse level has few tiles per plane, so the chunk decides
// how much of the device it fills.
TEST(GpuOperatorLarge, CoarseLevelsOf256CubedByChunk) {
  if (const std::string why = sc::gpu::device_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  for (const int n : {256, 128, 64}) {
    const double per_node = 0.2 * std::pow(256.0 / n, 3);
    const sc::Problem problem = sct::random_problem(sb::GridShape::make({n, n, n}), sb::Mode::mirror, 0.002, per_node, 64);
    for (const int chunk : {0, 64}) {
      double planes = 0, sample_values = 0, apply_rows = 0;
      for (const sc::gpu::KernelTime& k : sc::gpu::profile_matrix_free(problem, 10, chunk)) {
        if (k.name == "march_chunk") planes = k.seconds;
        if (k.name == "sample_values") sample_values = k.seconds;
        if (k.name == "apply_rows") apply_rows = k.seconds;
      }
      std::cout << "  " << n << "^3, " << problem.samples() << " samples, " << planes << " planes per block"
                << (chunk == 0 ? " (its choice)" : " (forced)") << ": sample_values " << sample_values * 1e3
                << " ms, apply_rows " << apply_rows * 1e3 << " ms\n";
      EXPECT_GT(apply_rows, 0);
      if (chunk == 0) RecordProperty("apply_rows_ms_" + std::to_string(n), std::to_string(apply_rows * 1e3));
    }
  }
}

}  // namespace
