// Every CPU solver of the system by the name records and command lines use:
//   jacobi         seed's Jacobi (omega = 1)
//   jacobi_damped  omega = 1 / (20-step Lanczos estimate of lambda_max(D^-1 A))
//   gs8x           seed's "8-colour" Gauss-Seidel (colours along the contiguous axis)
//   gs_mc, sgs_mc  true multicolour Gauss-Seidel, forward / symmetric
//   gs_lex         lexicographic Gauss-Seidel (the sequential CPU method)
//   cg             conjugate gradient (corrected)
//   mg_seed        the seed's cascadic multigrid (fixed schedule; SeedMultigrid)
//   mg_pcg         CG preconditioned by a symmetric V-cycle (lexicographic GS smoothing)
//   eigen_cg       Eigen's ConjugateGradient (diagonal preconditioner, Lower|Upper, so the
//                  matrix-vector product runs on Eigen's threads): the timed CPU peer
//   gpu_cg         CG on the GPU in f32 with f64 dot products (gpu_cg.hpp); Unsupported
//                  without a device. Its setup time is the upload of matrix and rhs.
//   gpu_jacobi, gpu_jacobi_damped, gpu_gs8x, gpu_gs_mc, gpu_sgs_mc
//                  the stationary solvers above on the GPU in f32 (gpu_stationary.hpp); setup:
//                  colouring or spectral estimate and the upload
// Solvers that start from the samples rather than the CPU's matrix (the Problem overload):
//   gpu_cg_atomic, gpu_cg_gather
//                  the normal equations assembled on the GPU in f64 (gpu_assembly.hpp: the
//                  seed's atomic shooting, or the deterministic gather), then gpu_cg on them
//   gpu_cg_matrix_free
//                  CG on the matrix-free operator (gpu_operator.hpp); relres recomputed in
//                  f64 on the CPU's matrix (the operator's own f32 residual is in the message)
//   gpu_mg_seed    the seed's cascadic multigrid on the GPU (gpu_multigrid.hpp), matrix-free
//                  on every level, SeedMultigrid's schedule
//   gpu_mg_pcg     CG preconditioned by a Chebyshev-smoothed V-cycle on the GPU (gpu_multigrid.hpp)
// The matrix-free ones (needs_no_matrix) also run without the CPU's system (eq empty: a
// grid too large for the CPU assembly); their relres is then the operator's own
// (f32 product, f64 norms), and the message says so.
#pragma once

#include <string>
#include <vector>

#include "splinebench/phase_times.hpp"
#include "splinebench/scattered/multigrid.hpp"
#include "splinebench/scattered/problem.hpp"

namespace splinebench::scattered {

std::vector<std::string> solver_names();
// The names above that need the Problem (the samples themselves).
bool needs_problem(const std::string& name);
// The names above that run without the CPU's system.
bool needs_no_matrix(const std::string& name);

struct NamedSolve {
  Vector x;
  SolveReport report;
  double setup_seconds = 0;  // coarsening, spectral estimate or colouring before the iterations
  // Where A and b were formed: "cpu" (the caller's eq), "gpu_atomic", "gpu_gather",
  // "matrix_free" (never formed).
  std::string assembly = "cpu";
  // Device phases, in seconds (GPU solvers): "assemble" (the device work forming A and b
  // or, matrix-free, the sort and F^T f; its parts as "assemble_sort", "assemble_pattern",
  // "assemble_values", "assemble_rhs"), "assemble_upload" and "assemble_readback" (the
  // samples up and the assembled system down), "upload" (A and b to the CG), "solve"
  // (CUDA events around the iterations), "readback" (x).
  PhaseTimes phases;
};

// Solves eq from x = 0. control.observer sees every iteration's iterate (eigen_cg and gpu_cg:
// none; they have no hook). Throws splinebench::Error for an unknown name and
// splinebench::Unsupported when the grid does not suit the solver (gs_mc on periodic
// extents that are not multiples of 4).
// Throws splinebench::Error for a name that needs_problem (use the overload below).
NamedSolve solve_named(const std::string& name, const GridShape& grid, Mode mode, const NormalEquations& eq,
                       const IterationControl& control, const SeedMultigrid& seed_mg = {});

// Every solver; eq must be problem's CPU assembly (relres is measured on it), or empty
// (no rows) for the solvers that needs_no_matrix.
NamedSolve solve_named(const std::string& name, const Problem& problem, const NormalEquations& eq,
                       const IterationControl& control, const SeedMultigrid& seed_mg = {});

}  // namespace splinebench::scattered
