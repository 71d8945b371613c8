// What the GPU scattered-reconstruction tests share: random problems with samples
// anywhere inside the grid (some exactly on nodes and on the last node, where the fourth
// tap has weight 0), and the absolute-value sums that rounding bounds scale with.
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "splinebench/error.hpp"
#include "splinebench/scattered/assembly.hpp"
#include "splinebench/scattered/basis.hpp"
#include "splinebench/scattered/gpu_cg.hpp"
#include "splinebench/scattered/gpu_multigrid.hpp"
#include "splinebench/scattered/lanczos_start.hpp"
#include "splinebench/scattered/multigrid.hpp"
#include "splinebench/scattered/thin_plate.hpp"

namespace splinebench::scattered::test {

// The level tests' grids: each halves twice in every mode; odd and even extents (even
// mirror and half extents are where the coarse space does not nest in the fine one), an
// axis too short to halve, 2-D and 3-D.
inline std::vector<GridShape> level_test_grids() {
  return {GridShape::make({13, 11}), GridShape::make({12, 10}), GridShape::make({10, 4}), GridShape::make({9, 8, 7}),
          GridShape::make({10, 6, 9})};
}

inline Problem random_problem(const GridShape& grid, Mode mode, double lambda, double samples_per_node,
                              std::uint64_t seed) {
  Problem p;
  p.grid = grid;
  p.mode = mode;
  p.lambda = lambda;
  const auto n = std::max<std::int64_t>(4, static_cast<std::int64_t>(samples_per_node * grid.points()));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0), value(-1.0, 1.0);
  p.points.resize(static_cast<std::size_t>(grid.dims * n));
  for (int d = 0; d < grid.dims; ++d) {
    const double top = static_cast<double>(grid.extent[d] - 1);
    for (std::int64_t i = 0; i < n; ++i) {
      double x = unit(rng) * top;
      if (i % 7 == 3) x = std::floor(x);  // on a node
      if (i == 5) x = top;                // on the last node
      p.points[static_cast<std::size_t>(d * n + i)] = x;
    }
  }
  for (std::int64_t i = 0; i < n; ++i) p.values.push_back(value(rng));
  return p;
}

// Per row: how many samples reach the row's node (each entry of that row sums at most
// this many sample products).
inline std::vector<int> samples_per_row(const Problem& p) {
  std::vector<int> count(static_cast<std::size_t>(p.grid.points()), 0);
  const int dims = p.grid.dims;
  for (std::int64_t i = 0; i < p.samples(); ++i) {
    std::array<AxisTaps, 3> taps;
    for (int d = 0; d < dims; ++d) taps[d] = axis_taps(p.mode, p.grid.extent[d], p.coordinate(d, i));
    for (int d = dims; d < 3; ++d) taps[d].count = 1;  // trailing singleton axes
    for (int s0 = 0; s0 < taps[0].count; ++s0)
      for (int s1 = 0; s1 < taps[1].count; ++s1)
        for (int s2 = 0; s2 < taps[2].count; ++s2) {
          std::int64_t row = taps[0].node[s0];
          if (dims > 1) row = row * p.grid.extent[1] + taps[1].node[s1];
          if (dims > 2) row = row * p.grid.extent[2] + taps[2].node[s2];
          ++count[static_cast<std::size_t>(row)];
        }
  }
  return count;
}

// Entry by entry, sum over the thin-plate terms of |weight * prod_d T|: the scale of the
// rounding in lambda R. On the assembly's pattern (same order as matrix.valuePtr()).
inline std::vector<double> thin_plate_abs(const GridShape& grid, Mode mode, double lambda) {
  const int dims = grid.dims;
  std::vector<AxisPattern> pattern;
  std::vector<AxisIntegrals> integrals;
  for (int d = 0; d < dims; ++d) {
    pattern.push_back(AxisPattern::make(mode, grid.extent[d]));
    integrals.push_back(AxisIntegrals::make(mode, pattern.back()));
  }
  const std::vector<ThinPlateTerm> terms = thin_plate_terms(dims);
  std::vector<double> out;
  std::array<std::int64_t, 3> k{0, 0, 0};
  const std::array<std::int64_t, 3> n{grid.extent[0], dims > 1 ? grid.extent[1] : 1, dims > 2 ? grid.extent[2] : 1};
  for (k[0] = 0; k[0] < n[0]; ++k[0])
    for (k[1] = 0; k[1] < n[1]; ++k[1])
      for (k[2] = 0; k[2] < n[2]; ++k[2]) {
        std::array<std::int64_t, 3> lo{0, 0, 0}, hi{1, 1, 1};
        for (int d = 0; d < dims; ++d) {
          lo[d] = pattern[d].offset[k[d]];
          hi[d] = pattern[d].offset[k[d] + 1];
        }
        for (std::int64_t j0 = lo[0]; j0 < hi[0]; ++j0)
          for (std::int64_t j1 = lo[1]; j1 < hi[1]; ++j1)
            for (std::int64_t j2 = lo[2]; j2 < hi[2]; ++j2) {
              const std::array<std::int64_t, 3> j{j0, j1, j2};
              double s = 0;
              for (const ThinPlateTerm& t : terms) {
                double prod = lambda * t.weight;
                for (int d = 0; d < dims; ++d) prod *= integrals[d].table[t.order[d]][j[d]];
                s += std::abs(prod);
              }
              out.push_back(s);
            }
      }
  return out;
}


// Whether P maps the coarse folded space into the fine one on an axis of n nodes (odd
// mirror, even periodic, and axes too short to halve): there a level is Galerkin's.
inline bool exact_axis(Mode mode, std::int64_t n) {
  return n < 5 || (mode == Mode::mirror && n % 2 == 1) || (mode == Mode::periodic && n % 2 == 0);
}
inline bool exact_grid(Mode mode, const GridShape& g) {
  for (int d = 0; d < g.dims; ++d)
    if (!exact_axis(mode, g.extent[d])) return false;
  return true;
}

// Dense table of one axis from pattern-aligned values.
inline Eigen::MatrixXd dense_table(Mode mode, int n, const std::vector<double>& aligned) {
  const AxisPattern pattern = AxisPattern::make(mode, n);
  Eigen::MatrixXd t = Eigen::MatrixXd::Zero(n, n);
  for (int k = 0; k < n; ++k)
    for (auto j = pattern.offset[k]; j < pattern.offset[k + 1]; ++j) t(k, pattern.node[j]) = aligned[j];
  return t;
}

inline Eigen::MatrixXd kron(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  Eigen::MatrixXd out(a.rows() * b.rows(), a.cols() * b.cols());
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < a.cols(); ++j) out.block(i * b.rows(), j * b.cols(), b.rows(), b.cols()) = a(i, j) * b;
  return out;
}

// Level l of the GPU multigrid coarsened `coarsenings` times, by the CPU's assembly: the
// samples at x / s (s = 2 per halving of the axis), R_l from the level's tables; and the
// same with |R_l|, the scale of the rounding. Dense: for small grids.
struct LevelReference {
  GridShape grid;
  Problem scaled;  // the samples in the level's units
  Eigen::MatrixXd a, a_abs;
};

inline LevelReference level_reference(const Problem& fine, int coarsenings, int level) {
  const std::vector<GridShape> grids = gpu::multigrid_grids(fine, coarsenings);
  const int dims = fine.grid.dims;
  LevelReference r;
  r.grid = grids[static_cast<std::size_t>(level)];
  std::array<double, 3> scale{1, 1, 1};
  for (int l = 0; l < level; ++l)
    for (int d = 0; d < dims; ++d)
      if (grids[static_cast<std::size_t>(l + 1)].extent[d] != grids[static_cast<std::size_t>(l)].extent[d]) scale[d] *= 2;
  r.scaled = fine;
  r.scaled.grid = r.grid;
  for (int d = 0; d < dims; ++d)
    for (std::int64_t i = 0; i < fine.samples(); ++i) r.scaled.points[d * fine.samples() + i] /= scale[d];
  SparseMatrix m = pattern_matrix(r.grid, fine.mode);
  Vector rhs = Vector::Zero(m.rows());
  add_samples(r.scaled, m, rhs);
  r.a = Eigen::MatrixXd(m);
  r.a_abs = r.a.cwiseAbs();
  std::vector<std::array<Eigen::MatrixXd, 3>> t(static_cast<std::size_t>(dims));
  for (int d = 0; d < dims; ++d) {
    const int n = static_cast<int>(r.grid.extent[d]);
    const auto tab = gpu::level_axis_tables(fine.mode, n, (fine.grid.extent[d] - 1) / scale[d], scale[d]);
    for (int q = 0; q < 3; ++q) t[d][q] = dense_table(fine.mode, n, tab[q]);
  }
  for (const ThinPlateTerm& term : thin_plate_terms(dims)) {
    Eigen::MatrixXd k = t[0][term.order[0]], k_abs = k.cwiseAbs();
    for (int d = 1; d < dims; ++d) {
      k = kron(k, t[d][term.order[d]]);
      k_abs = kron(k_abs, t[d][term.order[d]].cwiseAbs());
    }
    r.a += fine.lambda * term.weight * k;
    r.a_abs += std::abs(fine.lambda * term.weight) * k_abs;
  }
  return r;
}

// An f64 model of the device's MG-PCG (gpu_multigrid.hpp, src/gpu/multigrid_device.hpp):
// the same levels (coarsened until the coarsest has at most coarsest_max_unknowns nodes;
// level 0 the CPU assembly's matrix, the others from their stencils formed on the host),
// the same P, `degree` Chebyshev steps before and after the coarse correction on D^-1 A
// over [0.1, 1] * 1.1 * lambda_hat (lambda_hat the largest Ritz value of 10 Jacobi-PCG
// steps from the device's seeded start), the coarsest solved exactly, CG with the flexible
// beta stopped on the recurrence residual. The device's iterations differ from this only
// by f32 rounding; this count is what the design promises.
class VCycleModel {
 public:
  VCycleModel(const Problem& problem, const SparseMatrix& fine, std::int64_t coarsest_max_unknowns, int degree = 3)
      : degree_(degree) {
    std::vector<GridShape> grids{problem.grid};
    while (grids.back().points() > coarsest_max_unknowns) {
      GridShape coarse;
      SparseMatrix p = prolongation(grids.back(), problem.mode, coarse);
      if (coarse == grids.back()) break;
      p_.push_back(std::move(p));
      grids.push_back(coarse);
    }
    const int coarsenings = static_cast<int>(grids.size()) - 1;
    a_.push_back(fine);
    for (int l = 1; l <= coarsenings; ++l) a_.push_back(gpu::level_matrix_host(problem, coarsenings, l));
    for (const SparseMatrix& a : a_) inv_diag_.push_back(a.diagonal().cwiseInverse());
    for (int l = 0; l < coarsenings; ++l) {
      const double h = 1.1 * lambda_hat(l);
      hi_.push_back(h);
      lo_.push_back(0.1 * h);
    }
    coarsest_.compute(Eigen::MatrixXd(a_.back()));
    grids_ = grids;
  }

  const std::vector<GridShape>& grids() const { return grids_; }

  // ||r|| / ||b|| after each iteration, until it is <= tolerance or max_iterations ran.
  std::vector<double> pcg_history(const Vector& b, double tolerance, int max_iterations) const {
    const SparseMatrix& a = a_[0];
    Vector x = Vector::Zero(b.size()), r = b, z;
    cycle(0, r, z);
    Vector p = z;
    double rz = r.dot(z);
    const double bn = b.norm();
    std::vector<double> history;
    for (int it = 1; it <= max_iterations; ++it) {
      const Vector ap = a * p;
      const double pap = p.dot(ap);
      x += (rz / pap) * p;
      r -= (rz / pap) * ap;
      history.push_back(r.norm() / bn);
      if (history.back() <= tolerance) break;
      cycle(0, r, z);
      const double beta = -z.dot(ap) / pap;
      p = z + beta * p;
      rz = r.dot(z);
    }
    return history;
  }

  // The first iteration of `history` at or below `tolerance` (1-based; -1: none).
  static int iterations_to(const std::vector<double>& history, double tolerance) {
    for (std::size_t i = 0; i < history.size(); ++i)
      if (history[i] <= tolerance) return static_cast<int>(i) + 1;
    return -1;
  }
  int pcg_iterations(const Vector& b, double tolerance, int max_iterations) const {
    return iterations_to(pcg_history(b, tolerance, max_iterations), tolerance);
  }

 private:
  double lambda_hat(int l) const {
    const SparseMatrix& a = a_[static_cast<std::size_t>(l)];
    const Vector& dinv = inv_diag_[static_cast<std::size_t>(l)];
    Vector r(a.rows());
    for (Eigen::Index i = 0; i < r.size(); ++i) r[i] = lanczos_start_value(l, i);  // the device's values
    Vector z = dinv.cwiseProduct(r), p = z;
    double rz = r.dot(z);
    std::vector<double> alpha, beta;
    for (int j = 0; j < 10; ++j) {
      const Vector ap = a * p;
      const double pap = p.dot(ap);
      if (!(pap > 0) || !(rz > 0)) break;
      alpha.push_back(rz / pap);
      r -= alpha.back() * ap;
      z = dinv.cwiseProduct(r);
      const double rz_next = r.dot(z);
      beta.push_back(rz_next / rz);
      p = z + beta.back() * p;
      rz = rz_next;
    }
    const auto m = static_cast<Eigen::Index>(alpha.size());
    Eigen::MatrixXd t = Eigen::MatrixXd::Zero(m, m);
    for (Eigen::Index j = 0; j < m; ++j) {
      t(j, j) = 1 / alpha[j] + (j > 0 ? beta[j - 1] / alpha[j - 1] : 0);
      if (j + 1 < m) t(j, j + 1) = t(j + 1, j) = std::sqrt(beta[j]) / alpha[j];
    }
    return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(t, Eigen::EigenvaluesOnly).eigenvalues().maxCoeff();
  }

  // Saad, Iterative Methods, alg. 12.1, as the device's smoother.
  void smooth(int l, const Vector& b, Vector& x, bool zero_start) const {
    const SparseMatrix& a = a_[static_cast<std::size_t>(l)];
    const Vector& dinv = inv_diag_[static_cast<std::size_t>(l)];
    const double lo = lo_[static_cast<std::size_t>(l)], hi = hi_[static_cast<std::size_t>(l)];
    const double theta = 0.5 * (hi + lo), delta = 0.5 * (hi - lo), sigma = theta / delta;
    double rho = 1 / sigma;
    Vector d = dinv.cwiseProduct(zero_start ? b : Vector(b - a * x)) / theta;
    if (zero_start) x = d;
    else x += d;
    for (int k = 1; k < degree_; ++k) {
      const double rho_next = 1 / (2 * sigma - rho);
      d = (rho_next * rho) * d + (2 * rho_next / delta) * dinv.cwiseProduct(b - a * x);
      x += d;
      rho = rho_next;
    }
  }

  void cycle(int l, const Vector& b, Vector& z) const {
    if (l + 1 == static_cast<int>(a_.size())) {
      z = coarsest_.solve(b);
      return;
    }
    smooth(l, b, z, true);
    const SparseMatrix& p = p_[static_cast<std::size_t>(l)];
    const Vector rc = p.transpose() * (b - a_[static_cast<std::size_t>(l)] * z);
    Vector ec;
    cycle(l + 1, rc, ec);
    z += p * ec;
    smooth(l, b, z, false);
  }

  int degree_;
  std::vector<GridShape> grids_;
  std::vector<SparseMatrix> a_, p_;
  std::vector<Vector> inv_diag_;
  std::vector<double> lo_, hi_;
  Eigen::LLT<Eigen::MatrixXd> coarsest_;
};

// Whether this build has the multigrid's host-side level arithmetic (a build without
// CUDA throws Unsupported from it); why not, otherwise. The host tests of the stencils
// and of the coarsest solve skip without it.
inline bool host_levels_available(std::string& why) {
  try {
    gpu::level_axis_tables(Mode::mirror, 5, 4, 1);
    return true;
  } catch (const Unsupported& e) {
    why = e.what();
    return false;
  }
}

}  // namespace splinebench::scattered::test
