// The CPU stationary entries of solvers.def: Jacobi (undamped and damped), the seed's
// gs8x, multicolour (symmetric) Gauss-Seidel and lexicographic Gauss-Seidel, in f64 on
// the CPU's assembly. Prepared: the damping's spectral estimate, the colouring.
#include "entry_support.hpp"

namespace splinebench::scattered {
namespace {

using entries::prepared;

std::unique_ptr<PreparedSolver> jacobi_with(const SolverInput& in, bool damped) {
  return prepared([&in, damped] {
    const NormalEquations& eq = *in.eq;
    const double omega = damped ? jacobi_damping(eq.matrix) : 1.0;
    return [&eq, omega](const IterationControl& control) {
      NamedSolve out;
      out.x = Vector::Zero(eq.rhs.size());
      out.report = jacobi(eq.matrix, eq.rhs, out.x, omega, control);
      return out;
    };
  });
}

std::unique_ptr<PreparedSolver> coloured_with(const SolverInput& in, bool seed_colours, bool symmetric) {
  return prepared([&in, seed_colours, symmetric] {
    const NormalEquations& eq = *in.eq;
    Colouring c = seed_colours ? colouring_seed_gs8x(in.grid) : colouring_multicolour(in.grid, eq.matrix);
    return [&eq, c = std::move(c), symmetric](const IterationControl& control) {
      NamedSolve out;
      out.x = Vector::Zero(eq.rhs.size());
      out.report = coloured_gauss_seidel(eq.matrix, eq.rhs, out.x, c, symmetric, control);
      return out;
    };
  });
}

}  // namespace

std::unique_ptr<PreparedSolver> prepare_jacobi(const SolverInput& in) { return jacobi_with(in, false); }
std::unique_ptr<PreparedSolver> prepare_jacobi_damped(const SolverInput& in) { return jacobi_with(in, true); }
std::unique_ptr<PreparedSolver> prepare_gs8x(const SolverInput& in) { return coloured_with(in, true, false); }
std::unique_ptr<PreparedSolver> prepare_gs_mc(const SolverInput& in) { return coloured_with(in, false, false); }
std::unique_ptr<PreparedSolver> prepare_sgs_mc(const SolverInput& in) { return coloured_with(in, false, true); }

std::unique_ptr<PreparedSolver> prepare_gs_lex(const SolverInput& in) {
  return prepared([&in] {
    const NormalEquations& eq = *in.eq;
    return [&eq](const IterationControl& control) {
      NamedSolve out;
      out.x = Vector::Zero(eq.rhs.size());
      out.report = gauss_seidel_lexicographic(eq.matrix, eq.rhs, out.x, false, control);
      return out;
    };
  });
}

}  // namespace splinebench::scattered
