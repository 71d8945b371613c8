#include "splinebench/scattered/condition.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <Eigen/Dense>

#include "splinebench/error.hpp"

namespace splinebench::scattered {

double lanczos_largest(const std::function<void(const Vector&, Vector&)>& apply, Eigen::Index n, int steps,
                       int* taken) {
  if (steps < 1 || n < 1) throw Error("lanczos: steps and size must be >= 1");
  steps = static_cast<int>(std::min<Eigen::Index>(steps, n));
  std::mt19937_64 rng(2024);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  Vector q(n);
  for (Eigen::Index i = 0; i < n; ++i) q[i] = unit(rng);
  q /= q.norm();
  std::vector<Vector> basis{q};
  std::vector<double> alpha, beta;
  Vector w(n);
  for (int j = 0; j < steps; ++j) {
    apply(basis.back(), w);
    alpha.push_back(basis.back().dot(w));
    // Full reorthogonalisation (twice): the Ritz values stay free of ghost copies.
    for (int pass = 0; pass < 2; ++pass)
      for (const Vector& v : basis) w -= v.dot(w) * v;
    const double b = w.norm();
    if (j + 1 == steps || !(b > 1e-12 * std::abs(alpha.back()))) break;  // done, or the Krylov space closed
    beta.push_back(b);
    basis.push_back(w / b);
  }
  const auto m = static_cast<Eigen::Index>(alpha.size());
  Eigen::MatrixXd t = Eigen::MatrixXd::Zero(m, m);
  for (Eigen::Index i = 0; i < m; ++i) {
    t(i, i) = alpha[static_cast<std::size_t>(i)];
    if (i + 1 < m) t(i, i + 1) = t(i + 1, i) = beta[static_cast<std::size_t>(i)];
  }
  if (taken) *taken = static_cast<int>(m);
  return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(t, Eigen::EigenvaluesOnly).eigenvalues().maxCoeff();
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
