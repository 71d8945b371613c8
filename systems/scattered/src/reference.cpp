#include "splinebench/scattered/reference.hpp"

#include <cmath>
#include <limits>
#include <sstream>

#include <Eigen/SparseCholesky>

#include "splinebench/scattered/multigrid.hpp"

namespace splinebench::scattered {

std::int64_t default_direct_max_unknowns(int) { return 70'000; }

namespace {

// Either preconditioned CG of the oracle beyond the direct threshold.
ReferenceSolution solve_iterative(const NormalEquations& system, const GridShape* grid, Mode mode,
                                  const ReferenceOptions& options) {
  ReferenceSolution out;
  const SparseMatrix& a = system.matrix;
  const Vector& b = system.rhs;
  out.method = grid ? "mg_pcg" : "cg";
  const Vector diag = a.diagonal();
  for (Eigen::Index i = 0; i < diag.size(); ++i)
    if (!(diag[i] > 0)) {
      out.report.status = SolveStatus::singular;
      out.report.message = "diagonal entry " + std::to_string(i) +
                           " is zero: no sample and no regularisation reach that unknown";
      return out;
    }
  Vector x = Vector::Zero(b.size());
  IterationControl control;
  control.max_iterations = options.cg_max_iterations;
  control.tolerance = options.cg_tolerance;
  if (grid) {
    const Hierarchy h = Hierarchy::build(*grid, mode, a);
    const VCycle cycle(h, mode, Smoother::lexicographic);
    out.report = mg_pcg(a, b, x, cycle, control);
  } else {
    out.report = conjugate_gradient(a, b, x, control, jacobi_preconditioner(a));
  }
  if (out.report.status == SolveStatus::converged) out.coeffs = std::move(x);
  return out;
}

ReferenceSolution solve_any(const NormalEquations& system, int dims, const GridShape* grid, Mode mode,
                            const ReferenceOptions& options) {
  ReferenceSolution out;
  const SparseMatrix& a = system.matrix;
  const Vector& b = system.rhs;
  const std::int64_t limit =
      options.direct_max_unknowns > 0 ? options.direct_max_unknowns : default_direct_max_unknowns(dims);
  if (a.rows() <= limit) {
    out.method = "ldlt";
    const Eigen::SparseMatrix<double, Eigen::ColMajor, int> col = a;
    Eigen::SimplicialLDLT<Eigen::SparseMatrix<double, Eigen::ColMajor, int>, Eigen::Lower> ldlt(col);
    const Vector d = ldlt.info() == Eigen::Success ? Vector(ldlt.vectorD()) : Vector();
    const double dmax = d.size() ? d.maxCoeff() : 0;
    const double dmin = d.size() ? d.minCoeff() : 0;
    out.pivot_ratio = dmax > 0 ? dmin / dmax : 0;
    // Rank-deficient A in f64 leaves pivots at the rounding level of the largest one.
    const double threshold = 64 * std::numeric_limits<double>::epsilon() * dmax;
    if (ldlt.info() != Eigen::Success || !(dmax > 0) || !(dmin > threshold)) {
      out.report.status = SolveStatus::singular;
      std::ostringstream msg;
      if (ldlt.info() != Eigen::Success)
        msg << "the matrix is singular (the LDL^T factorisation met a zero pivot)";
      else
        msg << "the matrix is singular to working precision (smallest LDL^T pivot " << dmin << " against largest "
            << dmax << ")";
      msg << ": lambda = 0 with samples that do not determine every coefficient";
      out.report.message = msg.str();
      return out;
    }
    out.coeffs = ldlt.solve(b);
    out.report.status = SolveStatus::converged;
    out.report.relres = relative_residual(a, b, out.coeffs);
    return out;
  }
  return solve_iterative(system, grid, mode, options);
}

}  // namespace

ReferenceSolution solve_reference(const NormalEquations& system, int dims, const ReferenceOptions& options) {
  return solve_any(system, dims, nullptr, Mode::mirror, options);
}

ReferenceSolution solve_reference(const NormalEquations& system, const GridShape& grid, Mode mode,
                                  const ReferenceOptions& options) {
  return solve_any(system, grid.dims, &grid, mode, options);
}

}  // namespace splinebench::scattered
