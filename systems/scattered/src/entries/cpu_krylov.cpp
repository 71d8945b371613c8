// The CPU Krylov entries of solvers.def: the corrected CG, and Eigen's ConjugateGradient
// (diagonal preconditioner, Lower|Upper so its product runs on Eigen's threads), the
// timed CPU peer. Prepared: Eigen's preconditioner.
#include <Eigen/IterativeLinearSolvers>

#include "entry_support.hpp"

namespace splinebench::scattered {

using entries::prepared;

std::unique_ptr<PreparedSolver> prepare_cg(const SolverInput& in) {
  return prepared([&in] {
    const NormalEquations& eq = *in.eq;
    return [&eq](const IterationControl& control) {
      NamedSolve out;
      out.x = Vector::Zero(eq.rhs.size());
      out.report = conjugate_gradient(eq.matrix, eq.rhs, out.x, control);
      return out;
    };
  });
}

std::unique_ptr<PreparedSolver> prepare_eigen_cg(const SolverInput& in) {
  using EigenCg = Eigen::ConjugateGradient<SparseMatrix, Eigen::Lower | Eigen::Upper, Eigen::DiagonalPreconditioner<double>>;
  return prepared([&in] {
    const NormalEquations& eq = *in.eq;
    auto cg = std::make_unique<EigenCg>();
    cg->compute(eq.matrix);
    return [&eq, cg = std::move(cg)](const IterationControl& control) {
      NamedSolve out;
      cg->setMaxIterations(control.max_iterations);
      // Eigen stops at ||r|| <= tol ||b||; a zero tolerance means "run the budget".
      cg->setTolerance(control.tolerance > 0 ? control.tolerance : 1e-300);
      out.x = cg->solve(eq.rhs);
      out.report.iterations = static_cast<int>(cg->iterations());
      // Eigen reports its own estimate; the f64 product is the check (verify_relres).
      out.report.relres = control.verify_relres ? relative_residual(eq.matrix, eq.rhs, out.x) : cg->error();
      const bool reached = control.tolerance > 0 && cg->info() == Eigen::Success;
      out.report.status = reached ? SolveStatus::converged : SolveStatus::max_iterations;
      if (!out.x.allFinite()) {
        out.x.setZero();
        out.report.status = SolveStatus::singular;
        out.report.message = "Eigen's CG produced non-finite values";
      }
      return out;
    };
  });
}

}  // namespace splinebench::scattered
