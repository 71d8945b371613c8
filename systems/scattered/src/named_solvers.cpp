#include "splinebench/scattered/named_solvers.hpp"

#include <chrono>

#include <Eigen/IterativeLinearSolvers>

#include "splinebench/error.hpp"
#include "splinebench/scattered/gpu_cg.hpp"
#include "splinebench/scattered/gpu_stationary.hpp"

namespace splinebench::scattered {

std::vector<std::string> solver_names() {
  return {"jacobi", "jacobi_damped", "gs8x", "gs_mc", "sgs_mc", "gs_lex", "cg", "mg_seed", "mg_pcg", "eigen_cg", "gpu_cg",
          "gpu_jacobi", "gpu_jacobi_damped", "gpu_gs8x", "gpu_gs_mc", "gpu_sgs_mc"};
}

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

NamedSolve solve_named(const std::string& name, const GridShape& grid, Mode mode, const NormalEquations& eq,
                       const IterationControl& control, const SeedMultigrid& seed_mg) {
  const SparseMatrix& a = eq.matrix;
  const Vector& b = eq.rhs;
  NamedSolve out;
  out.x = Vector::Zero(b.size());
  const auto t0 = std::chrono::steady_clock::now();
  if (name == "jacobi") {
    out.report = jacobi(a, b, out.x, 1.0, control);
  } else if (name == "jacobi_damped") {
    const double omega = jacobi_damping(a);
    out.setup_seconds = seconds_since(t0);
    out.report = jacobi(a, b, out.x, omega, control);
  } else if (name == "gs8x" || name == "gs_mc" || name == "sgs_mc") {
    const Colouring c = name == "gs8x" ? colouring_seed_gs8x(grid) : colouring_multicolour(grid, a);
    out.setup_seconds = seconds_since(t0);
    out.report = coloured_gauss_seidel(a, b, out.x, c, name == "sgs_mc", control);
  } else if (name == "gs_lex") {
    out.report = gauss_seidel_lexicographic(a, b, out.x, false, control);
  } else if (name == "cg") {
    out.report = conjugate_gradient(a, b, out.x, control);
  } else if (name == "mg_seed") {
    const Hierarchy h = Hierarchy::build(grid, mode, a, seed_mg.p);
    out.setup_seconds = seconds_since(t0);
    out.report = mg_seed(h, b, out.x, seed_mg, control.observer);
  } else if (name == "mg_pcg") {
    const Hierarchy h = Hierarchy::build(grid, mode, a);
    const VCycle cycle(h, mode, Smoother::lexicographic);
    out.setup_seconds = seconds_since(t0);
    out.report = mg_pcg(a, b, out.x, cycle, control);
  } else if (name == "eigen_cg") {
    Eigen::ConjugateGradient<SparseMatrix, Eigen::Lower | Eigen::Upper, Eigen::DiagonalPreconditioner<double>> cg;
    cg.setMaxIterations(control.max_iterations);
    // Eigen stops at ||r|| <= tol ||b||; a zero tolerance means "run the budget".
    cg.setTolerance(control.tolerance > 0 ? control.tolerance : 1e-300);
    cg.compute(a);
    out.x = cg.solve(b);
    out.report.iterations = static_cast<int>(cg.iterations());
    out.report.relres = relative_residual(a, b, out.x);
    const bool reached = control.tolerance > 0 && cg.info() == Eigen::Success;
    out.report.status = reached ? SolveStatus::converged : SolveStatus::max_iterations;
    if (!out.x.allFinite()) {
      out.x.setZero();
      out.report.status = SolveStatus::singular;
      out.report.message = "Eigen's CG produced non-finite values";
    }
  } else if (name == "gpu_cg") {
    PhaseTimes times;
    gpu::CgResult r = gpu::conjugate_gradient_f32(eq, control, times);
    out.x = Eigen::Map<const Eigen::VectorXf>(r.coeffs.data(), static_cast<Eigen::Index>(r.coeffs.size())).cast<double>();
    out.report = std::move(r.report);
    out.setup_seconds = times.get(phase::upload);
  } else if (name == "gpu_jacobi" || name == "gpu_jacobi_damped" || name == "gpu_gs8x" || name == "gpu_gs_mc" ||
             name == "gpu_sgs_mc") {
    PhaseTimes times;
    gpu::StationaryResult r;
    if (name == "gpu_jacobi" || name == "gpu_jacobi_damped") {
      const double omega = name == "gpu_jacobi" ? 1.0 : jacobi_damping(a);
      r = gpu::jacobi_f32(eq, omega, control, times);
    } else {
      const Colouring c = name == "gpu_gs8x" ? colouring_seed_gs8x(grid) : colouring_multicolour(grid, a);
      r = gpu::coloured_gauss_seidel_f32(eq, c, name == "gpu_sgs_mc", control, times);
    }
    out.x = Eigen::Map<const Eigen::VectorXf>(r.coeffs.data(), static_cast<Eigen::Index>(r.coeffs.size())).cast<double>();
    out.report = std::move(r.report);
    out.setup_seconds = seconds_since(t0) - times.get("solve") - times.get(phase::readback);
  } else {
    std::string known;
    for (const auto& n : solver_names()) known += " " + n;
    fail("unknown solver '" + name + "' (known:" + known + ")");
  }
  return out;
}

}  // namespace splinebench::scattered
