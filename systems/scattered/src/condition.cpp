#include "splinebench/scattered/condition.hpp"

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <random>
#include <vector>

#include <Eigen/Dense>

#include "splinebench/error.hpp"

namespace splinebench::scattered {

double lanczos_largest(const std::function<void(const Vector&, Vector&)>& apply, Eigen::Index n, int steps,
                       int* taken, std::uint64_t seed) {
  if (steps < 1 || n < 1) throw Error("lanczos: steps and size must be >= 1");
  steps = static_cast<int>(std::min<Eigen::Index>(steps, n));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  Eigen::MatrixXd basis(n, steps);
  Vector q(n);
  for (Eigen::Index i = 0; i < n; ++i) q[i] = unit(rng);
  q.normalize();
  Eigen::MatrixXd t = Eigen::MatrixXd::Zero(steps, steps);
  int m = 0;
  Vector w(n);
  for (int j = 0; j < steps; ++j) {
    basis.col(j) = q;
    ++m;
    apply(q, w);
    // Full reorthogonalisation (twice) against the basis: the Ritz values stay free of
    // ghost copies, and a few tens of columns cost little beside the products.
    for (int pass = 0; pass < 2; ++pass) {
      const Vector h = basis.leftCols(m).transpose() * w;
      w -= basis.leftCols(m) * h;
      if (pass == 0) t(j, j) = h[j];
    }
    if (j + 1 == steps) break;
    const double beta = w.norm();
    if (beta <= 1e-12 * std::abs(t(j, j))) break;  // invariant subspace: the Ritz values are exact
    t(j, j + 1) = t(j + 1, j) = beta;
    q = w / beta;
  }
  if (taken) *taken = m;
  return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(t.topLeftCorner(m, m), Eigen::EigenvaluesOnly)
      .eigenvalues()
      .maxCoeff();
}

ConditionEstimate estimate_condition(const SparseMatrix& a, const std::function<void(const Vector&, Vector&)>& solve,
                                     int steps) {
  if (a.rows() < 1 || a.rows() != a.cols()) throw Error("estimate_condition: A must be square and not empty");
  ConditionEstimate e;
  e.lambda_max = lanczos_largest([&](const Vector& v, Vector& out) { out = a * v; }, a.rows(), steps, &e.steps_max);
  const double inv = lanczos_largest(solve, a.rows(), steps, &e.steps_min);
  e.lambda_min = inv > 0 ? 1 / inv : 0;
  return e;
}

}  // namespace splinebench::scattered
