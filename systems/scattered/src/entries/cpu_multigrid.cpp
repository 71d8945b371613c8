// The CPU multigrid entries of solvers.def: the seed's cascadic schedule (mg_seed) and CG
// preconditioned by a symmetric V-cycle with lexicographic Gauss-Seidel (mg_pcg), in f64
// on the CPU's assembly. Prepared: the Galerkin hierarchy (and the V-cycle's smoothers).
#include "entry_support.hpp"

namespace splinebench::scattered {

using entries::prepared;

std::unique_ptr<PreparedSolver> prepare_mg_seed(const SolverInput& in) {
  return prepared([&in] {
    const NormalEquations& eq = *in.eq;
    const SeedMultigrid params = in.seed_mg;
    auto h = std::make_unique<Hierarchy>(Hierarchy::build(in.grid, in.mode, eq.matrix, params.p));
    return [&eq, params, h = std::move(h)](const IterationControl& control) {
      NamedSolve out;
      out.x = Vector::Zero(eq.rhs.size());
      out.report = mg_seed(*h, eq.rhs, out.x, params, control.observer);
      return out;
    };
  });
}

std::unique_ptr<PreparedSolver> prepare_mg_pcg(const SolverInput& in) {
  return prepared([&in] {
    const NormalEquations& eq = *in.eq;
    // The V-cycle refers to the hierarchy: both live on the heap, where moving the
    // solve function leaves them.
    auto h = std::make_unique<Hierarchy>(Hierarchy::build(in.grid, in.mode, eq.matrix));
    auto cycle = std::make_unique<VCycle>(*h, in.mode, Smoother::lexicographic);
    return [&eq, h = std::move(h), cycle = std::move(cycle)](const IterationControl& control) {
      NamedSolve out;
      out.x = Vector::Zero(eq.rhs.size());
      out.report = mg_pcg(eq.matrix, eq.rhs, out.x, *cycle, control);
      return out;
    };
  });
}

}  // namespace splinebench::scattered
