// The f64 oracle of scattered reconstruction: the exact solution c* of
// (F^T F + lambda R) c = F^T f, every faster solver is measured against it.
//
// Up to `direct_max_unknowns` unknowns: a sparse LDL^T factorisation (Eigen
// SimplicialLDLT, AMD ordering). A pivot d_i <= 64 eps max_j d_j means A is singular to
// working precision (lambda = 0 with a hole in the samples): status `singular`, no
// coefficients. Beyond: preconditioned CG with true-residual replacement to relres
// `cg_tolerance` (default 1e-12) on the true residual b - A x in f64, so the answer is
// checked by its residual whatever the preconditioner: one symmetric V-cycle (mg_pcg,
// multigrid.hpp) when the grid and mode are given, Jacobi otherwise.
//
// Threshold: the direct solve stays the oracle up to 70 000 unknowns (257^2 included,
// the calibration's size), where the pivot ratio and the singular test come with it.
// Beyond, the AMD-ordered LDL^T's fill-in makes it minutes per 512^2 image on a small
// machine while MG-PCG needs tens of iterations and Jacobi-PCG thousands (README.md
// gives the measurement).
#pragma once

#include <cstdint>
#include <string>

#include "splinebench/scattered/assembly.hpp"
#include "splinebench/scattered/solvers.hpp"

namespace splinebench::scattered {

struct ReferenceOptions {
  // 0: by dimension, where the factor still fits in a few GB (fill-in grows faster in 3-D).
  std::int64_t direct_max_unknowns = 0;
  double cg_tolerance = 1e-12;
  int cg_max_iterations = 200000;
};

struct ReferenceSolution {
  Vector coeffs;        // empty unless report.status is converged
  SolveReport report;   // relres recomputed in f64
  std::string method;   // "ldlt", "mg_pcg" or "cg"
  double pivot_ratio = 0;  // min d_i / max d_i of the LDL^T (a lower bound on 1/cond(A) up to the ordering's growth); 0 for CG
};

std::int64_t default_direct_max_unknowns(int dims);

// Jacobi-PCG beyond the threshold.
ReferenceSolution solve_reference(const NormalEquations& system, int dims, const ReferenceOptions& options = {});
// MG-PCG beyond the threshold (the grid and mode build the multigrid hierarchy).
ReferenceSolution solve_reference(const NormalEquations& system, const GridShape& grid, Mode mode,
                                  const ReferenceOptions& options = {});

}  // namespace splinebench::scattered
