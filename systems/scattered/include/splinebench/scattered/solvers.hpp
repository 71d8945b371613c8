// Iterative solvers of the normal equations A c = b in f64: the definitions the GPU
// versions must reproduce. Each takes the start vector in x, leaves its last finite
// iterate there and returns a report; none ever leaves NaN in x.
//
//   jacobi                 x += omega D^-1 (b - A x); the seed uses omega = 1, which
//                          diverges when lambda_max(D^-1 A) > 2 (the 3-D systems do).
//   coloured_gauss_seidel  unknowns of one colour updated together from the current x:
//                          colouring_seed_gs8x is the seed's "8-colour" order (colour =
//                          index along the contiguous axis mod 8): same-colour unknowns
//                          still couple along the other axes, so it is Gauss-Seidel along
//                          that axis and Jacobi across. colouring_multicolour is a true
//                          multicolour order (4^D colours by index mod 4 on every axis;
//                          checked: no two coupled unknowns share a colour).
//   gauss_seidel_lexicographic  the sequential CPU method (Vucini et al.).
//   conjugate_gradient     preconditioned CG as in the textbook (alpha = r.z / p.Ap; the
//                          seed's listing divides by p.p), with true-residual replacement
//                          when the recurrence claims convergence.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "splinebench/scattered/assembly.hpp"

namespace splinebench::scattered {

enum class SolveStatus {
  converged,       // relres <= tolerance
  max_iterations,  // the iteration budget ran out first (the seed's fixed counts end here)
  diverged,        // the residual grew past divergence_factor x its start, or stopped being finite
  singular,        // a zero diagonal, p.Ap <= 0, or (direct solve) a vanishing pivot
};
std::string_view to_string(SolveStatus status);

struct IterationControl {
  int max_iterations = 100;
  double tolerance = 0;             // stop once relres <= tolerance; 0 runs all iterations
  double divergence_factor = 1e4;   // diverged when ||r_k|| > factor * max(||r_0||, ||b||)
  // Called after every iteration with the iteration number (1-based) and the iterate.
  std::function<void(int, const Vector&)> observer;
  // Where the solver has the CPU's f64 system, whether SolveReport::relres is recomputed
  // there from the returned x (a sparse product on the host: about 4 ms at 512²). The
  // harness's timed repetitions turn it off, as a user's solve would not pay for it; their
  // records take relres from an untimed run. Off, relres is the solver's own (the last
  // recurrence residual, or the device operator's b - A x).
  bool verify_relres = true;
};

struct SolveReport {
  SolveStatus status = SolveStatus::max_iterations;
  int iterations = 0;
  double relres = 0;             // ||b - A x|| / ||b|| of the returned x, recomputed in f64
  std::vector<double> history;   // relres after each iteration (CG: of the recurrence residual)
  std::string message;           // why it stopped, when not converged
};

// ||b - A x|| / ||b|| (0 when b = 0 and x solves it).
double relative_residual(const SparseMatrix& a, const Vector& b, const Vector& x);

SolveReport jacobi(const SparseMatrix& a, const Vector& b, Vector& x, double omega, const IterationControl& control);

// Largest eigenvalue of D^-1 A estimated by `steps` Lanczos steps on D^-1/2 A D^-1/2
// (full reorthogonalisation; a Ritz value, so at most the true value and close to it).
double jacobi_spectral_radius_estimate(const SparseMatrix& a, int steps = 20);

// The damping 1 / lambda_max(D^-1 A) estimated above: convergent whenever the estimate
// exceeds half the true value, which 20 steps guarantee in practice.
double jacobi_damping(const SparseMatrix& a, int steps = 20);

struct Colouring {
  std::vector<std::vector<int>> colours;  // unknowns of each colour, ascending
};
Colouring colouring_seed_gs8x(const GridShape& grid);
// Throws splinebench::Unsupported when two coupled unknowns share a colour (periodic
// axes whose extent is not a multiple of 4).
Colouring colouring_multicolour(const GridShape& grid, const SparseMatrix& a);

// One sweep over the colours in order (forward) or reverse order.
void coloured_sweep(const SparseMatrix& a, const Vector& b, Vector& x, const Colouring& colouring, bool forward);
// One sequential sweep in index order (forward) or reverse order.
void lexicographic_sweep(const SparseMatrix& a, const Vector& b, Vector& x, bool forward);

// An iteration is a forward sweep, or forward then backward when symmetric.
SolveReport coloured_gauss_seidel(const SparseMatrix& a, const Vector& b, Vector& x, const Colouring& colouring,
                                  bool symmetric, const IterationControl& control);
SolveReport gauss_seidel_lexicographic(const SparseMatrix& a, const Vector& b, Vector& x, bool symmetric,
                                       const IterationControl& control);

// z = M^-1 r for a symmetric positive definite M.
using Preconditioner = std::function<void(const Vector& r, Vector& z)>;

SolveReport conjugate_gradient(const SparseMatrix& a, const Vector& b, Vector& x, const IterationControl& control,
                               const Preconditioner& preconditioner = {});

// z = D^-1 r.
Preconditioner jacobi_preconditioner(const SparseMatrix& a);

}  // namespace splinebench::scattered
