// The solvers that start from the samples (gpu_cg_atomic, gpu_cg_gather,
// gpu_cg_matrix_free), reached by name as the driver reaches them: each converged f32
// solution within ||c - c*|| / ||c*|| <= cond(A) * relres of the f64 oracle (relres
// recomputed in f64 on the CPU's matrix; a theorem, not a tuning) and |RMS_g - RMS_g*| <=
// 1e-3 RMS_g*, with its assembly method and device phases reported. The GPU cases skip
// without a device; the dispatch cases run everywhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include <Eigen/Dense>

#include "splinebench/datasets.hpp"
#include "splinebench/error.hpp"
#include "splinebench/scattered/gpu_cg.hpp"
#include "splinebench/scattered/metrics.hpp"
#include "splinebench/scattered/named_solvers.hpp"
#include "splinebench/scattered/reference.hpp"

namespace sb = splinebench;
namespace sc = splinebench::scattered;

namespace {

sc::Problem image_problem(sb::Mode mode, std::vector<double>& field) {
  const sb::GridShape grid = sb::GridShape::make({32, 32});
  const std::vector<float> f32 = sb::datasets::make_field(sb::datasets::FieldKind::smooth, grid, 1, 41);
  field.assign(f32.begin(), f32.end());
  return sc::problem_from_nodes(grid, mode, field, sc::select_top_laplacian(grid, mode, field, 0.2), 2.1);
}

TEST(ScatteredNamedSolvers, SampleBasedSolversNeedTheProblem) {
  std::vector<double> field;
  const sc::Problem p = image_problem(sb::Mode::mirror, field);
  const sc::NormalEquations eq = sc::assemble(p);
  for (const std::string name : {"gpu_cg_atomic", "gpu_cg_gather", "gpu_cg_matrix_free"}) {
    EXPECT_TRUE(sc::needs_problem(name));
    try {
      sc::solve_named(name, p.grid, p.mode, eq, {});
      ADD_FAILURE() << name << ": no error without the Problem";
    } catch (const sb::Unsupported&) {
      ADD_FAILURE() << name << ": Unsupported instead of the error naming the Problem";
    } catch (const sb::Error& e) {
      EXPECT_NE(std::string(e.what()).find("Problem"), std::string::npos) << e.what();
    }
  }
  // The Problem overload runs the CPU solvers on the caller's matrix.
  sc::IterationControl control;
  control.tolerance = 1e-10;
  control.max_iterations = 5000;
  const sc::NamedSolve cg = sc::solve_named("cg", p, eq, control);
  EXPECT_EQ(cg.assembly, "cpu");
  EXPECT_EQ(cg.report.status, sc::SolveStatus::converged);
  EXPECT_TRUE(cg.phases.entries().empty());
}

TEST(ScatteredNamedSolvers, WithoutADeviceTheyAreUnsupported) {
  if (sc::gpu::device_unavailable_reason().empty()) GTEST_SKIP() << "a device is present";
  std::vector<double> field;
  const sc::Problem p = image_problem(sb::Mode::mirror, field);
  const sc::NormalEquations eq = sc::assemble(p);
  for (const std::string name : {"gpu_cg_atomic", "gpu_cg_gather", "gpu_cg_matrix_free"})
    EXPECT_THROW(sc::solve_named(name, p, eq, {}), sb::Unsupported) << name;
}

// IterationControl::verify_relres off (the harness's timed repetitions) skips only the f64
// check on the host's system: the same x, bit for bit; on, relres is that check exactly;
// off, the solver's own: the last recurrence residual (or Eigen's estimate), at most the
// tolerance it stopped at; for the matrix-free ones the true residual of their f32
// operator, which MG-PCG's stop rule keeps within 10x the tolerance (a true residual
// further above it replaces the recurrence's) and matrix-free CG's does not bound (it is
// its f32 operator's floor at worst). eigen_cg everywhere; with a device the GPU solvers
// that repeat their bits (not gpu_cg_atomic, whose f64 atomics sum in any order).
TEST(ScatteredNamedSolvers, VerifyRelresOffSkipsOnlyTheCheck) {
  std::vector<double> field;
  const sc::Problem p = image_problem(sb::Mode::mirror, field);
  const sc::NormalEquations eq = sc::assemble(p);
  std::vector<std::string> names = {"eigen_cg"};
  if (sc::gpu::device_unavailable_reason().empty())
    names.insert(names.end(), {"gpu_cg", "gpu_cg_gather", "gpu_cg_matrix_free", "gpu_mg_pcg"});
  for (const std::string& name : names) {
    sc::IterationControl control;
    control.tolerance = 1e-6;
    control.max_iterations = 5000;
    const sc::NamedSolve checked = sc::solve_named(name, p, eq, control);
    control.verify_relres = false;
    const sc::NamedSolve own = sc::solve_named(name, p, eq, control);
    ASSERT_EQ(checked.report.status, sc::SolveStatus::converged) << name << ": " << checked.report.message;
    ASSERT_EQ(own.report.status, sc::SolveStatus::converged) << name << ": " << own.report.message;
    EXPECT_TRUE(checked.x == own.x) << name << ": the check changed the solution";
    EXPECT_EQ(checked.report.relres, sc::relative_residual(eq.matrix, eq.rhs, checked.x)) << name;
    if (name == "gpu_mg_pcg") {
      EXPECT_LE(own.report.relres, 10 * control.tolerance) << name;
    } else if (name == "gpu_cg_matrix_free") {
      EXPECT_TRUE(std::isfinite(own.report.relres) && own.report.relres < 1) << name << ": " << own.report.relres;
    } else {
      EXPECT_LE(own.report.relres, control.tolerance) << name;
      if (!own.report.history.empty()) {
        EXPECT_EQ(own.report.relres, own.report.history.back()) << name;
      }
    }
  }
}

class NamedGpuSolver : public testing::TestWithParam<std::tuple<std::string, sb::Mode>> {
 protected:
  void SetUp() override {
    if (const std::string why = sc::gpu::device_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST_P(NamedGpuSolver, ConvergesToTheOracleAndReportsItsPhases) {
  const auto& [name, mode] = GetParam();
  std::vector<double> field;
  const sc::Problem problem = image_problem(mode, field);
  const sc::NormalEquations eq = sc::assemble(problem);
  const sc::ReferenceSolution ref = sc::solve_reference(eq, problem.grid, mode);
  ASSERT_EQ(ref.report.status, sc::SolveStatus::converged);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(Eigen::MatrixXd(eq.matrix), Eigen::EigenvaluesOnly);
  const double cond = eig.eigenvalues().maxCoeff() / eig.eigenvalues().minCoeff();

  sc::IterationControl control;
  control.tolerance = 1e-6;
  control.max_iterations = 5000;
  const sc::NamedSolve s = sc::solve_named(name, problem, eq, control);
  ASSERT_EQ(s.report.status, sc::SolveStatus::converged) << s.report.message;
  const std::string expected_assembly =
      name == "gpu_cg_atomic" ? "gpu_atomic" : name == "gpu_cg_gather" ? "gpu_gather" : "matrix_free";
  EXPECT_EQ(s.assembly, expected_assembly);
  EXPECT_GT(s.phases.get("assemble"), 0);
  EXPECT_GT(s.phases.get("solve"), 0);
  EXPECT_EQ(s.report.relres, sc::relative_residual(eq.matrix, eq.rhs, s.x));

  const double err = (s.x - ref.coeffs).norm() / ref.coeffs.norm();
  EXPECT_LE(err, cond * s.report.relres * (1 + 1e-6)) << "cond " << cond << " relres " << s.report.relres;
  const double max_value = *std::max_element(problem.values.begin(), problem.values.end());
  const auto rms = [&](const sc::Vector& c) {
    return sc::rms_g(sc::grid_values(problem.grid, mode, std::vector<double>(c.data(), c.data() + c.size())), field,
                     max_value);
  };
  EXPECT_LE(std::abs(rms(s.x) - rms(ref.coeffs)), 1e-3 * rms(ref.coeffs));
}

INSTANTIATE_TEST_SUITE_P(Scattered, NamedGpuSolver,
                         testing::Combine(testing::Values("gpu_cg_atomic", "gpu_cg_gather", "gpu_cg_matrix_free"),
                                          testing::ValuesIn(sb::kAllModes)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + std::string(sb::to_string(std::get<1>(info.param)));
                         });

}  // namespace
