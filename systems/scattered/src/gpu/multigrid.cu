// The GPU multigrid (multigrid_device.hpp). The seed's cascadic schedule runs CG on
// levels that are all matrix-free operators. MG-PCG keeps the fine level matrix-free,
// holds the levels between it and the coarsest as per-node stencils (stencil_level.cuh)
// and solves the coarsest directly (coarsest_direct.cuh); its V-cycle is a fixed chain
// of launches with no host round trip, and its outer CG keeps every scalar on the device,
// the host reading four of them once per iteration for the stop.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>

#include "block_sums.cuh"
#include "coarsest_direct.cuh"
#include "cuda_support.cuh"
#include "galerkin_level.cuh"
#include "multigrid_device.hpp"
#include "multigrid_transfer.cuh"
#include "operator_device.hpp"
#include "stencil_level.cuh"
#include "vector_kernels.cuh"
#include "splinebench/cuda/captured_graph.hpp"
#include "splinebench/scattered/lanczos_start.hpp"

namespace splinebench::scattered::gpu::detail {

using ::splinebench::gpu::CapturedGraph;

namespace {

using Clock = std::chrono::steady_clock;
double wall_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

__global__ void fill_lanczos_start(long long n, int level, float* __restrict__ r) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) r[i] = lanczos_start_value(level, i);
}

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

// ---- Dot products into device memory, and CG updates that read their scalars there ----
// f64 sums in a fixed order: per-block partials in DotProduct's grid-stride order, then
// one warp over the partials (block_sums.cuh; DotProduct adds them one after another).

constexpr int kDotBlocks = 264;  // two waves of an H100's 132 SMs

// x += alpha p, r -= alpha A p with alpha = *num / *den formed in f64 and rounded to f32.
// Nothing when the two are not both positive (CG's breakdown: the host reads them and
// stops, and x keeps the last iterate).
__global__ void update_xr_ratio(long long n, const double* __restrict__ num, const double* __restrict__ den,
                                const float* __restrict__ p, const float* __restrict__ ap, float* x, float* r) {
  const double nu = *num, de = *den;
  if (!(nu > 0) || !(de > 0)) return;
  const float alpha = static_cast<float>(nu / de);
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] = fmaf(alpha, p[i], x[i]);
    r[i] = fmaf(-alpha, ap[i], r[i]);
  }
}

// p = z + beta p with beta = sign * *num / *den formed in f64 and rounded to f32; nothing
// when *den is not positive.
__global__ void update_p_ratio(long long n, const double* __restrict__ num, const double* __restrict__ den, double sign,
                               const float* __restrict__ z, float* p) {
  const double de = *den;
  if (!(de > 0)) return;
  const float beta = static_cast<float>(sign * (*num / de));
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) p[i] = fmaf(beta, p[i], z[i]);
}

// a.b in one launch: each block sums its grid-stride shares into its partial, then the
// last block to finish (a ticket counter, which it resets for the next call) sums the
// partials with one warp (block_sums.cuh): the order the former two launches had.
__global__ void __launch_bounds__(kThreads)
    dot_kernel(long long n, const float* __restrict__ a, const float* __restrict__ b, double* partial,
               unsigned* done, double* out) {
  store_block_sum<kThreads>(grid_stride_dot(n, a, b), partial);
  __shared__ bool last;
  if (threadIdx.x == 0) {
    __threadfence();  // this block's partial is visible before its ticket is
    last = atomicAdd(done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last || threadIdx.x >= 32) return;
  __threadfence();  // every other block's partial is visible to the loads below
  const double t = warp_sum_of_partials<kDotBlocks>(partial);
  if (threadIdx.x == 0) {
    *out = t;
    *done = 0;
  }
}

// a.b into a double in device memory (one launch, no host round trip).
class DeviceDot {
 public:
  DeviceDot() : partial_(kDotBlocks), done_(1) {
    SB_CUDA_CHECK(cudaMemsetAsync(done_.data(), 0, sizeof(unsigned), cudaStreamPerThread));
  }
  void operator()(long long n, const float* a, const float* b, double* out) {
    dot_kernel<<<kDotBlocks, kThreads>>>(n, a, b, partial_.data(), done_.data(), out);
    SB_CUDA_CHECK_LAUNCH("dot_kernel");
  }

 private:
  DeviceBuffer<double> partial_;
  DeviceBuffer<unsigned> done_;
};

void copy_on_device(float* to, const float* from, long long n) {
  SB_CUDA_CHECK(
      cudaMemcpyAsync(to, from, static_cast<std::size_t>(n) * sizeof(float), cudaMemcpyDeviceToDevice, nullptr));
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
  // The level's operator: from the samples (op: the fine level, and every level of the
  // seed's schedule) or from its stencil (MG-PCG's levels between the fine one and the
  // coarsest). MG-PCG's coarsest has `direct` instead (beside op on a hierarchy of one
  // level), and is never applied or smoothed.
  std::unique_ptr<MatrixFreeOperator> op;
  std::unique_ptr<StencilOperator> stencil;
  std::unique_ptr<DirectCoarsest> direct;
  std::unique_ptr<DeviceTransfer> transfer;  // to the next level (null on the coarsest)
  long long n = 0;
  DeviceBuffer<float> b, x, r, p, ap, d, inv_diag;
  DeviceBuffer<float> other;  // a stencil level's smoothing writes each step here or to its x: never in place
  double lo = 0, hi = 0;  // the Chebyshev interval of D^-1 A

  void apply(const float* in, float* out) {
    if (stencil) stencil->apply(in, out);
    else if (op) op->apply(in, out);
    else fail("GPU multigrid: a level solved directly has no operator to apply");
  }
  void diagonal(float* out) {
    if (stencil) stencil->diagonal(out);
    else if (op) op->diagonal(out);
    else fail("GPU multigrid: a level solved directly has no diagonal");
  }
};

class Hierarchy {
 public:
  // pcg: MG-PCG's levels. The fine one keeps its matrix-free operator (its samples: the
  // right-hand side); the first stencil level `first_stencil` (0: the fine level too, 1:
  // the one below it) is formed from its samples in f64, every level below it from the one
  // above by Galerkin's P^T A P (galerkin_level.cuh), so no coarse level touches the
  // samples; each stencil level but the coarsest keeps its f32 rounding, the coarsest its
  // inverse. Otherwise every level is matrix-free (the seed's schedule).
  Hierarchy(const std::vector<Level>& levels, bool pcg, int first_stencil = 1, bool time_parts = false)
      : time_parts_(time_parts) {
    if (levels.empty()) fail("GPU multigrid: no levels");
    const std::size_t last = levels.size() - 1;
    const auto first = static_cast<std::size_t>(std::min<long long>(first_stencil, static_cast<long long>(last)));
    if (pcg && (first_stencil < 0 || first_stencil > 1)) fail("GPU multigrid: the first stencil level is 0 or 1");
    if (pcg) require_stencil_memory(levels, first, last);
    DeviceBuffer<double> exact;  // MG-PCG: the current level's f64 stencil
    StencilGeometry exact_geo;
    Clock::time_point t_levels{};  // after the fine level's operator: what setup_s counts from
    for (std::size_t l = 0; l <= last; ++l) {
      const auto t0 = Clock::now();
      const std::string name = "level " + std::to_string(l) + " ";
      auto owned = std::make_unique<DeviceLevel>();
      DeviceLevel& lv = *owned;
      if (l == 0 || !pcg) {
        lv.op = std::make_unique<MatrixFreeOperator>(levels[l].layout, levels[l].samples);
        part(name + "samples", t0);
      }
      if (l == 0) t_levels = Clock::now();
      if (pcg && l >= first) {
        const auto t_stencil = Clock::now();
        if (l == first) {
          exact_geo = stencil_geometry(levels[l].layout);
          exact.resize(static_cast<std::size_t>(exact_geo.nodes) * static_cast<std::size_t>(exact_geo.entries));
          if (lv.op) form_stencil_device(levels[l], lv.op->device_grid(), lv.op->sorted_samples(), exact.data());
          else form_stencil_device(levels[l], exact.data());
        } else {
          exact = galerkin_level_device(levels[l - 1], exact_geo, std::move(exact));
        }
        const std::string how = l == first ? "stencil from the samples" : "stencil by Galerkin";
        if (l < last) {
          lv.stencil = std::make_unique<StencilOperator>(exact_geo, exact.data());
          part(name + how, t_stencil);
        } else {
          lv.direct = std::make_unique<DirectCoarsest>(exact_geo, exact.data());
          part(name + how + " and inverse", t_stencil);
          exact.reset();
        }
      }
      const auto t_rest = Clock::now();
      lv.n = levels[l].layout.rows;
      if (l == 0) {
        upload_s = lv.op->upload_s;
        sort_s = lv.op->sort_s;
      }
      if (l < last) lv.transfer = std::make_unique<DeviceTransfer>(levels[l].to_coarser);
      const auto un = static_cast<std::size_t>(lv.n);
      for (DeviceBuffer<float>* v : {&lv.b, &lv.x, &lv.r, &lv.p, &lv.ap}) v->resize(un);
      if (lv.stencil) lv.other.resize(un);
      levels_.push_back(std::move(owned));
      part(name + "transfer and vectors", t_rest);
    }
    sync_this_thread();
    setup_s = wall_since(t_levels);  // the fine level's own time is upload and sort
    level_iterations.assign(levels_.size(), 0);
  }

  // The setup's wall time by part, in order (the device work of each finished within it);
  // only where asked for (time_parts): each part then waits for its device work, which the
  // setup otherwise leaves queued while the host prepares the next.
  std::vector<std::pair<std::string, double>> setup_parts;

  // Of the construction and prepare_vcycle: host seconds of the samples' upload, device
  // seconds of their sort on the fine level, and wall seconds of the coarse levels (their
  // stencils and the coarsest's inverse, for MG-PCG) and the smoothers. level_iterations:
  // CG iterations per level since the caller reset it (the seed's schedule; MG-PCG runs
  // no CG on a level).
  double upload_s = 0, sort_s = 0, setup_s = 0;
  std::vector<long long> level_iterations;
  std::vector<double> lambda_hat;

  int count() const { return static_cast<int>(levels_.size()); }
  void part(const std::string& name, Clock::time_point t0) {
    if (!time_parts_) return;
    sync_this_thread();
    setup_parts.emplace_back(name, wall_since(t0));
  }
  DeviceLevel& level(int l) { return *levels_[static_cast<std::size_t>(l)]; }
  // a.b read on the host (synchronises), and a.b left in device memory at out.
  double dot(int l, const float* a, const float* b) { return dot_(level(l).n, a, b); }
  void dot_into(long long n, const float* a, const float* b, double* out) { device_dot_(n, a, b, out); }

  // CG on level l from x (from zero when zero_start) for at most `iterations`, stopping
  // early at ||r|| <= tolerance ||b|| (tolerance > 0). history (level 0): the recurrence
  // relres against hist_norm per iteration. Returns the iterations run. The seed's
  // schedule runs it on every level; its scalars are read on the host.
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

  // ||b - A x|| / ||b|| on level 0 (f64 norms of the f32 residual, left in level 0's r).
  double true_relres(const float* b, const float* x, double bnorm) {
    DeviceLevel& lv = level(0);
    lv.apply(x, lv.ap.data());
    residual<<<blocks_for(lv.n), kThreads>>>(lv.n, b, lv.ap.data(), lv.r.data());
    SB_CUDA_CHECK_LAUNCH("residual");
    return std::sqrt(dot(0, lv.r.data(), lv.r.data())) / bnorm;
  }

  // MG-PCG's smoothers: D^-1 and the Chebyshev interval of every level but the coarsest;
  // and the coarsest's pivot check. Every level's diagonal, inversion and Lanczos steps
  // queue one after another; the host reads their counts and scalars once, at the end.
  // Throws Breakdown for a non-positive diagonal entry or pivot (the first level's first).
  void prepare_vcycle(const VCycleSettings& s) {
    const int smoothed = count() - 1;
    const auto per_level = 2 * static_cast<std::size_t>(s.estimate_steps) + 2;
    const auto slots = static_cast<std::size_t>(std::max(smoothed, 1));
    DeviceBuffer<int> bad(slots);
    DeviceBuffer<double> scalars(per_level * slots);
    SB_CUDA_CHECK(cudaMemsetAsync(bad.data(), 0, bad.bytes(), cudaStreamPerThread));
    for (int l = 0; l < smoothed; ++l) {
      const auto t0 = Clock::now();
      DeviceLevel& lv = level(l);
      const auto un = static_cast<std::size_t>(lv.n);
      lv.d.resize(un);
      lv.inv_diag.resize(un);
      lv.diagonal(lv.d.data());
      invert<<<blocks_for(lv.n), kThreads>>>(lv.n, lv.d.data(), lv.inv_diag.data(), bad.data() + l);
      SB_CUDA_CHECK_LAUNCH("invert");
      queue_lanczos(l, s.estimate_steps, scalars.data() + static_cast<std::size_t>(l) * per_level);
      part("level " + std::to_string(l) + " smoother (diagonal, estimate)", t0);
    }
    std::vector<int> nonpositive(bad.size());
    bad.download(nonpositive.data());  // waits for every level's work
    std::vector<double> host(scalars.size());
    scalars.download(host.data());
    for (int l = 0; l < smoothed; ++l) {
      if (nonpositive[static_cast<std::size_t>(l)] > 0)
        throw Breakdown{MgDeviceOutput::singular, std::to_string(nonpositive[static_cast<std::size_t>(l)]) +
                                                      " non-positive diagonal entries on level " + std::to_string(l) +
                                                      " (lambda = 0 with nodes no sample reaches)"};
      const double estimate = ritz_max(host.data() + static_cast<std::size_t>(l) * per_level, s.estimate_steps);
      if (!(estimate > 0) || !std::isfinite(estimate))
        throw Breakdown{MgDeviceOutput::singular, "the spectral estimate on level " + std::to_string(l) + " broke down"};
      lambda_hat.push_back(estimate);
      DeviceLevel& lv = level(l);
      lv.hi = s.upper_factor * estimate;
      lv.lo = s.lower_fraction * lv.hi;
    }
    const DeviceLevel& coarsest = level(count() - 1);
    if (coarsest.direct && coarsest.direct->bad_pivot() >= 0)
      throw Breakdown{MgDeviceOutput::singular,
                      "the coarsest level (" + std::to_string(coarsest.n) + " nodes) is not positive definite: pivot " +
                          std::to_string(coarsest.direct->bad_pivot()) +
                          " of its elimination is not positive (lambda = 0 with nodes no sample reaches)"};
  }

  // z = V b on level l: a fixed chain of launches (no host round trip); z needs no start.
  void vcycle(int l, const float* b, float* z, const VCycleSettings& s) {
    DeviceLevel& lv = level(l);
    if (l + 1 == count()) {
      lv.direct->apply(b, z);
      return;
    }
    smooth(l, b, z, s.degree, true);
    if (lv.stencil) {
      lv.stencil->residual(z, b, lv.r.data());
    } else {
      lv.apply(z, lv.ap.data());
      residual<<<blocks_for(lv.n), kThreads>>>(lv.n, b, lv.ap.data(), lv.r.data());
      SB_CUDA_CHECK_LAUNCH("residual");
    }
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
    if (lv.stencil) {
      smooth_stencil(lv, b, x, degree, zero_start, theta, delta, sigma);
      return;
    }
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
  // smooth() on a stencil level, each step's product and update in one pass
  // (StencilOperator::chebyshev_step): the same steps and bits. A step cannot write the x it
  // reads, so the iterate alternates between x and lv.other, starting where it ends in x;
  // a start from x with an odd step count ends in lv.other and is copied back.
  void smooth_stencil(DeviceLevel& lv, const float* b, float* x, int degree, bool zero_start, double theta,
                      double delta, double sigma) {
    const long long n = lv.n;
    const int fused = zero_start ? degree - 1 : degree;  // steps with a product
    float* buf[2] = {x, lv.other.data()};
    int cur = zero_start ? fused % 2 : 0;  // where the iterate is before the fused steps
    double rho = 1 / sigma;
    if (zero_start) {
      chebyshev_first<<<blocks_for(n), kThreads>>>(n, static_cast<float>(1 / theta), b, nullptr,
                                                   lv.inv_diag.data(), lv.d.data(), buf[cur], true);
      SB_CUDA_CHECK_LAUNCH("chebyshev_first");
    } else {
      lv.stencil->chebyshev_step(buf[0], buf[1], b, lv.inv_diag.data(), lv.d.data(), 0.f,
                                 static_cast<float>(1 / theta), true);
      cur = 1;
    }
    for (int k = 1; k < degree; ++k) {
      const double rho_next = 1 / (2 * sigma - rho);
      lv.stencil->chebyshev_step(buf[cur], buf[1 - cur], b, lv.inv_diag.data(), lv.d.data(),
                                 static_cast<float>(rho_next * rho), static_cast<float>(2 * rho_next / delta), false);
      cur = 1 - cur;
      rho = rho_next;
    }
    if (cur != 0) copy_on_device(x, buf[cur], n);
  }

  // Queues `steps` Jacobi-preconditioned CG steps on level l from a hashed random
  // right-hand side (lanczos_start.hpp, formed on the device), their scalars into sc on
  // the device (r_j.z_j at 2 j, p_j.Ap_j at 2 j + 1, 2 steps + 2 doubles), for ritz_max.
  void queue_lanczos(int l, int steps, double* sc) {
    DeviceLevel& lv = level(l);
    const long long n = lv.n;
    DeviceBuffer<float> z(static_cast<std::size_t>(n));  // returns to the pool behind the steps
    fill_lanczos_start<<<blocks_for(n), kThreads>>>(n, l, lv.r.data());
    SB_CUDA_CHECK_LAUNCH("fill_lanczos_start");
    SB_CUDA_CHECK(cudaMemsetAsync(lv.x.data(), 0, static_cast<std::size_t>(n) * sizeof(float), cudaStreamPerThread));
    scale<<<blocks_for(n), kThreads>>>(n, lv.inv_diag.data(), lv.r.data(), z.data());
    SB_CUDA_CHECK_LAUNCH("scale");
    SB_CUDA_CHECK(cudaMemcpyAsync(lv.p.data(), z.data(), static_cast<std::size_t>(n) * sizeof(float),
                                  cudaMemcpyDeviceToDevice, nullptr));
    dot_into(n, lv.r.data(), z.data(), sc);
    for (int j = 1; j <= steps; ++j) {
      lv.apply(lv.p.data(), lv.ap.data());
      dot_into(n, lv.p.data(), lv.ap.data(), sc + 2 * j + 1);
      update_xr_ratio<<<blocks_for(n), kThreads>>>(n, sc + 2 * (j - 1), sc + 2 * j + 1, lv.p.data(), lv.ap.data(),
                                                   lv.x.data(), lv.r.data());
      SB_CUDA_CHECK_LAUNCH("update_xr_ratio");
      scale<<<blocks_for(n), kThreads>>>(n, lv.inv_diag.data(), lv.r.data(), z.data());
      SB_CUDA_CHECK_LAUNCH("scale");
      dot_into(n, lv.r.data(), z.data(), sc + 2 * j);
      update_p_ratio<<<blocks_for(n), kThreads>>>(n, sc + 2 * j, sc + 2 * (j - 1), 1.0, z.data(), lv.p.data());
      SB_CUDA_CHECK_LAUNCH("update_p_ratio");
    }
  }

  // The largest Ritz value of the steps' Lanczos tridiagonal from queue_lanczos's scalars
  // (a host copy): <= lambda_max(D^-1 A), close to it; 0 when the first step already broke
  // down. The sequence is cut at the first step whose p.Ap or r.z is not positive (its
  // update and every later one are then ignored).
  static double ritz_max(const double* host, int steps) {
    std::vector<double> alpha, beta;
    for (int j = 1; j <= steps; ++j) {
      const double rz = host[2 * static_cast<std::size_t>(j - 1)], pap = host[2 * static_cast<std::size_t>(j) + 1];
      if (!(pap > 0) || !(rz > 0)) break;
      alpha.push_back(rz / pap);
      beta.push_back(host[2 * static_cast<std::size_t>(j)] / rz);
    }
    if (alpha.empty()) return 0;  // broke down at its first step (the caller says so)
    const std::size_t m = alpha.size();
    std::vector<double> diag(m), off(m > 0 ? m - 1 : 0);
    for (std::size_t j = 0; j < m; ++j) {
      diag[j] = 1 / alpha[j] + (j > 0 ? beta[j - 1] / alpha[j - 1] : 0);
      if (j + 1 < m) off[j] = std::sqrt(beta[j]) / alpha[j];
    }
    return tridiagonal_max_eigenvalue(diag, off);
  }

  bool time_parts_ = false;
  std::vector<std::unique_ptr<DeviceLevel>> levels_;  // levels are held by pointer: views of their buffers stay valid
  DotProduct dot_;
  DeviceDot device_dot_;
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

// The outer PCG's dot products on the device, kPcgSlot doubles per iteration it: p.Ap and
// r.r of the iteration, then r.z and z.Ap of the V-cycle after it (iteration 0: r.z of
// the first V-cycle alone). The host reads r.z and z.Ap of iteration it - 1 with p.Ap and
// r.r of iteration it: four adjacent doubles, one copy.
enum PcgSlot : int { kPap = 0, kRr = 1, kRz = 2, kZap = 3, kPcgSlot = 4 };

// One V-cycle of fixed input and output as a CUDA graph: captured from the per-thread
// default stream, on which every launch of the cycle is made (this code is compiled for
// per-thread default streams), at its first run, and replayed there. Its ~15 launches per
// level are the same each time (fixed buffers, coefficients formed in the setup), so one
// replay does what they do. A capture that fails leaves the cycle to its launches.
class VCycleGraph {
 public:
  // Enqueues the cycle from the graph, capturing `cycle` the first time; false where it
  // could not be captured (the caller launches it then; failure() says why).
  template <typename Cycle>
  bool run(const Cycle& cycle) {
    if (!graph_) graph_ = std::make_unique<CapturedGraph>(cudaStreamPerThread, cycle);
    if (!graph_->captured()) return false;
    graph_->replay();
    return true;
  }
  std::string failure() const { return graph_ ? graph_->why() : std::string(); }

 private:
  std::unique_ptr<CapturedGraph> graph_;
};

}  // namespace

struct MgDevice::State {
  State(const std::vector<Level>& levels, const VCycleSettings* pcg)
      : h(levels, pcg != nullptr, pcg ? pcg->first_stencil : 1, pcg && pcg->time_parts) {}
  Hierarchy h;
  double bnorm = 0;
  bool pcg = false;
  VCycleSettings settings;
  std::optional<Breakdown> setup_failure;  // the V-cycle's preparation broke down
  DeviceBuffer<float> x, r, z, p, ap;       // the outer PCG's vectors
  DeviceBuffer<double> scalars;             // the outer PCG's dot products (PcgSlot)
  VCycleGraph vcycle_graph;                 // z = V r on the vectors above (settings.graph)
};

MgDevice::MgDevice(const std::vector<Level>& levels, const VCycleSettings* pcg)
    : s_(std::make_unique<State>(levels, pcg)) {
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
        h.prepare_vcycle(settings);
      } catch (const Breakdown& b) {
        s.setup_failure = b;
      }
      sync_this_thread();
      h.setup_s = levels_s + wall_since(t_setup);
    }
  }
  upload_s = h.upload_s;
  sort_s = h.sort_s;
  setup_s = h.setup_s;
  lambda_hat = h.lambda_hat;
  setup_parts = h.setup_parts;
}

MgDevice::~MgDevice() = default;

int MgDevice::levels() const { return s_->h.count(); }

MgDeviceOutput MgDevice::solve_seed(const SeedSchedule& schedule) {
  State& s = *s_;
  if (s.pcg) fail("GPU seed multigrid: the hierarchy was prepared for MG-PCG");
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
  const int budget = std::max(max_iterations, 0);
  const std::size_t slots = static_cast<std::size_t>(kPcgSlot) * (static_cast<std::size_t>(budget) + 1);
  if (s.scalars.size() < slots) s.scalars.resize(slots);
  double* const sc = s.scalars.data();
  const auto slot = [sc](int it, PcgSlot field) { return sc + static_cast<std::ptrdiff_t>(it) * kPcgSlot + field; };

  // z = V r, from the graph where asked for (captured in the first solve, inside its time).
  const auto vcycle = [&] {
    if (settings.graph && s.vcycle_graph.run([&] { h.vcycle(0, r, z, settings); })) return;
    h.vcycle(0, r, z, settings);
  };
  Event start, stop;
  start.record();
  try {
    copy_on_device(r, fine.b.data(), n);
    vcycle();
    copy_on_device(p, z, n);
    h.dot_into(n, r, z, slot(0, kRz));
    constexpr int kMaxReplacements = 5;
    int replacements = 0;
    double last_true = std::numeric_limits<double>::infinity();
    for (int it = 1; it <= budget; ++it) {
      // The fine level's operator as the V-cycle and true_relres have it: its stencil
      // where it has one (a third of the samples' product time), so the recurrence and
      // the true residual measure one operator.
      fine.apply(p, ap);
      h.dot_into(n, p, ap, slot(it, kPap));
      update_xr_ratio<<<blocks_for(n), kThreads>>>(n, slot(it - 1, kRz), slot(it, kPap), p, ap, x, r);
      SB_CUDA_CHECK_LAUNCH("update_xr_ratio");
      h.dot_into(n, r, r, slot(it, kRr));
      // The iteration's one host round trip: r.z (and z.Ap) of it - 1, p.Ap and r.r of it.
      double got[kPcgSlot];
      SB_CUDA_CHECK(cudaMemcpy(got, slot(it - 1, kRz), sizeof got, cudaMemcpyDeviceToHost));
      const double rz = got[0], pap = got[2], rr = got[3];
      if (!(pap > 0) || !(rz > 0)) {
        std::ostringstream msg;
        msg << "p.Ap = " << pap << ", r.z = " << rz << " at iteration " << it << ": not positive definite in f32";
        throw Breakdown{MgDeviceOutput::singular, msg.str()};
      }
      const double rel = std::sqrt(rr) / bnorm;
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
        copy_on_device(r, fine.r.data(), n);
        vcycle();
        copy_on_device(p, z, n);
        h.dot_into(n, r, z, slot(it, kRz));
        continue;
      }
      vcycle();
      h.dot_into(n, r, z, slot(it, kRz));
      h.dot_into(n, z, ap, slot(it, kZap));
      // Flexible (Polak-Ribiere) beta = z.(r_new - r_old) / rz_old = -alpha z.Ap / rz_old
      // = -z.Ap / p.Ap, formed on the device.
      update_p_ratio<<<blocks_for(n), kThreads>>>(n, slot(it, kZap), slot(it, kPap), -1.0, z, p);
      SB_CUDA_CHECK_LAUNCH("update_p_ratio");
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
  out.vcycle = !settings.graph                      ? "launches"
               : s.vcycle_graph.failure().empty() ? "graph"
                                                  : "launches (graph capture failed: " + s.vcycle_graph.failure() + ")";
  finish(h, fine.b.data(), x, bnorm, out);
  return out;
}

std::vector<float> apply_level(const Level& level, const std::vector<float>& p) {
  MatrixFreeOperator op(level.layout, level.samples);
  return apply_once(op, p, "apply_level");
}

std::vector<float> apply_level_stencil(const Level& level, const std::vector<float>& p, StencilRows rows) {
  // The operator with its row form fixed, as apply_once applies it.
  struct Apply {
    const StencilOperator& op;
    StencilRows form;
    long long rows() const { return op.rows(); }
    void apply(const float* in, float* out) const { op.apply(in, out, nullptr, form); }
  };
  const StencilOperator op(level);
  const Apply forced{op, rows};
  return apply_once(forced, p, "apply_level_stencil");
}

std::vector<float> level_stencil(const Level& level) {
  const StencilOperator op(level);
  const StencilGeometry& g = op.geometry();
  std::vector<float> out(static_cast<std::size_t>(g.nodes) * static_cast<std::size_t>(g.entries));
  SB_CUDA_CHECK(cudaMemcpy(out.data(), op.values(), out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return out;
}

std::vector<double> galerkin_level_stencil(const std::vector<Level>& levels, int level) {
  StencilGeometry geo = stencil_geometry(levels[0].layout);
  DeviceBuffer<double> value(static_cast<std::size_t>(geo.nodes) * static_cast<std::size_t>(geo.entries));
  form_stencil_device(levels[0], value.data());
  for (int l = 0; l < level; ++l)
    value = galerkin_level_device(levels[static_cast<std::size_t>(l)], geo, std::move(value));
  std::vector<double> out(value.size());
  value.download(out.data());
  return out;
}

namespace {
const DirectCoarsest& checked(const DirectCoarsest& d, const char* who) {
  if (d.bad_pivot() >= 0)
    fail(std::string(who) + ": pivot " + std::to_string(d.bad_pivot()) + " is not positive (not positive definite)");
  return d;
}
}  // namespace

std::vector<float> coarsest_inverse(const Level& level) {
  const DirectCoarsest d(level);
  checked(d, "coarsest_inverse");
  const auto n = static_cast<std::size_t>(d.rows());
  std::vector<float> out(n * n);
  SB_CUDA_CHECK(cudaMemcpy(out.data(), d.inverse(), out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return out;
}

std::vector<float> apply_coarsest(const Level& level, const std::vector<float>& b) {
  const DirectCoarsest d(level);
  return apply_once(checked(d, "apply_coarsest"), b, "apply_coarsest");
}

std::vector<double> sweep_dense(const std::vector<double>& a, long long n, CoarsestSweeps form, long long& bad_pivot,
                                double& device_s) {
  const auto count = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  if (n < 1 || n > kMaxDirectRows || a.size() != count)
    fail("sweep_dense: " + std::to_string(a.size()) + " values for n = " + std::to_string(n));
  DeviceBuffer<double> ping(count), pong(count);
  DeviceBuffer<int> bad(1);
  ping.upload(a.data());
  SB_CUDA_CHECK(cudaMemsetAsync(pong.data(), 0xFF, count * sizeof(double), cudaStreamPerThread));
  const int none = INT_MAX;
  bad.upload(&none);
  double* m[2] = {ping.data(), pong.data()};
  Event start, stop;
  start.record(cudaStreamPerThread);
  run_sweeps(n, m, bad.data(), form);
  stop.record(cudaStreamPerThread);
  device_s = stop.seconds_since(start);
  std::vector<double> out(count);
  (n % 2 ? pong : ping).download(out.data());
  int first_bad = INT_MAX;
  bad.download(&first_bad);
  bad_pivot = first_bad == INT_MAX ? -1 : first_bad;
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
