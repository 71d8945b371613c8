#include "splinebench/scattered/multigrid.hpp"

#include <Eigen/SparseCholesky>

#include "splinebench/bspline_math.hpp"
#include "splinebench/error.hpp"

namespace splinebench::scattered {

namespace {

struct Entry {
  std::int64_t coarse;
  double weight;
};

// Per fine node of one axis, the coarse nodes and weights of the two-scale relation.
std::vector<std::vector<Entry>> axis_prolongation(Mode mode, std::int64_t n, std::int64_t& nc) {
  std::vector<std::vector<Entry>> rows(static_cast<std::size_t>(n));
  if (n < 5) {
    nc = n;
    for (std::int64_t j = 0; j < n; ++j) rows[j].push_back({j, 1.0});
    return rows;
  }
  // Periodic lines of even length halve exactly (coarse node K at 2K wraps onto itself);
  // otherwise the end nodes stay nodes of both grids.
  nc = mode == Mode::periodic && n % 2 == 0 ? n / 2 : (n - 1) / 2 + 1;
  constexpr double h[5] = {1.0 / 8, 4.0 / 8, 6.0 / 8, 4.0 / 8, 1.0 / 8};
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t k = (j - 2 + 1) / 2 - 1; k <= (j + 2) / 2 + 1; ++k) {
      const std::int64_t off = j - 2 * k;
      if (off < -2 || off > 2) continue;
      const std::int64_t kc = bspline::fold_index(static_cast<int>(mode), k, nc);
      bool merged = false;
      for (Entry& e : rows[j])
        if (e.coarse == kc) {
          e.weight += h[off + 2];
          merged = true;
        }
      if (!merged) rows[j].push_back({kc, h[off + 2]});
    }
  return rows;
}

}  // namespace

SparseMatrix prolongation(const GridShape& fine, Mode mode, GridShape& coarse) {
  std::array<std::vector<std::vector<Entry>>, 3> axis;
  std::array<std::int64_t, 3> nf{1, 1, 1}, nc{1, 1, 1};
  const int pad = 3 - fine.dims;
  for (int a = 0; a < 3; ++a) {
    if (a < pad) {
      axis[a] = {{{0, 1.0}}};
      continue;
    }
    nf[a] = fine.extent[a - pad];
    axis[a] = axis_prolongation(mode, nf[a], nc[a]);
  }
  std::vector<std::int64_t> extents;
  for (int a = pad; a < 3; ++a) extents.push_back(nc[a]);
  coarse = GridShape::make(extents);
  std::vector<Eigen::Triplet<double, int>> triplets;
  for (std::int64_t j0 = 0; j0 < nf[0]; ++j0)
    for (std::int64_t j1 = 0; j1 < nf[1]; ++j1)
      for (std::int64_t j2 = 0; j2 < nf[2]; ++j2) {
        const auto row = static_cast<int>((j0 * nf[1] + j1) * nf[2] + j2);
        for (const Entry& e0 : axis[0][j0])
          for (const Entry& e1 : axis[1][j1])
            for (const Entry& e2 : axis[2][j2])
              triplets.emplace_back(row, static_cast<int>((e0.coarse * nc[1] + e1.coarse) * nc[2] + e2.coarse),
                                    e0.weight * e1.weight * e2.weight);
      }
  SparseMatrix p(static_cast<int>(fine.points()), static_cast<int>(coarse.points()));
  p.setFromTriplets(triplets.begin(), triplets.end());
  return p;
}

Hierarchy Hierarchy::build(const GridShape& grid, Mode mode, const SparseMatrix& a, int max_coarsenings,
                           std::int64_t coarsest_max_unknowns) {
  Hierarchy h;
  h.fine_ = &a;
  h.grids_.push_back(grid);
  for (int level = 0; max_coarsenings < 0 || level < max_coarsenings; ++level) {
    const GridShape& g = h.grids_.back();
    if (max_coarsenings < 0 && g.points() <= coarsest_max_unknowns) break;
    GridShape coarse;
    SparseMatrix p = scattered::prolongation(g, mode, coarse);
    if (coarse == g) {
      if (max_coarsenings >= 0)
        fail("multigrid: grid " + g.to_string() + " cannot be coarsened " + std::to_string(max_coarsenings) +
             " times (every axis needs >= 5 nodes to halve)");
      break;
    }
    const SparseMatrix& fine = h.matrix(level);
    SparseMatrix ac = SparseMatrix(p.transpose() * (fine * p));
    h.coarse_.push_back(std::move(ac));
    h.prolong_.push_back(std::move(p));
    h.grids_.push_back(coarse);
  }
  return h;
}

struct VCycle::Impl {
  const Hierarchy* h = nullptr;
  Smoother smoother = Smoother::lexicographic;
  int sweeps = 1;
  std::vector<Colouring> colourings;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double, Eigen::ColMajor, int>> coarsest;

  void sweep(int level, const Vector& b, Vector& x, bool forward) const {
    const SparseMatrix& a = h->matrix(level);
    if (smoother == Smoother::multicolour) coloured_sweep(a, b, x, colourings[level], forward);
    else lexicographic_sweep(a, b, x, forward);
  }

  void cycle(int level, const Vector& b, Vector& x) const {
    if (level + 1 == h->levels()) {
      x = coarsest.solve(b);
      return;
    }
    const SparseMatrix& a = h->matrix(level);
    x.setZero(b.size());
    for (int s = 0; s < sweeps; ++s) sweep(level, b, x, true);
    const Vector rc = h->prolongation(level).transpose() * (b - a * x);
    Vector ec(rc.size());
    cycle(level + 1, rc, ec);
    x += h->prolongation(level) * ec;
    for (int s = 0; s < sweeps; ++s) sweep(level, b, x, false);
  }
};

VCycle::VCycle(const Hierarchy& hierarchy, Mode /*mode*/, Smoother smoother, int sweeps) : impl_(new Impl) {
  impl_->h = &hierarchy;
  impl_->smoother = smoother;
  impl_->sweeps = sweeps;
  if (smoother == Smoother::multicolour)
    for (int l = 0; l < hierarchy.levels(); ++l)
      impl_->colourings.push_back(colouring_multicolour(hierarchy.grid(l), hierarchy.matrix(l)));
  const Eigen::SparseMatrix<double, Eigen::ColMajor, int> coarse = hierarchy.matrix(hierarchy.levels() - 1);
  impl_->coarsest.compute(coarse);
  if (impl_->coarsest.info() != Eigen::Success || !(impl_->coarsest.vectorD().minCoeff() > 0))
    fail("multigrid: the coarsest level (" + hierarchy.grid(hierarchy.levels() - 1).to_string() +
         ") is singular; the system needs lambda > 0 or samples in every region");
}

VCycle::~VCycle() = default;
VCycle::VCycle(VCycle&&) noexcept = default;

void VCycle::apply(const Vector& r, Vector& z) const { impl_->cycle(0, r, z); }

Preconditioner VCycle::preconditioner() const {
  return [this](const Vector& r, Vector& z) { apply(r, z); };
}

SolveReport mg_pcg(const SparseMatrix& a, const Vector& b, Vector& x, const VCycle& cycle,
                   const IterationControl& control) {
  return conjugate_gradient(a, b, x, control, cycle.preconditioner());
}

namespace {

struct SeedSolver {
  const Hierarchy& h;
  const SeedMultigrid& prm;
  SolveReport* report = nullptr;  // the fine level's record
  const std::function<void(int, const Vector&)>* observer = nullptr;

  void cg(int level, const Vector& b, Vector& x, int iterations) const {
    if (iterations <= 0) return;
    IterationControl control;
    control.max_iterations = iterations;
    if (level == 0) {
      control.observer = [&](int, const Vector& v) {
        ++report->iterations;
        report->history.push_back(relative_residual(h.matrix(0), b, v));
        if (*observer) (*observer)(report->iterations, v);
      };
    }
    const SolveReport r = conjugate_gradient(h.matrix(level), b, x, control);
    if (r.status == SolveStatus::singular) fail("seed multigrid: " + r.message + " on level " + std::to_string(level));
  }

  // error = true: the (M, M0, M1, M2) parameters.
  Vector solve(int level, const Vector& b, bool error) const {
    const int n = error ? prm.m : prm.n, n0 = error ? prm.m0 : prm.n0, n1 = error ? prm.m1 : prm.n1,
              n2 = error ? prm.m2 : prm.n2;
    Vector x = Vector::Zero(b.size());
    const bool coarsest = level + 1 == h.levels();
    if (!coarsest) x = h.prolongation(level) * solve(level + 1, h.prolongation(level).transpose() * b, error);
    cg(level, b, x, n0);
    if (coarsest) return x;
    for (int c = 0; c < n; ++c) {
      cg(level, b, x, n1);
      const Vector rc = h.prolongation(level).transpose() * (b - h.matrix(level) * x);
      x += h.prolongation(level) * solve(level + 1, rc, true);
      cg(level, b, x, n2);
    }
    return x;
  }
};

}  // namespace

SolveReport mg_seed(const Hierarchy& hierarchy, const Vector& b, Vector& x, const SeedMultigrid& params,
                    const std::function<void(int, const Vector&)>& observer) {
  if (hierarchy.levels() != params.p + 1)
    fail("seed multigrid: the hierarchy has " + std::to_string(hierarchy.levels()) + " levels, P = " +
         std::to_string(params.p) + " needs " + std::to_string(params.p + 1));
  SolveReport rep;
  SeedSolver solver{hierarchy, params, &rep, &observer};
  x = solver.solve(0, b, false);
  rep.relres = relative_residual(hierarchy.matrix(0), b, x);
  rep.status = SolveStatus::max_iterations;
  rep.message = "fixed schedule of " + std::to_string(rep.iterations) + " fine-level iterations";
  return rep;
}

}  // namespace splinebench::scattered
