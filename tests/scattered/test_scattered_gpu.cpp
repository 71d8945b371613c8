// GPU CG (f32 storage, f64 dot products) against the f64 oracle. Skips without a device.
// Bounds: ||c - c*|| / ||c*|| <= cond(A) * relres, relres = ||b - A c|| / ||b|| recomputed
// in f64 from the downloaded f32 c (a theorem, not a tuning); and the acceptance bound
// |RMS_g - RMS_g*| <= 1e-3 RMS_g* for a converged f32 solution.
#include <gtest/gtest.h>

#include <vector>

#include <Eigen/Dense>

#include "splinebench/datasets.hpp"
#include "splinebench/scattered/gpu_cg.hpp"
#include "splinebench/scattered/metrics.hpp"
#include "splinebench/scattered/reference.hpp"

namespace sb = splinebench;
namespace sc = splinebench::scattered;

namespace {

class GpuCg : public testing::TestWithParam<sb::Mode> {
 protected:
  void SetUp() override {
    if (const std::string why = sc::gpu::device_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST_P(GpuCg, ConvergesToTheOracleWithinItsResidualBound) {
  const sb::Mode mode = GetParam();
  const sb::GridShape grid = sb::GridShape::make({32, 32});
  const std::vector<float> f32 = sb::datasets::make_field(sb::datasets::FieldKind::smooth, grid, 1, 41);
  const std::vector<double> field(f32.begin(), f32.end());
  const sc::Problem problem =
      sc::problem_from_nodes(grid, mode, field, sc::select_top_laplacian(grid, mode, field, 0.2), 2.1);
  const sc::NormalEquations eq = sc::assemble(problem);
  const sc::ReferenceSolution ref = sc::solve_reference(eq, 2);
  ASSERT_EQ(ref.report.status, sc::SolveStatus::converged);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(Eigen::MatrixXd(eq.matrix), Eigen::EigenvaluesOnly);
  const double cond = eig.eigenvalues().maxCoeff() / eig.eigenvalues().minCoeff();

  sc::IterationControl control;
  control.tolerance = 1e-6;
  control.max_iterations = 5000;
  sb::PhaseTimes times;
  const sc::gpu::CgResult res = sc::gpu::conjugate_gradient_f32(eq, control, times);
  ASSERT_EQ(res.report.status, sc::SolveStatus::converged) << res.report.message;
  RecordProperty("iterations", res.report.iterations);
  RecordProperty("true_relres", std::to_string(res.report.relres));
  EXPECT_TRUE(times.has("solve") && times.has(sb::phase::upload) && times.has(sb::phase::readback));

  const std::vector<double> c(res.coeffs.begin(), res.coeffs.end());
  const sc::Vector cv = Eigen::Map<const sc::Vector>(c.data(), static_cast<Eigen::Index>(c.size()));
  const double err = (cv - ref.coeffs).norm() / ref.coeffs.norm();
  EXPECT_LE(err, cond * res.report.relres * (1 + 1e-6)) << "cond " << cond << " relres " << res.report.relres;

  const double max_value = *std::max_element(problem.values.begin(), problem.values.end());
  const std::vector<double> c_ref(ref.coeffs.data(), ref.coeffs.data() + ref.coeffs.size());
  const double rms_ref = sc::rms_g(sc::grid_values(grid, mode, c_ref), field, max_value);
  const double rms = sc::rms_g(sc::grid_values(grid, mode, c), field, max_value);
  EXPECT_LE(std::abs(rms - rms_ref), 1e-3 * rms_ref) << "RMS_g " << rms << " against " << rms_ref;
}

TEST_P(GpuCg, ZeroRightHandSideGivesZero) {
  sc::NormalEquations eq;
  const sb::GridShape grid = sb::GridShape::make({8, 8});
  eq.matrix = sc::pattern_matrix(grid, GetParam());
  sc::add_thin_plate(grid, GetParam(), 1.0, eq.matrix);
  eq.rhs = sc::Vector::Zero(64);
  sb::PhaseTimes times;
  const auto res = sc::gpu::conjugate_gradient_f32(eq, {}, times);
  EXPECT_EQ(res.report.status, sc::SolveStatus::converged);
  for (float v : res.coeffs) EXPECT_EQ(v, 0.f);
}

INSTANTIATE_TEST_SUITE_P(Scattered, GpuCg, testing::ValuesIn(sb::kAllModes),
                         [](const auto& info) { return std::string(sb::to_string(info.param)); });

}  // namespace
