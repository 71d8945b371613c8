// Multigrid on the B-spline two-scale relation.
//
// Coarsening: an axis of N >= 5 nodes becomes N_c = (N - 1) / 2 + 1 nodes (N / 2 for an
// even periodic axis, which then wraps exactly); coarse node K
// sits at fine coordinate 2K, and the coarse spline is a fine spline with coefficients
//   c_j = sum_K h[j - 2K] C_K,   h = (1, 4, 6, 4, 1) / 8,
// the coarse indices folded by the same mode on the coarse line (the prolongation P).
// Axes shorter than 5 are kept. The coarse operator is Galerkin's P^T A P and the coarse
// right-hand side P^T r, so every level is the restriction of the fine problem (for odd
// mirror and even periodic extents P maps the coarse folded space into the fine one exactly; otherwise P
// is still a full-rank map and the Galerkin levels stay symmetric positive definite).
//
// Two uses:
//   mg_pcg   CG preconditioned by one symmetric V-cycle (pre-smoothing forward
//            Gauss-Seidel, post-smoothing the same sweeps backward, an LDL^T solve on
//            the coarsest level), so the preconditioner is symmetric positive definite.
//   mg_seed  the seed's cascadic scheme with coarse-grid correction, CG on every level
//            (SeedMultigrid below).
#pragma once

#include <memory>
#include <vector>

#include "splinebench/scattered/solvers.hpp"

namespace splinebench::scattered {

// P (fine x coarse) for one coarsening of `fine`; writes the coarse grid.
SparseMatrix prolongation(const GridShape& fine, Mode mode, GridShape& coarse);

enum class Smoother { lexicographic, multicolour };

class Hierarchy {
 public:
  // Coarsens `max_coarsenings` times (negative: until the coarsest level has at most
  // `coarsest_max_unknowns` unknowns or no axis can be halved).
  static Hierarchy build(const GridShape& grid, Mode mode, const SparseMatrix& a, int max_coarsenings = -1,
                         std::int64_t coarsest_max_unknowns = 1024);
  int levels() const { return static_cast<int>(grids_.size()); }
  const GridShape& grid(int level) const { return grids_[level]; }
  const SparseMatrix& matrix(int level) const { return level == 0 ? *fine_ : coarse_[level - 1]; }
  // From level + 1 to level.
  const SparseMatrix& prolongation(int level) const { return prolong_[level]; }

 private:
  const SparseMatrix* fine_ = nullptr;  // the caller's matrix (must outlive the hierarchy)
  std::vector<GridShape> grids_;
  std::vector<SparseMatrix> coarse_;
  std::vector<SparseMatrix> prolong_;
};

// One symmetric V-cycle as a preconditioner: z = V r.
class VCycle {
 public:
  VCycle(const Hierarchy& hierarchy, Mode mode, Smoother smoother, int sweeps = 1);
  ~VCycle();
  VCycle(VCycle&&) noexcept;
  void apply(const Vector& r, Vector& z) const;
  Preconditioner preconditioner() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

SolveReport mg_pcg(const SparseMatrix& a, const Vector& b, Vector& x, const VCycle& cycle,
                   const IterationControl& control);

// The seed's parameters: N coarse-grid corrections with N0 initial, N1 pre- and N2
// post-correction CG iterations; M, M0, M1, M2 the same for the error systems; P the
// number of coarsenings. Table 4/6: N=3, N0=N1=N2=10, M=2, M0=10, M1=5, M2=10, P=2.
struct SeedMultigrid {
  int n = 3, n0 = 10, n1 = 10, n2 = 10;
  int m = 2, m0 = 10, m1 = 5, m2 = 10;
  int p = 2;
  // Fine-level CG iterations: n0 + n (n1 + n2).
  int fine_iterations() const { return n0 + n * (n1 + n2); }
};

// Solves on level l (l = 0 the hierarchy's fine level) as the seed describes:
//   x = P * solve(l + 1, P^T b)                 cascadic start (zero on the coarsest level)
//   x = CG(x, N0)
//   repeat N times (not on the coarsest level):
//     x = CG(x, N1);  e = solve_error(l + 1, P^T (b - A x));  x += P e;  x = CG(x, N2)
// where the error systems use (M, M0, M1, M2) in place of (N, N0, N1, N2) on every level
// below. The hierarchy must have p + 1 levels. The report's iterations are fine-level CG
// iterations; its history holds the fine-level relres after each of them.
SolveReport mg_seed(const Hierarchy& hierarchy, const Vector& b, Vector& x, const SeedMultigrid& params,
                    const std::function<void(int, const Vector&)>& observer = {});

}  // namespace splinebench::scattered
