// The GPU multigrid (multigrid_device.hpp): levels of matrix-free operators (or, with
// coarse stencils, per-node stencils on the levels below the fine one: stencil_level.cuh),
// the seed's cascadic schedule and the V-cycle-preconditioned CG.
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <memory>
#include <random>
#include <sstream>

#include "cuda_support.cuh"
#include "multigrid_device.hpp"
#include "multigrid_transfer.cuh"
#include "operator_device.hpp"
#include "stencil_level.cuh"
#include "vector_kernels.cuh"

namespace splinebench::scattered::gpu::detail {

namespace {

using Clock = std::chrono::steady_clock;
double wall_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

__global__ void scale(long long n, const float* __restrict__ inv_diag, const float* __restrict__ r, float* z) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) z[i] = inv_diag[i] * r[i];
}

// inv = 1 / d; counts the entries that are not positive (a node no sample or regulariser reaches).
__global__ void invert(long long n, const float* __restrict__ d, float* inv, int* bad) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (d[i] > 0.f) inv[i] = 1.f / d[i];
  else {
    inv[i] = 0.f;
    atomicAdd(bad, 1);  // an integer count: the same in any order
  }
}

// First Chebyshev step: d = D^-1 (b - A x) / theta (A x = 0 when ap is null), x (=|+=) d.
__global__ void chebyshev_first(long long n, float inv_theta, const float* __restrict__ b, const float* __restrict__ ap,
                                const float* __restrict__ inv_diag, float* d, float* x, bool zero_x) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float res = ap ? b[i] - ap[i] : b[i];
  const float di = inv_diag[i] * res * inv_theta;
  d[i] = di;
  x[i] = zero_x ? di : x[i] + di;
}

// Later steps: d = c1 d + c2 D^-1 (b - A x), x += d.
__global__ void chebyshev_next(long long n, float c1, float c2, const float* __restrict__ b, const float* __restrict__ ap,
                               const float* __restrict__ inv_diag, float* d, float* x) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float di = fmaf(c1, d[i], c2 * inv_diag[i] * (b[i] - ap[i]));
  d[i] = di;
  x[i] += di;
}

// Largest eigenvalue of the symmetric tridiagonal (diag a, off-diagonal e) by bisection on
// Sturm counts, to the interval's round-off.
double tridiagonal_max_eigenvalue(const std::vector<double>& a, const std::vector<double>& e) {
  const std::size_t m = a.size();
  double lo = 0, hi = 0;
  for (std::size_t i = 0; i < m; ++i) {
    const double rad = (i > 0 ? std::abs(e[i - 1]) : 0) + (i + 1 < m ? std::abs(e[i]) : 0);
    lo = i == 0 ? a[i] - rad : std::min(lo, a[i] - rad);
    hi = i == 0 ? a[i] + rad : std::max(hi, a[i] + rad);
  }
  auto count_below = [&](double x) {  // eigenvalues < x
    int count = 0;
    double q = 1;
    for (std::size_t i = 0; i < m; ++i) {
      q = a[i] - x - (i > 0 ? e[i - 1] * e[i - 1] / q : 0);
      if (q == 0) q = 1e-300;
      if (q < 0) ++count;
    }
    return count;
  };
  for (int it = 0; it < 200 && hi - lo > 1e-12 * std::max(std::abs(lo), std::abs(hi)); ++it) {
    const double mid = 0.5 * (lo + hi);
    if (count_below(mid) == static_cast<int>(m)) hi = mid;
    else lo = mid;
  }
  return hi;
}

// A solve that cannot go on: its status and why.
struct Breakdown {
  MgDeviceOutput::Status status;
  std::string message;
};

struct DeviceLevel {
  // The level's operator: from the samples (op), or from its stencil (a coarse level with
  // coarse stencils; op is then null). Level 0 always has op: it also forms F^T f.
  std::unique_ptr<MatrixFreeOperator> op;
  std::unique_ptr<StencilOperator> stencil;
  std::unique_ptr<DeviceTransfer> transfer;  // to the next level (null on the coarsest)
  long long n = 0;
  DeviceBuffer<float> b, x, r, p, ap, d, inv_diag;
  double lo = 0, hi = 0;  // the Chebyshev interval of D^-1 A

  void apply(const float* in, float* out) {
    if (stencil) stencil->apply(in, out);
    else op->apply(in, out);
  }
  void diagonal(float* out) {
    if (stencil) stencil->diagonal(out);
    else op->diagonal(out);
  }
};

class Hierarchy {
 public:
  Hierarchy(const std::vector<Level>& levels, bool coarse_stencils) {
    if (levels.empty()) fail("GPU multigrid: no levels");
    if (coarse_stencils && levels.size() > 1) require_stencil_memory(levels, 1);
    for (std::size_t l = 0; l < levels.size(); ++l) {
      const auto t0 = Clock::now();
      auto owned = std::make_unique<DeviceLevel>();
      DeviceLevel& lv = *owned;
      if (coarse_stencils && l > 0) {
        lv.stencil = std::make_unique<StencilOperator>(levels[l]);
        lv.n = lv.stencil->rows();
      } else {
        lv.op = std::make_unique<MatrixFreeOperator>(levels[l].layout, levels[l].samples);
        lv.n = lv.op->rows();
      }
      if (l == 0) {
        upload_s = lv.op->upload_s;
        sort_s = lv.op->sort_s;
      }
      if (l + 1 < levels.size()) lv.transfer = std::make_unique<DeviceTransfer>(levels[l].to_coarser);
      const auto un = static_cast<std::size_t>(lv.n);
      for (DeviceBuffer<float>* v : {&lv.b, &lv.x, &lv.r, &lv.p, &lv.ap}) v->resize(un);
      levels_.push_back(std::move(owned));
      if (l > 0) {
        SB_CUDA_CHECK(cudaDeviceSynchronize());
        setup_s += wall_since(t0);
      }
    }
    level_iterations.assign(levels_.size(), 0);
  }

  // Of the construction and prepare_smoothing: host seconds of the samples' upload, device
  // seconds of their sort on the fine level, and wall seconds of the coarse levels (their
  // stencils formed, with coarse stencils) and the smoothers. level_iterations: CG
  // iterations per level since the caller reset it.
  double upload_s = 0, sort_s = 0, setup_s = 0;
  std::vector<long long> level_iterations;
  std::vector<double> lambda_hat;

  int count() const { return static_cast<int>(levels_.size()); }
  DeviceLevel& level(int l) { return *levels_[static_cast<std::size_t>(l)]; }
  double dot(int l, const float* a, const float* b) { return dot_(level(l).n, a, b); }

  // CG on level l from x (from zero when zero_start) for at most `iterations`, stopping
  // early at ||r|| <= tolerance ||b|| (tolerance > 0). history (level 0): the recurrence
  // relres against hist_norm per iteration. Returns the iterations run.
  int cg(int l, const float* b, float* x, int iterations, double tolerance, bool zero_start,
         std::vector<double>* history = nullptr, double hist_norm = 1) {
    if (iterations <= 0) return 0;
    DeviceLevel& lv = level(l);
    const long long n = lv.n;
    const auto bytes = static_cast<std::size_t>(n) * sizeof(float);
    const double bn = std::sqrt(dot(l, b, b));
    if (bn == 0) {  // as the CPU's CG: the solution of A x = 0
      SB_CUDA_CHECK(cudaMemset(x, 0, bytes));
      return 0;
    }
    if (zero_start) {
      SB_CUDA_CHECK(cudaMemset(x, 0, bytes));
      SB_CUDA_CHECK(cudaMemcpy(lv.r.data(), b, bytes, cudaMemcpyDeviceToDevice));
    } else {
      lv.apply(x, lv.ap.data());
      residual<<<blocks_for(n), kThreads>>>(n, b, lv.ap.data(), lv.r.data());
      SB_CUDA_CHECK_LAUNCH("residual");
    }
    SB_CUDA_CHECK(cudaMemcpy(lv.p.data(), lv.r.data(), bytes, cudaMemcpyDeviceToDevice));
    double rr = dot(l, lv.r.data(), lv.r.data());
    int it = 0;
    while (it < iterations) {
      lv.apply(lv.p.data(), lv.ap.data());
      const double pap = dot(l, lv.p.data(), lv.ap.data());
      if (!(pap > 0)) {
        if (rr == 0) break;  // solved exactly
        std::ostringstream msg;
        msg << "p.Ap = " << pap << " on level " << l << ": not positive definite in f32";
        throw Breakdown{std::isfinite(pap) ? MgDeviceOutput::singular : MgDeviceOutput::diverged, msg.str()};
      }
      const double alpha = rr / pap;
      update_xr<<<blocks_for(n), kThreads>>>(n, static_cast<float>(alpha), lv.p.data(), lv.ap.data(), x, lv.r.data());
      SB_CUDA_CHECK_LAUNCH("update_xr");
      const double rr_next = dot(l, lv.r.data(), lv.r.data());
      ++it;
      ++level_iterations[static_cast<std::size_t>(l)];
      if (history) history->push_back(std::sqrt(rr_next) / hist_norm);
      if (!std::isfinite(rr_next))
        throw Breakdown{MgDeviceOutput::diverged, "non-finite residual on level " + std::to_string(l)};
      if (tolerance > 0 && std::sqrt(rr_next) <= tolerance * bn) break;
      update_p<<<blocks_for(n), kThreads>>>(n, static_cast<float>(rr_next / rr), lv.r.data(), lv.p.data());
      SB_CUDA_CHECK_LAUNCH("update_p");
      rr = rr_next;
    }
    return it;
  }

  // Jacobi-preconditioned CG on level l from zero to ||r|| <= tolerance ||b|| or
  // `iterations`: the V-cycle's coarsest solve. Its samples crowd few nodes (every level
  // keeps all of them), and plain f32 CG took hundreds of iterations there.
  void coarsest_solve(int l, const float* b, float* x, int iterations, double tolerance) {
    DeviceLevel& lv = level(l);
    const long long n = lv.n;
    const auto bytes = static_cast<std::size_t>(n) * sizeof(float);
    SB_CUDA_CHECK(cudaMemset(x, 0, bytes));
    const double bn = std::sqrt(dot(l, b, b));
    if (bn == 0) return;
    float* z = lv.d.data();  // the coarsest level smooths nothing: its d is free
    SB_CUDA_CHECK(cudaMemcpy(lv.r.data(), b, bytes, cudaMemcpyDeviceToDevice));
    scale<<<blocks_for(n), kThreads>>>(n, lv.inv_diag.data(), lv.r.data(), z);
    SB_CUDA_CHECK_LAUNCH("scale");
    SB_CUDA_CHECK(cudaMemcpy(lv.p.data(), z, bytes, cudaMemcpyDeviceToDevice));
    double rz = dot(l, lv.r.data(), z);
    for (int it = 0; it < iterations; ++it) {
      lv.apply(lv.p.data(), lv.ap.data());
      const double pap = dot(l, lv.p.data(), lv.ap.data());
      if (!(pap > 0) || !(rz > 0)) {
        if (rz == 0) break;  // solved exactly
        std::ostringstream msg;
        msg << "p.Ap = " << pap << ", r.z = " << rz << " on the coarsest level: not positive definite in f32";
        throw Breakdown{std::isfinite(pap) ? MgDeviceOutput::singular : MgDeviceOutput::diverged, msg.str()};
      }
      const double alpha = rz / pap;
      update_xr<<<blocks_for(n), kThreads>>>(n, static_cast<float>(alpha), lv.p.data(), lv.ap.data(), x, lv.r.data());
      SB_CUDA_CHECK_LAUNCH("update_xr");
      ++level_iterations[static_cast<std::size_t>(l)];
      const double rr = dot(l, lv.r.data(), lv.r.data());
      if (!std::isfinite(rr)) throw Breakdown{MgDeviceOutput::diverged, "non-finite residual on the coarsest level"};
      if (std::sqrt(rr) <= tolerance * bn) break;
      scale<<<blocks_for(n), kThreads>>>(n, lv.inv_diag.data(), lv.r.data(), z);
      SB_CUDA_CHECK_LAUNCH("scale");
      const double rz_next = dot(l, lv.r.data(), z);
      update_p<<<blocks_for(n), kThreads>>>(n, static_cast<float>(rz_next / rz), z, lv.p.data());
      SB_CUDA_CHECK_LAUNCH("update_p");
      rz = rz_next;
    }
  }

  // ||b - A x|| / ||b|| on level 0 (f64 norms of the f32 residual).
  double true_relres(const float* b, const float* x, double bnorm) {
    DeviceLevel& lv = level(0);
    lv.apply(x, lv.ap.data());
    residual<<<blocks_for(lv.n), kThreads>>>(lv.n, b, lv.ap.data(), lv.r.data());
    SB_CUDA_CHECK_LAUNCH("residual");
    return std::sqrt(dot(0, lv.r.data(), lv.r.data())) / bnorm;
  }

  // D^-1 of every level (the coarsest's preconditions its CG) and the Chebyshev
  // interval of every level but the coarsest.
  void prepare_smoothing(const VCycleSettings& s) {
    for (int l = 0; l < count(); ++l) {
      const auto t0 = Clock::now();
      DeviceLevel& lv = level(l);
      const auto un = static_cast<std::size_t>(lv.n);
      lv.d.resize(un);
      lv.inv_diag.resize(un);
      lv.diagonal(lv.d.data());
      DeviceBuffer<int> bad(1);
      SB_CUDA_CHECK(cudaMemset(bad.data(), 0, sizeof(int)));
      invert<<<blocks_for(lv.n), kThreads>>>(lv.n, lv.d.data(), lv.inv_diag.data(), bad.data());
      SB_CUDA_CHECK_LAUNCH("invert");
      int nonpositive = 0;
      bad.download(&nonpositive);
      if (nonpositive > 0)
        throw Breakdown{MgDeviceOutput::singular, std::to_string(nonpositive) + " non-positive diagonal entries on level " +
                                                      std::to_string(l) + " (lambda = 0 with nodes no sample reaches)"};
      if (l + 1 < count()) {
        const double lambda_hat = estimate_lambda_max(l, s.estimate_steps);
        this->lambda_hat.push_back(lambda_hat);
        lv.hi = s.upper_factor * lambda_hat;
        lv.lo = s.lower_fraction * lv.hi;
      }
      if (l > 0) setup_s += wall_since(t0);
    }
  }

  // z = V b on level l (z from zero).
  void vcycle(int l, const float* b, float* z, const VCycleSettings& s) {
    DeviceLevel& lv = level(l);
    if (l + 1 == count()) {
      coarsest_solve(l, b, z, s.coarsest_max_iterations, s.coarsest_tolerance);
      return;
    }
    smooth(l, b, z, s.degree, true);
    lv.apply(z, lv.ap.data());
    residual<<<blocks_for(lv.n), kThreads>>>(lv.n, b, lv.ap.data(), lv.r.data());
    SB_CUDA_CHECK_LAUNCH("residual");
    DeviceLevel& next = level(l + 1);
    lv.transfer->restrict_to_coarse(lv.r.data(), next.b.data());
    vcycle(l + 1, next.b.data(), next.x.data(), s);
    lv.transfer->prolongate(next.x.data(), z, true);
    smooth(l, b, z, s.degree, false);
  }

 private:
  // `degree` Chebyshev steps on D^-1 A x = D^-1 b over [lo, hi] (Saad, Iterative Methods, alg. 12.1).
  void smooth(int l, const float* b, float* x, int degree, bool zero_start) {
    DeviceLevel& lv = level(l);
    const long long n = lv.n;
    const double theta = 0.5 * (lv.hi + lv.lo), delta = 0.5 * (lv.hi - lv.lo), sigma = theta / delta;
    double rho = 1 / sigma;
    if (!zero_start) lv.apply(x, lv.ap.data());
    chebyshev_first<<<blocks_for(n), kThreads>>>(n, static_cast<float>(1 / theta), b,
                                                 zero_start ? nullptr : lv.ap.data(), lv.inv_diag.data(), lv.d.data(),
                                                 x, zero_start);
    SB_CUDA_CHECK_LAUNCH("chebyshev_first");
    for (int k = 1; k < degree; ++k) {
      lv.apply(x, lv.ap.data());
      const double rho_next = 1 / (2 * sigma - rho);
      chebyshev_next<<<blocks_for(n), kThreads>>>(n, static_cast<float>(rho_next * rho),
                                                  static_cast<float>(2 * rho_next / delta), b, lv.ap.data(),
                                                  lv.inv_diag.data(), lv.d.data(), x);
      SB_CUDA_CHECK_LAUNCH("chebyshev_next");
      rho = rho_next;
    }
  }

  // The largest Ritz value of `steps` Jacobi-preconditioned CG steps (their Lanczos
  // tridiagonal) from a seeded random right-hand side: <= lambda_max(D^-1 A), close to it.
  double estimate_lambda_max(int l, int steps) {
    DeviceLevel& lv = level(l);
    const long long n = lv.n;
    std::vector<float> start(static_cast<std::size_t>(n));
    std::mt19937 rng(2024u + static_cast<unsigned>(l));
    std::uniform_real_distribution<float> unit(-1.f, 1.f);
    for (float& v : start) v = unit(rng);
    DeviceBuffer<float> z(static_cast<std::size_t>(n));
    lv.r.upload(start.data());
    SB_CUDA_CHECK(cudaMemset(lv.x.data(), 0, static_cast<std::size_t>(n) * sizeof(float)));
    scale<<<blocks_for(n), kThreads>>>(n, lv.inv_diag.data(), lv.r.data(), z.data());
    SB_CUDA_CHECK_LAUNCH("scale");
    SB_CUDA_CHECK(
        cudaMemcpy(lv.p.data(), z.data(), static_cast<std::size_t>(n) * sizeof(float), cudaMemcpyDeviceToDevice));
    double rz = dot(l, lv.r.data(), z.data());
    std::vector<double> alpha, beta;
    for (int j = 0; j < steps; ++j) {
      lv.apply(lv.p.data(), lv.ap.data());
      const double pap = dot(l, lv.p.data(), lv.ap.data());
      if (!(pap > 0) || !(rz > 0)) break;
      alpha.push_back(rz / pap);
      update_xr<<<blocks_for(n), kThreads>>>(n, static_cast<float>(alpha.back()), lv.p.data(), lv.ap.data(),
                                             lv.x.data(), lv.r.data());
      SB_CUDA_CHECK_LAUNCH("update_xr");
      scale<<<blocks_for(n), kThreads>>>(n, lv.inv_diag.data(), lv.r.data(), z.data());
      SB_CUDA_CHECK_LAUNCH("scale");
      const double rz_next = dot(l, lv.r.data(), z.data());
      beta.push_back(rz_next / rz);
      update_p<<<blocks_for(n), kThreads>>>(n, static_cast<float>(beta.back()), z.data(), lv.p.data());
      SB_CUDA_CHECK_LAUNCH("update_p");
      rz = rz_next;
    }
    if (alpha.empty())
      throw Breakdown{MgDeviceOutput::singular, "the spectral estimate on level " + std::to_string(l) + " broke down"};
    const std::size_t m = alpha.size();
    std::vector<double> diag(m), off(m > 0 ? m - 1 : 0);
    for (std::size_t j = 0; j < m; ++j) {
      diag[j] = 1 / alpha[j] + (j > 0 ? beta[j - 1] / alpha[j - 1] : 0);
      if (j + 1 < m) off[j] = std::sqrt(beta[j]) / alpha[j];
    }
    return tridiagonal_max_eigenvalue(diag, off);
  }

  std::vector<std::unique_ptr<DeviceLevel>> levels_;  // DeviceBuffer does not move
  DotProduct dot_;
};

// The seed's schedule on level l (multigrid.hpp: mg_seed): x_l from b_l.
struct SeedRun {
  Hierarchy& h;
  const SeedSchedule& s;
  std::vector<double>& history;
  double bnorm;
  int fine_iterations = 0;

  void cg(int l, int iterations, bool zero_start) {
    DeviceLevel& lv = h.level(l);
    const int done = h.cg(l, lv.b.data(), lv.x.data(), iterations, 0, zero_start, l == 0 ? &history : nullptr, bnorm);
    if (l == 0) fine_iterations += done;
  }

  void solve(int l, bool error) {
    const int n = error ? s.m : s.n, n0 = error ? s.m0 : s.n0, n1 = error ? s.m1 : s.n1, n2 = error ? s.m2 : s.n2;
    DeviceLevel& lv = h.level(l);
    const bool coarsest = l + 1 == h.count();
    if (!coarsest) {
      DeviceLevel& next = h.level(l + 1);
      lv.transfer->restrict_to_coarse(lv.b.data(), next.b.data());
      solve(l + 1, error);
      lv.transfer->prolongate(next.x.data(), lv.x.data(), false);
    } else {
      SB_CUDA_CHECK(cudaMemset(lv.x.data(), 0, static_cast<std::size_t>(lv.n) * sizeof(float)));
    }
    cg(l, n0, coarsest);
    if (coarsest) return;
    for (int c = 0; c < n; ++c) {
      cg(l, n1, false);
      DeviceLevel& next = h.level(l + 1);
      lv.apply(lv.x.data(), lv.ap.data());
      residual<<<blocks_for(lv.n), kThreads>>>(lv.n, lv.b.data(), lv.ap.data(), lv.r.data());
      SB_CUDA_CHECK_LAUNCH("residual");
      lv.transfer->restrict_to_coarse(lv.r.data(), next.b.data());
      solve(l + 1, true);
      lv.transfer->prolongate(next.x.data(), lv.x.data(), true);
      cg(l, n2, false);
    }
  }
};

void finish(Hierarchy& h, const float* b, const float* x, double bnorm, MgDeviceOutput& out) {
  out.true_relres = h.true_relres(b, x, bnorm);
  const auto t0 = Clock::now();
  out.x.resize(static_cast<std::size_t>(h.level(0).n));
  SB_CUDA_CHECK(cudaMemcpy(out.x.data(), x, out.x.size() * sizeof(float), cudaMemcpyDeviceToHost));
  out.readback_s = wall_since(t0);
}

}  // namespace

struct MgDevice::State {
  State(const std::vector<Level>& levels, bool coarse_stencils) : h(levels, coarse_stencils) {}
  Hierarchy h;
  double bnorm = 0;
  bool pcg = false;
  VCycleSettings settings;
  std::optional<Breakdown> setup_failure;  // the smoothers' preparation broke down
  DeviceBuffer<float> x, r, z, p, ap;       // the outer PCG's vectors
};

MgDevice::MgDevice(const std::vector<Level>& levels, const VCycleSettings* pcg, bool coarse_stencils)
    : s_(std::make_unique<State>(levels, coarse_stencils)) {
  State& s = *s_;
  Hierarchy& h = s.h;
  DeviceLevel& fine = h.level(0);
  Event rhs_start, rhs_done;
  rhs_start.record();
  s.bnorm = fine.op->rhs(fine.b.data());
  rhs_done.record();
  rhs_s = rhs_done.seconds_since(rhs_start);
  if (pcg) {
    const VCycleSettings& settings = *pcg;
    if (settings.degree < 1 || !(settings.lower_fraction > 0 && settings.lower_fraction < 1) ||
        !(settings.upper_factor >= 1) || settings.estimate_steps < 1)
      fail("GPU MG-PCG: Chebyshev degree >= 1, 0 < lower fraction < 1, upper factor >= 1, estimate steps >= 1");
    s.pcg = true;
    s.settings = settings;
    const auto un = static_cast<std::size_t>(fine.n);
    for (DeviceBuffer<float>* v : {&s.x, &s.r, &s.z, &s.p, &s.ap}) v->resize(un);
    if (s.bnorm != 0) {
      const auto t_setup = Clock::now();
      const double levels_s = h.setup_s;
      try {
        h.prepare_smoothing(settings);
      } catch (const Breakdown& b) {
        s.setup_failure = b;
      }
      SB_CUDA_CHECK(cudaDeviceSynchronize());
      h.setup_s = levels_s + wall_since(t_setup);
    }
  }
  upload_s = h.upload_s;
  sort_s = h.sort_s;
  setup_s = h.setup_s;
  lambda_hat = h.lambda_hat;
}

MgDevice::~MgDevice() = default;

int MgDevice::levels() const { return s_->h.count(); }

MgDeviceOutput MgDevice::solve_seed(const SeedSchedule& schedule) {
  State& s = *s_;
  Hierarchy& h = s.h;
  h.level_iterations.assign(static_cast<std::size_t>(h.count()), 0);
  MgDeviceOutput out;
  DeviceLevel& fine = h.level(0);
  const double bnorm = s.bnorm;
  if (bnorm == 0) {
    out.x.assign(static_cast<std::size_t>(fine.n), 0.f);
    out.status = MgDeviceOutput::converged;
    out.level_iterations = h.level_iterations;
    return out;
  }
  SeedRun run{h, schedule, out.history, bnorm};
  Event start, stop;
  start.record();
  try {
    run.solve(0, false);
    out.message = "fixed schedule of " + std::to_string(run.fine_iterations) + " fine-level iterations";
  } catch (const Breakdown& b) {
    out.status = b.status;
    out.message = b.message;
  }
  stop.record();
  out.solve_s = stop.seconds_since(start);
  out.iterations = run.fine_iterations;
  out.level_iterations = h.level_iterations;
  finish(h, fine.b.data(), fine.x.data(), bnorm, out);
  return out;
}

MgDeviceOutput MgDevice::solve_pcg(int max_iterations, double tolerance) {
  State& s = *s_;
  if (!s.pcg) fail("GPU MG-PCG: the hierarchy was prepared without the V-cycle's smoothers");
  Hierarchy& h = s.h;
  h.level_iterations.assign(static_cast<std::size_t>(h.count()), 0);
  const VCycleSettings& settings = s.settings;
  MgDeviceOutput out;
  out.lambda_hat = h.lambda_hat;
  DeviceLevel& fine = h.level(0);
  const long long n = fine.n;
  const auto un = static_cast<std::size_t>(n);
  const double bnorm = s.bnorm;
  float *x = s.x.data(), *r = s.r.data(), *z = s.z.data(), *p = s.p.data(), *ap = s.ap.data();
  SB_CUDA_CHECK(cudaMemset(x, 0, un * sizeof(float)));
  if (bnorm == 0) {
    out.x.assign(un, 0.f);
    out.status = MgDeviceOutput::converged;
    out.level_iterations = h.level_iterations;
    return out;
  }
  if (s.setup_failure) {
    out.status = s.setup_failure->status;
    out.message = s.setup_failure->message;
    out.x.assign(un, 0.f);
    out.true_relres = 1;
    out.level_iterations = h.level_iterations;
    return out;
  }

  Event start, stop;
  start.record();
  try {
    SB_CUDA_CHECK(cudaMemcpy(r, fine.b.data(), un * sizeof(float), cudaMemcpyDeviceToDevice));
    h.vcycle(0, r, z, settings);
    SB_CUDA_CHECK(cudaMemcpy(p, z, un * sizeof(float), cudaMemcpyDeviceToDevice));
    double rz = h.dot(0, r, z);
    constexpr int kMaxReplacements = 5;
    int replacements = 0;
    double last_true = std::numeric_limits<double>::infinity();
    for (int it = 1; it <= max_iterations; ++it) {
      fine.op->apply(p, ap);
      const double pap = h.dot(0, p, ap);
      if (!(pap > 0) || !(rz > 0)) {
        std::ostringstream msg;
        msg << "p.Ap = " << pap << ", r.z = " << rz << " at iteration " << it << ": not positive definite in f32";
        throw Breakdown{MgDeviceOutput::singular, msg.str()};
      }
      const double alpha = rz / pap;
      update_xr<<<blocks_for(n), kThreads>>>(n, static_cast<float>(alpha), p, ap, x, r);
      SB_CUDA_CHECK_LAUNCH("update_xr");
      const double rel = std::sqrt(h.dot(0, r, r)) / bnorm;
      out.iterations = it;
      out.history.push_back(rel);
      if (!std::isfinite(rel)) throw Breakdown{MgDeviceOutput::diverged, "non-finite residual at iteration " + std::to_string(it)};
      // The recurrence residual decides, as in every CG of the system; the true residual
      // b - A x (f32 operator, f64 norms) is reported beside it. The true one stops falling
      // where the f32 product A x is rounded (about u ||A|| ||x|| / ||b||), so requiring it
      // below a tighter tolerance would run to the iteration budget. But the recurrence
      // can drift from it (f32 updates by large alpha p), so at the recurrence's stop the
      // true residual is computed: where it lies more than 10x above the tolerance and
      // still fell by half since the last replacement, it replaces r and CG restarts
      // from x (residual replacement; at most kMaxReplacements times).
      if (tolerance > 0 && rel <= tolerance) {
        const double true_rel = h.true_relres(fine.b.data(), x, bnorm);
        if (!(true_rel > 10 * tolerance && true_rel < 0.5 * last_true && replacements < kMaxReplacements)) {
          out.status = MgDeviceOutput::converged;
          break;
        }
        last_true = true_rel;
        ++replacements;
        SB_CUDA_CHECK(cudaMemcpy(r, fine.r.data(), un * sizeof(float), cudaMemcpyDeviceToDevice));
        h.vcycle(0, r, z, settings);
        SB_CUDA_CHECK(cudaMemcpy(p, z, un * sizeof(float), cudaMemcpyDeviceToDevice));
        rz = h.dot(0, r, z);
        continue;
      }
      h.vcycle(0, r, z, settings);
      // Flexible (Polak-Ribiere) beta = z.(r_new - r_old) / rz_old = -alpha z.Ap / rz_old.
      const double rz_next = h.dot(0, r, z);
      const double beta = -alpha * h.dot(0, z, ap) / rz;
      update_p<<<blocks_for(n), kThreads>>>(n, static_cast<float>(beta), z, p);
      SB_CUDA_CHECK_LAUNCH("update_p");
      rz = rz_next;
    }
    if (replacements > 0)
      out.message = std::to_string(replacements) + " residual replacement" + (replacements > 1 ? "s" : "") +
                    " (the recurrence residual had drifted from b - A x)";
  } catch (const Breakdown& b) {
    out.status = b.status;
    out.message = b.message;
  }
  stop.record();
  out.solve_s = stop.seconds_since(start);
  out.level_iterations = h.level_iterations;
  finish(h, fine.b.data(), x, bnorm, out);
  return out;
}

std::vector<float> apply_level(const Level& level, const std::vector<float>& p) {
  MatrixFreeOperator op(level.layout, level.samples);
  return apply_once(op, p, "apply_level");
}

std::vector<float> apply_level_stencil(const Level& level, const std::vector<float>& p) {
  const StencilOperator op(level);
  return apply_once(op, p, "apply_level_stencil");
}

std::vector<float> level_stencil(const Level& level) {
  const StencilOperator op(level);
  const StencilGeometry& g = op.geometry();
  std::vector<float> out(static_cast<std::size_t>(g.nodes) * static_cast<std::size_t>(g.entries));
  SB_CUDA_CHECK(cudaMemcpy(out.data(), op.values(), out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return out;
}

std::vector<float> apply_transfer(const Level& fine, const std::vector<float>& v, bool prolongate) {
  DeviceTransfer t(fine.to_coarser);
  const auto n_in = static_cast<std::size_t>(prolongate ? t.coarse_rows() : t.fine_rows());
  const auto n_out = static_cast<std::size_t>(prolongate ? t.fine_rows() : t.coarse_rows());
  if (v.size() != n_in) fail("apply_transfer: " + std::to_string(v.size()) + " values for " + std::to_string(n_in));
  DeviceBuffer<float> in(n_in), out(n_out);
  in.upload(v.data());
  SB_CUDA_CHECK(cudaMemset(out.data(), 0xFF, n_out * sizeof(float)));
  if (prolongate) t.prolongate(in.data(), out.data(), false);
  else t.restrict_to_coarse(in.data(), out.data());
  std::vector<float> host(n_out);
  out.download(host.data());
  return host;
}

}  // namespace splinebench::scattered::gpu::detail
