// A solver of the registry (solvers.def) made ready for one problem: prepare once (the
// layout, levels, colouring, spectral estimate, device buffers: whatever does not depend
// on the iteration budget), then solve many times, each solve from x = 0.
//
// Every line of solvers.def expands to the declaration of its factory
// `prepare_<name>(const SolverInput&)` and a pointer to it in the registry
// (solver_registry.hpp); the factory lives in src/entries/. The harness prepares once per
// case and times the repetitions' solve() calls; solve_named (named_solvers.hpp) is
// prepare and one solve.
#pragma once

#include <memory>
#include <string>

#include "splinebench/phase_times.hpp"
#include "splinebench/scattered/multigrid.hpp"
#include "splinebench/scattered/problem.hpp"
#include "splinebench/scattered/solvers.hpp"

namespace splinebench::scattered {

// What a solver is prepared for. The pointed-to objects must outlive the prepared solver.
//   problem  the samples (null for the entries whose input is "system": a block's box
//            solved from its own assembly has none)
//   eq       the CPU's f64 assembly of the problem (the "system" entries iterate on it, the
//            "samples" entries measure the record's relres on it); empty (no rows) only
//            for the entries that run without the CPU's system
struct SolverInput {
  const Problem* problem = nullptr;
  const NormalEquations* eq = nullptr;
  GridShape grid;
  Mode mode = Mode::mirror;
  SeedMultigrid seed_mg;  // the seed multigrid's schedule (mg_seed, gpu_mg_seed)

  static SolverInput of(const Problem& problem, const NormalEquations& eq, const SeedMultigrid& seed_mg = {}) {
    return {&problem, &eq, problem.grid, problem.mode, seed_mg};
  }
  static SolverInput of(const GridShape& grid, Mode mode, const NormalEquations& eq, const SeedMultigrid& seed_mg = {}) {
    return {nullptr, &eq, grid, mode, seed_mg};
  }
  bool has_system() const { return eq && eq->matrix.rows() > 0; }
};

struct NamedSolve {
  Vector x;
  SolveReport report;
  // Where A and b were formed: "cpu" (the caller's eq), "gpu_atomic", "gpu_gather",
  // "matrix_free" (never formed), "galerkin_stencils" (MG-PCG: per-node stencils, the
  // first from the samples, the coarser ones Galerkin products of it; the fine level
  // matrix-free where its stencil does not fit).
  std::string assembly = "cpu";
  // Device phases of this solve, in seconds (GPU solvers): "assemble" (the device work
  // forming A and b; its parts as "assemble_sort", "assemble_pattern", "assemble_values",
  // "assemble_rhs"), "assemble_upload" (the samples up), "upload" (A and b to the CG,
  // where they were formed on the host), "setup" (multigrid levels), "solve" (CUDA events
  // around the iterations), "readback" (x; with a device assembly also F^T f, for ||b||:
  // the assembled matrix stays on the device). Work done once in prepare is in
  // PreparedSolver::setup_phases instead.
  PhaseTimes phases;
};

class PreparedSolver {
 public:
  virtual ~PreparedSolver() = default;
  // Solves from x = 0. control.observer sees every iteration's iterate (eigen_cg and the
  // GPU solvers: none; they have no hook).
  virtual NamedSolve solve(const IterationControl& control) = 0;

  double setup_seconds = 0;  // host wall time of the preparation
  // Device phases of the preparation (GPU solvers: uploads, sorts, F^T f, the multigrid
  // levels and their spectral estimates), named as NamedSolve::phases.
  PhaseTimes setup_phases;
};

using SolverFactory = std::unique_ptr<PreparedSolver> (*)(const SolverInput&);

// The registry's entry by name (solver_registry.hpp), prepared for `input`. Throws
// splinebench::Error for an unknown name or an input the entry cannot take (a "samples"
// entry without the problem, a system-less input for an entry that needs the CPU's
// system), splinebench::Unsupported where the grid does not suit the solver (gs_mc on
// periodic extents that are not multiples of 4) or no device runs it.
std::unique_ptr<PreparedSolver> prepare_solver(const std::string& name, const SolverInput& input);

// Each registry line's factory (defined in src/entries/).
#define SCATTERED_SOLVER(name, ...) std::unique_ptr<PreparedSolver> prepare_##name(const SolverInput& input);
#include "../../../solvers.def"
#undef SCATTERED_SOLVER

}  // namespace splinebench::scattered
