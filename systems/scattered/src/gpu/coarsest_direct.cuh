// The coarsest level's direct solve on the device (coarsest_direct.hpp says what is formed
// and why): built once from the level (its f64 stencil, the dense matrix, n sweeps, the
// f32 inverse), then x = A^-1 b in one launch with no host round trip. Included by
// multigrid.cu alone (internal linkage, as stencil_level.cuh).
#pragma once

#include <climits>

#include "coarsest_direct.hpp"
#include "stencil_level.cuh"

namespace splinebench::scattered::gpu::detail {
namespace {

// One thread per row: the row's stencil entries added into the zeroed dense matrix.
__global__ void dense_from_stencil_kernel(StencilGeometry g, const double* __restrict__ value, double* dense) {
  const long long node = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (node < g.nodes) dense_row_from_stencil(g, value, node, dense + node * g.nodes);
}

// One sweep: out = the sweep of pivot k of in (n x n each, distinct buffers). The thread of
// the pivot records k in *bad (atomicMin: the first bad pivot of all) when the pivot is
// not positive or not finite.
__global__ void sweep_kernel(long long n, long long k, const double* __restrict__ in, double* __restrict__ out,
                             int* bad) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= n * n) return;
  const long long i = t / n, j = t % n;
  if (i == k && j == k) {
    const double pivot = in[k * n + k];
    if (!(pivot > 0) || !isfinite(pivot)) atomicMin(bad, static_cast<int>(k));
  }
  out[t] = sweep_element(in, n, k, i, j);
}

// inv = -swept rounded to f32 (the sweeps leave -A^-1).
__global__ void finish_inverse_kernel(long long count, const double* __restrict__ swept, float* __restrict__ inv) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t < count) inv[t] = static_cast<float>(-swept[t]);
}

// x = inv b: one warp per row (blockDim a multiple of 32, so a row's warp exits together).
__global__ void direct_apply_kernel(long long n, const float* __restrict__ inv, const float* __restrict__ b,
                                    float* __restrict__ x) {
  const long long row = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / kDirectLanes;
  const int lane = static_cast<int>(threadIdx.x % kDirectLanes);
  if (row >= n) return;
  double t = direct_lane_sum(inv + row * n, b, n, lane);
  for (int off = kDirectLanes / 2; off > 0; off /= 2) t += __shfl_xor_sync(0xffffffffu, t, off);
  if (lane == 0) x[row] = static_cast<float>(t);
}

class DirectCoarsest {
 public:
  // Forms and inverts the level's matrix from its samples (queued; bad_pivot() waits).
  explicit DirectCoarsest(const Level& level) : geo_(stencil_geometry(level.layout)), n_(geo_.nodes) {
    check_size(level.grid.to_string());
    DeviceBuffer<double> value(static_cast<std::size_t>(n_) * static_cast<std::size_t>(geo_.entries));
    form_stencil_device(level, value.data());
    invert(value.data());
  }
  // Inverts the matrix of the f64 stencil `value` (device memory, geometry g: a Galerkin
  // level; queued, bad_pivot() waits for it).
  DirectCoarsest(const StencilGeometry& g, const double* value) : geo_(g), n_(g.nodes) {
    check_size(std::to_string(g.n[0]) + "x" + std::to_string(g.n[1]) + "x" + std::to_string(g.n[2]));
    invert(value);
  }

  long long rows() const { return n_; }
  // The first pivot that was not positive (-1: none, the inverse is valid); the first call
  // waits for the inversion.
  long long bad_pivot() const {
    if (!pivot_read_) {
      int first_bad = INT_MAX;
      bad_.download(&first_bad);
      bad_pivot_ = first_bad == INT_MAX ? -1 : first_bad;
      pivot_read_ = true;
    }
    return bad_pivot_;
  }
  const float* inverse() const { return inverse_.data(); }

  // x = A^-1 b (device pointers, rows() each, not aliased).
  void apply(const float* b, float* x, cudaStream_t stream = nullptr) const {
    const long long threads = n_ * kDirectLanes;
    direct_apply_kernel<<<blocks_for(threads), kThreads, 0, stream>>>(n_, inverse_.data(), b, x);
    SB_CUDA_CHECK_LAUNCH("direct_apply_kernel");
  }

 private:
  void check_size(const std::string& grid) const {
    if (n_ > kMaxDirectRows)
      fail("GPU MG-PCG: the coarsest level (" + grid + ", " + std::to_string(n_) + " nodes) exceeds the direct solve's " +
           std::to_string(kMaxDirectRows));
  }

  void invert(const double* value) {
    const auto n = static_cast<std::size_t>(n_);
    const long long count = n_ * n_;
    DeviceBuffer<double> ping(n * n), pong(n * n);
    double* m[2] = {ping.data(), pong.data()};
    bad_.resize(1);
    SB_CUDA_CHECK(cudaMemsetAsync(m[0], 0, n * n * sizeof(double), cudaStreamPerThread));
    dense_from_stencil_kernel<<<blocks_for(n_), kThreads>>>(geo_, value, m[0]);
    SB_CUDA_CHECK_LAUNCH("dense_from_stencil_kernel");
    const int none = INT_MAX;
    bad_.upload(&none);
    // Sweep k reads m[k % 2] and writes m[(k + 1) % 2]: the launches on one stream run
    // in order, so each sees the whole previous sweep.
    for (long long k = 0; k < n_; ++k) {
      sweep_kernel<<<blocks_for(count), kThreads>>>(n_, k, m[k % 2], m[(k + 1) % 2], bad_.data());
      SB_CUDA_CHECK_LAUNCH("sweep_kernel");
    }
    inverse_.resize(n * n);
    finish_inverse_kernel<<<blocks_for(count), kThreads>>>(count, m[n_ % 2], inverse_.data());
    SB_CUDA_CHECK_LAUNCH("finish_inverse_kernel");
  }  // ping and pong return to the pool behind the kernels

  StencilGeometry geo_;
  long long n_ = 0;
  mutable long long bad_pivot_ = -1;
  mutable bool pivot_read_ = false;
  DeviceBuffer<int> bad_;  // the first bad pivot (INT_MAX: none), read once
  DeviceBuffer<float> inverse_;
};

}  // namespace
}  // namespace splinebench::scattered::gpu::detail
