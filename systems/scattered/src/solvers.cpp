#include "splinebench/scattered/solvers.hpp"

#include "splinebench/scattered/condition.hpp"

#include <cmath>
#include <limits>
#include <random>
#include <sstream>

#include <Eigen/Eigenvalues>

#include "splinebench/error.hpp"

namespace splinebench::scattered {

std::string_view to_string(SolveStatus status) {
  switch (status) {
    case SolveStatus::converged: return "converged";
    case SolveStatus::max_iterations: return "max_iterations";
    case SolveStatus::diverged: return "diverged";
    case SolveStatus::singular: return "singular";
  }
  return "?";
}

double relative_residual(const SparseMatrix& a, const Vector& b, const Vector& x) {
  const double bn = b.norm();
  const double rn = (b - a * x).norm();
  if (bn == 0) return rn == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return rn / bn;
}

namespace {

Vector diagonal_of(const SparseMatrix& a) { return a.diagonal(); }

// The first zero (or non-positive) diagonal entry, or -1. A zero diagonal means an
// unknown no sample and no regulariser touches: the system is singular.
Eigen::Index bad_diagonal(const Vector& d) {
  for (Eigen::Index i = 0; i < d.size(); ++i)
    if (!(d[i] > 0)) return i;
  return -1;
}

SolveReport singular_diagonal(Eigen::Index i, const SparseMatrix& a, const Vector& b, const Vector& x) {
  SolveReport rep;
  rep.status = SolveStatus::singular;
  rep.message = "diagonal entry " + std::to_string(i) + " is zero: no sample and no regularisation reach that unknown";
  rep.relres = relative_residual(a, b, x);
  return rep;
}

// Shared loop of the stationary methods: `step` updates x once; the residual is
// recomputed in full after every step.
template <typename Step>
SolveReport stationary(const SparseMatrix& a, const Vector& b, Vector& x, const IterationControl& control, Step step) {
  SolveReport rep;
  const double bn = b.norm();
  const double scale = bn > 0 ? bn : 1.0;
  const double r0 = (b - a * x).norm();
  const double limit = control.divergence_factor * std::max(r0, bn);
  Vector previous;
  for (int it = 1; it <= control.max_iterations; ++it) {
    previous = x;
    step(x);
    const double rn = (b - a * x).norm();
    if (!std::isfinite(rn) || rn > limit) {
      x = previous;
      rep.status = SolveStatus::diverged;
      rep.iterations = it - 1;
      std::ostringstream msg;
      msg << "diverged at iteration " << it << ": ||r|| = " << rn << " against " << r0 << " at the start";
      rep.message = msg.str();
      rep.relres = relative_residual(a, b, x);
      return rep;
    }
    rep.history.push_back(rn / scale);
    rep.iterations = it;
    if (control.observer) control.observer(it, x);
    if (control.tolerance > 0 && rn / scale <= control.tolerance) {
      rep.status = SolveStatus::converged;
      break;
    }
  }
  if (rep.status != SolveStatus::converged) rep.message = "iteration budget used up";
  rep.relres = relative_residual(a, b, x);
  return rep;
}

}  // namespace

SolveReport jacobi(const SparseMatrix& a, const Vector& b, Vector& x, double omega, const IterationControl& control) {
  const Vector d = diagonal_of(a);
  if (const auto i = bad_diagonal(d); i >= 0) return singular_diagonal(i, a, b, x);
  const Vector inv_d = omega * d.cwiseInverse();
  return stationary(a, b, x, control, [&](Vector& v) { v += inv_d.cwiseProduct(b - a * v); });
}

double jacobi_spectral_radius_estimate(const SparseMatrix& a, int steps) {
  const Vector d = diagonal_of(a);
  if (const auto i = bad_diagonal(d); i >= 0)
    fail("Jacobi spectral estimate: diagonal entry " + std::to_string(i) + " is zero");
  // The largest eigenvalue of D^-1/2 A D^-1/2 (that of D^-1 A), by Lanczos.
  const Vector s = d.cwiseSqrt().cwiseInverse();
  return lanczos_largest([&](const Vector& q, Vector& w) { w = s.cwiseProduct(a * s.cwiseProduct(q)); }, a.rows(),
                         steps, nullptr, 12345);
}

double jacobi_damping(const SparseMatrix& a, int steps) { return 1.0 / jacobi_spectral_radius_estimate(a, steps); }

Colouring colouring_seed_gs8x(const GridShape& grid) {
  Colouring c;
  c.colours.resize(8);
  const std::int64_t n = grid.extent[grid.dims - 1];
  for (std::int64_t k = 0; k < grid.points(); ++k) c.colours[(k % n) % 8].push_back(static_cast<int>(k));
  std::erase_if(c.colours, [](const std::vector<int>& v) { return v.empty(); });
  return c;
}

Colouring colouring_multicolour(const GridShape& grid, const SparseMatrix& a) {
  int count = 1;
  for (int d = 0; d < grid.dims; ++d) count *= 4;
  std::vector<int> colour(static_cast<std::size_t>(grid.points()));
  for (std::int64_t k = 0; k < grid.points(); ++k) {
    int c = 0;
    for (int d = 0; d < grid.dims; ++d) c = 4 * c + static_cast<int>(((k / grid.stride(d)) % grid.extent[d]) % 4);
    colour[k] = c;
  }
  for (int row = 0; row < a.outerSize(); ++row)
    for (SparseMatrix::InnerIterator it(a, row); it; ++it)
      if (it.col() != row && colour[it.col()] == colour[row])
        throw Unsupported("multicolour Gauss-Seidel: unknowns " + std::to_string(row) + " and " +
                          std::to_string(it.col()) +
                          " couple but share a colour (a periodic extent that is not a multiple of 4)");
  Colouring c;
  c.colours.resize(static_cast<std::size_t>(count));
  for (std::int64_t k = 0; k < grid.points(); ++k) c.colours[colour[k]].push_back(static_cast<int>(k));
  std::erase_if(c.colours, [](const std::vector<int>& v) { return v.empty(); });
  return c;
}

namespace {

double row_update(const SparseMatrix& a, const Vector& b, const Vector& x, int row) {
  double sum = b[row];
  double diag = 0;
  for (SparseMatrix::InnerIterator it(a, row); it; ++it) {
    if (it.col() == row) diag = it.value();
    else sum -= it.value() * x[it.col()];
  }
  return sum / diag;
}

}  // namespace

void coloured_sweep(const SparseMatrix& a, const Vector& b, Vector& x, const Colouring& colouring, bool forward) {
  std::vector<double> next;
  const auto count = colouring.colours.size();
  for (std::size_t step = 0; step < count; ++step) {
    const auto& members = colouring.colours[forward ? step : count - 1 - step];
    next.resize(members.size());
    // Every unknown of the colour sees the same x (as the parallel kernel does).
    for (std::size_t m = 0; m < members.size(); ++m) next[m] = row_update(a, b, x, members[m]);
    for (std::size_t m = 0; m < members.size(); ++m) x[members[m]] = next[m];
  }
}

void lexicographic_sweep(const SparseMatrix& a, const Vector& b, Vector& x, bool forward) {
  const int n = static_cast<int>(a.rows());
  for (int s = 0; s < n; ++s) {
    const int row = forward ? s : n - 1 - s;
    x[row] = row_update(a, b, x, row);
  }
}

SolveReport coloured_gauss_seidel(const SparseMatrix& a, const Vector& b, Vector& x, const Colouring& colouring,
                                  bool symmetric, const IterationControl& control) {
  if (const auto i = bad_diagonal(diagonal_of(a)); i >= 0) return singular_diagonal(i, a, b, x);
  return stationary(a, b, x, control, [&](Vector& v) {
    coloured_sweep(a, b, v, colouring, true);
    if (symmetric) coloured_sweep(a, b, v, colouring, false);
  });
}

SolveReport gauss_seidel_lexicographic(const SparseMatrix& a, const Vector& b, Vector& x, bool symmetric,
                                       const IterationControl& control) {
  if (const auto i = bad_diagonal(diagonal_of(a)); i >= 0) return singular_diagonal(i, a, b, x);
  return stationary(a, b, x, control, [&](Vector& v) {
    lexicographic_sweep(a, b, v, true);
    if (symmetric) lexicographic_sweep(a, b, v, false);
  });
}

Preconditioner jacobi_preconditioner(const SparseMatrix& a) {
  const Vector d = diagonal_of(a);
  if (const auto i = bad_diagonal(d); i >= 0)
    fail("Jacobi preconditioner: diagonal entry " + std::to_string(i) + " is zero");
  const Vector inv = d.cwiseInverse();
  return [inv](const Vector& r, Vector& z) { z = inv.cwiseProduct(r); };
}

SolveReport conjugate_gradient(const SparseMatrix& a, const Vector& b, Vector& x, const IterationControl& control,
                               const Preconditioner& preconditioner) {
  SolveReport rep;
  const double bn = b.norm();
  if (bn == 0) {
    x.setZero();
    rep.status = SolveStatus::converged;
    return rep;
  }
  auto apply_m = [&](const Vector& r, Vector& z) {
    if (preconditioner) preconditioner(r, z);
    else z = r;
  };
  Vector r = b - a * x;
  Vector z(r.size());
  apply_m(r, z);
  Vector p = z;
  double rz = r.dot(z);
  Vector ap(r.size());
  int replacements = 0;
  constexpr int kMaxReplacements = 5;  // more means the recurrence cannot reach the tolerance in f64
  for (int it = 1; it <= control.max_iterations; ++it) {
    ap.noalias() = a * p;
    const double pap = p.dot(ap);
    if (!(pap > 0)) {
      rep.status = SolveStatus::singular;
      std::ostringstream msg;
      msg << "p.Ap = " << pap << " at iteration " << it << ": the matrix is not positive definite";
      rep.message = msg.str();
      break;
    }
    const double alpha = rz / pap;
    x.noalias() += alpha * p;
    r.noalias() -= alpha * ap;
    double rel = r.norm() / bn;
    rep.iterations = it;
    if (control.tolerance > 0 && rel <= control.tolerance) {
      // The recurrence residual drifts from b - A x; accept only the true one.
      r = b - a * x;
      rel = r.norm() / bn;
      rep.history.push_back(rel);
      if (control.observer) control.observer(it, x);
      if (rel <= control.tolerance) {
        rep.status = SolveStatus::converged;
        break;
      }
      if (++replacements > kMaxReplacements) {
        rep.message = "stagnated: the true residual stays above the tolerance after residual replacement";
        break;
      }
      apply_m(r, z);
      rz = r.dot(z);
      p = z;
      continue;
    }
    rep.history.push_back(rel);
    if (control.observer) control.observer(it, x);
    apply_m(r, z);
    const double rz_next = r.dot(z);
    p = z + (rz_next / rz) * p;
    rz = rz_next;
  }
  if (rep.status == SolveStatus::max_iterations && rep.message.empty()) rep.message = "iteration budget used up";
  rep.relres = relative_residual(a, b, x);
  if (!std::isfinite(rep.relres)) fail("conjugate gradient: non-finite residual (input not validated?)");
  return rep;
}

}  // namespace splinebench::scattered
