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
#pragma once

#include <string>
#include <vector>

#include "splinebench/scattered/multigrid.hpp"

namespace splinebench::scattered {

std::vector<std::string> solver_names();

struct NamedSolve {
  Vector x;
  SolveReport report;
  double setup_seconds = 0;  // coarsening, spectral estimate or colouring before the iterations
};

// Solves eq from x = 0. control.observer sees every iteration's iterate (eigen_cg and gpu_cg:
// none; they have no hook). Throws splinebench::Error for an unknown name and
// splinebench::Unsupported when the grid does not suit the solver (gs_mc on periodic
// extents that are not multiples of 4).
NamedSolve solve_named(const std::string& name, const GridShape& grid, Mode mode, const NormalEquations& eq,
                       const IterationControl& control, const SeedMultigrid& seed_mg = {});

}  // namespace splinebench::scattered
