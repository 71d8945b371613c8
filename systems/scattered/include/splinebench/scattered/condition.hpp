// A condition estimate of the normal equations, for the error bound of a solution:
//
//   ||c - c*|| / ||c*|| <= kappa(A) ||b - A c|| / ||b||      (A symmetric positive definite)
//
// kappa = lambda_max / lambda_min from Lanczos with full reorthogonalisation: on A for
// lambda_max, and on A^-1 (through a caller's solve) for 1 / lambda_min. Ritz values lie
// inside the spectrum, so each is an under-estimate of its extreme and kappa_estimate <=
// kappa: the bound built on it is an estimate, not a guarantee. For the matrices here the
// extremes converge within a few tens of steps (the tests measure how close on matrices
// with known spectra).
#pragma once

#include <cstdint>
#include <functional>

#include "splinebench/scattered/assembly.hpp"

namespace splinebench::scattered {

struct ConditionEstimate {
  double lambda_max = 0;
  double lambda_min = 0;
  double kappa() const { return lambda_min > 0 ? lambda_max / lambda_min : 0; }
  int steps_max = 0, steps_min = 0;  // Lanczos steps taken (fewer when the Krylov space closed)
};

// The largest Ritz value of `steps` Lanczos steps (full reorthogonalisation) on the
// symmetric operator `apply` from a start drawn with `seed`; `taken`: the steps run (fewer
// when the Krylov space closed). Throws splinebench::Error for steps < 1 or n < 1.
double lanczos_largest(const std::function<void(const Vector&, Vector&)>& apply, Eigen::Index n, int steps,
                       int* taken = nullptr, std::uint64_t seed = 2024);

// lambda_max from A itself, lambda_min from `solve` (x = A^-1 b, to a tolerance well below
// the accuracy wanted of lambda_min). Throws splinebench::Error for steps < 1 or an empty A.
ConditionEstimate estimate_condition(const SparseMatrix& a, const std::function<void(const Vector&, Vector&)>& solve,
                                     int steps = 30);

}  // namespace splinebench::scattered
