// The coarsest level's direct solve on the device (coarsest_direct.hpp says what is formed
// and why): built once from the level (its f64 stencil, the dense matrix, the n sweeps in
// one launch, the f32 inverse), then x = A^-1 b in one launch with no host round trip.
// Included by multigrid.cu alone (internal linkage, as stencil_level.cuh).
#pragma once

#include <cooperative_groups.h>

#include <algorithm>
#include <climits>

#include "coarsest_direct.hpp"
#include "stencil_level.cuh"
#include "splinebench/scattered/coarsest_sweeps.hpp"

namespace splinebench::scattered::gpu::detail {
namespace {

// One thread per row: the row's stencil entries added into the zeroed dense matrix.
__global__ void dense_from_stencil_kernel(StencilGeometry g, const double* __restrict__ value, double* dense) {
  const long long node = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (node < g.nodes) dense_row_from_stencil(g, value, node, dense + node * g.nodes);
}

// Element (i, j) of sweep k: out[i n + j] = the sweep of pivot k of in (n x n each, distinct
// buffers). The thread of the pivot records k in *bad (atomicMin: the first bad pivot of
// all) when the pivot is not positive or not finite.
__device__ __forceinline__ void sweep_at(long long n, long long k, long long i, long long j, const double* in,
                                         double* out, int* bad) {
  if (i == k && j == k) {
    const double pivot = in[k * n + k];
    if (!(pivot > 0) || !isfinite(pivot)) atomicMin(bad, static_cast<int>(k));
  }
  out[i * n + j] = sweep_element(in, n, k, i, j);
}

// One sweep per launch (the form for a device without cooperative launches): the launches
// on one stream run in order, so each sees the whole previous sweep.
__global__ void sweep_kernel(long long n, long long k, const double* __restrict__ in, double* __restrict__ out,
                             int* bad) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= n * n) return;
  sweep_at(n, k, t / n, t % n, in, out, bad);
}

// Every sweep in one launch: sweep k reads m[k % 2] and writes m[(k + 1) % 2], then a barrier
// (the block's alone when kOneBlock, the grid's otherwise: a cooperative launch, every
// block resident) so that sweep k + 1 sees all of sweep k. Each thread takes elements
// first, first + stride, ... (a grid-stride loop); each element is the same sweep_element
// of the same values as in the per-sweep launches, so the bits are theirs. No __restrict__
// and no read-only loads: each buffer is written by the launch itself, every other sweep,
// and the barrier (grid.sync's fences) is what makes those writes visible to every block.
inline constexpr int kSweepThreads = 1024;
template <bool kOneBlock>
__global__ void __launch_bounds__(kSweepThreads) sweeps_kernel(long long n, double* m0, double* m1, int* bad) {
  const long long count = n * n;
  const long long first = kOneBlock ? static_cast<long long>(threadIdx.x)
                                    : static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long stride = kOneBlock ? static_cast<long long>(blockDim.x)
                                     : static_cast<long long>(gridDim.x) * blockDim.x;
  // The thread's first (i, j) and the stride in rows and columns, divided once: 64-bit
  // division is a long instruction sequence, and the elements are the same every sweep.
  const long long i0 = first / n, j0 = first % n, di = stride / n, dj = stride % n;
  for (long long k = 0; k < n; ++k) {
    const double* in = (k & 1) ? m1 : m0;
    double* out = (k & 1) ? m0 : m1;
    long long i = i0, j = j0;
    for (long long t = first; t < count; t += stride) {
      sweep_at(n, k, i, j, in, out, bad);
      i += di;
      j += dj;
      if (j >= n) {
        j -= n;
        ++i;
      }
    }
    if constexpr (kOneBlock) __syncthreads();
    else cooperative_groups::this_grid().sync();
  }
}

// The form by_size picks for n rows. One block when n <= kOneBlockMaxRows: a block barrier
// is a hardware barrier on one SM, far cheaper than a grid barrier (every block's arrival
// through an atomic in L2 and a spin on it), but one SM then does a sweep's n^2 elements
// alone, each an f64 division and 16 bytes of loads and stores, so its sweep grows as n^2
// while the grid's stays near the cost of its barrier. On the H200 the one-block form won
// up to n = 33 and lost from n = 64 on (GpuMultigridCoarsest.EverySweepFormIsTheHostsBitForBit
// prints each form's time per size); the bound is taken at 32, below that crossover, where
// the test brackets it. The forms give the same bits, so the bound moves only the time.
inline constexpr long long kOneBlockMaxRows = 32;

// Whether this thread's current device can launch cooperative kernels, and how many
// blocks of sweeps_kernel<false> it holds resident at once (0 when it cannot).
inline int resident_sweep_blocks() {
  int dev = 0, cooperative = 0, sms = 0, per_sm = 0;
  SB_CUDA_CHECK(cudaGetDevice(&dev));
  SB_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, dev));
  if (!cooperative) return 0;
  SB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  SB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sweeps_kernel<false>, kSweepThreads, 0));
  return sms * per_sm;
}

// Sweeps pivots 0 .. n-1 of m[0] (n x n, f64, row-major) on this thread's default stream,
// m[1] the other buffer; the result is in m[n % 2]. *bad takes the first pivot that is not
// positive and finite (atomicMin; the caller sets it to INT_MAX before).
//
// The per-sweep launches stay as the fallback for a device whose runtime reports no
// cooperative launch (the attribute is the runtime's to report per device and setup, and
// this library does not pick the device it runs on); the one-block form needs no
// cooperative launch and runs everywhere.
inline void run_sweeps(long long n, double* const m[2], int* bad, CoarsestSweeps form) {
  int resident = 0;
  if (form == CoarsestSweeps::by_size) {
    if (n <= kOneBlockMaxRows) form = CoarsestSweeps::one_block;
    else form = (resident = resident_sweep_blocks()) > 0 ? CoarsestSweeps::grid : CoarsestSweeps::launches;
  } else if (form == CoarsestSweeps::grid) {
    resident = resident_sweep_blocks();
    if (resident < 1) fail("GPU MG-PCG: the coarsest's sweeps: this device cannot launch them cooperatively");
  }
  const long long count = n * n;
  switch (form) {
    case CoarsestSweeps::one_block:
      // The per-thread default stream, as the file's other launches (the library is built
      // with per-thread default streams).
      sweeps_kernel<true><<<1, kSweepThreads>>>(n, m[0], m[1], bad);
      SB_CUDA_CHECK_LAUNCH("sweeps_kernel (one block)");
      break;
    case CoarsestSweeps::grid: {
      // No more blocks than elements (fewer blocks arrive at each barrier) and no more than
      // are resident at once (a cooperative launch requires every block resident).
      const long long wanted = (count + kSweepThreads - 1) / kSweepThreads;
      const int blocks = static_cast<int>(std::min<long long>(wanted, resident));
      long long n_arg = n;
      double* m0 = m[0];
      double* m1 = m[1];
      void* args[] = {&n_arg, &m0, &m1, &bad};
      // cudaStreamPerThread: the stream the file's <<<>>> launches and memsets use.
      SB_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&sweeps_kernel<false>), dim3(blocks),
                                                dim3(kSweepThreads), args, 0, cudaStreamPerThread));
      break;
    }
    default:
      for (long long k = 0; k < n; ++k) {
        sweep_kernel<<<blocks_for(count), kThreads>>>(n, k, m[k % 2], m[(k + 1) % 2], bad);
        SB_CUDA_CHECK_LAUNCH("sweep_kernel");
      }
  }
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
    run_sweeps(n_, m, bad_.data(), CoarsestSweeps::by_size);
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
