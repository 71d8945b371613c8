// A level of the GPU multigrid as a per-node stencil on the device (stencil_level.hpp says
// what is stored and how it is summed): formed once from the level's samples, then
// applied at the cost of its nodes. Included by multigrid.cu alone, directly and through
// coarsest_direct.cuh (everything here has internal linkage, as vector_kernels.cuh).
//
// Forming: the level's samples are uploaded and sorted by cell (device_grid.cuh, as the
// matrix-free operator does), one thread per entry (entry-major: a warp is one entry of
// consecutive nodes, so it walks the same cells and writes coalesced) sums them by
// stencil_entry in f64 and stores the f32 rounding (the coarsest level, solved directly,
// keeps the f64 sums); the sorted samples are freed after.
// Applying: one thread per node runs stencil_row (its staged form, stencil_row_staged),
// y_k = sum_e value[e][k] x[fold(k + d_e)] in f32 FMAs, the entries in order (the same
// bits every run, and as the host's stencil_row).
#pragma once

#include <sstream>
#include <type_traits>

#include <cuda_pipeline.h>

#include "device_grid.cuh"
#include "splinebench/scattered/stencil_rows.hpp"
#include "stencil_level.hpp"

namespace splinebench::scattered::gpu::detail {
namespace {

// T = float: the stored stencil (one rounding of the f64 sum); T = double: the coarsest
// level's entries for its dense matrix (coarsest_direct.cuh), not rounded at all.
template <typename T>
__global__ void form_stencil_kernel(StencilInputs in, T* __restrict__ value) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long nodes = in.geo.nodes;
  if (t >= nodes * in.geo.entries) return;
  value[t] = static_cast<T>(stencil_entry(in, t % nodes, static_cast<int>(t / nodes)));
}

// The same entries as form_stencil_kernel, bit for bit, with the work per sample shared:
// one thread per (node, axis-0 offset) keeps the W1 x W2 entries of axes 1 and 2 in
// registers and visits each sample of the cells reaching its node once (instead of once
// per entry). Per cell and axis the touch bits of the offsets' nodes are found once; per
// sample each axis's pair weights are formed as stencil_pair_weight forms them (the taps
// of each node summed in tap order, then their product); each entry adds
// (p0 * p1) * p2 in stencil_entry's cell and sample order, a cell that does not reach the
// entry's node adding an exact 0 where stencil_entry skips it. Entries at offsets that
// are not their coupling's canonical one are 0, as stencil_entry's.
template <int W1, int W2>
__global__ void __launch_bounds__(kThreads) form_stencil_rows_kernel(StencilInputs in, double* __restrict__ value) {
  const StencilGeometry& g = in.geo;
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= g.nodes * g.width[0]) return;
  const long long node = t % g.nodes;
  const int e0 = static_cast<int>(t / g.nodes);
  int k[3];
  g.unflat(node, k);
  const int d0 = g.width[0] == 1 ? 0 : e0 - kStencilTaps / 2;
  const int k2_0 = fold_near(g.mode[0], k[0] + d0, g.n[0]);
  const bool canon0 = canonical_offset(g.mode[0], g.n[0], k[0], k2_0) == d0;
  int k2_1[W1], k2_2[W2];
  bool canon1[W1], canon2[W2];
  SB_STENCIL_UNROLL
  for (int i = 0; i < W1; ++i) {
    const int d = W1 == 1 ? 0 : i - kStencilTaps / 2;
    k2_1[i] = fold_near(g.mode[1], k[1] + d, g.n[1]);
    canon1[i] = canonical_offset(g.mode[1], g.n[1], k[1], k2_1[i]) == d;
  }
  SB_STENCIL_UNROLL
  for (int i = 0; i < W2; ++i) {
    const int d = W2 == 1 ? 0 : i - kStencilTaps / 2;
    k2_2[i] = fold_near(g.mode[2], k[2] + d, g.n[2]);
    canon2[i] = canonical_offset(g.mode[2], g.n[2], k[2], k2_2[i]) == d;
  }
  double acc[W1][W2];
  SB_STENCIL_UNROLL
  for (int i = 0; i < W1; ++i)
    SB_STENCIL_UNROLL
    for (int j = 0; j < W2; ++j) acc[i][j] = 0.0;
  const StencilAxisData* ax = in.axis;
  if (canon0) {
    for (int j0 = ax[0].touch_offset[k[0]]; j0 < ax[0].touch_offset[k[0] + 1]; ++j0) {
      const int c0 = ax[0].touch_cell[j0];
      const int a0 = ax[0].touch_mask[j0], b0 = stencil_touch_bits(ax[0], k2_0, c0);
      if (b0 == 0) continue;
      for (int j1 = ax[1].touch_offset[k[1]]; j1 < ax[1].touch_offset[k[1] + 1]; ++j1) {
        const int c1 = ax[1].touch_cell[j1];
        const int a1 = ax[1].touch_mask[j1];
        int b1[W1];
        SB_STENCIL_UNROLL
        for (int i = 0; i < W1; ++i) b1[i] = canon1[i] ? stencil_touch_bits(ax[1], k2_1[i], c1) : 0;
        for (int j2 = ax[2].touch_offset[k[2]]; j2 < ax[2].touch_offset[k[2] + 1]; ++j2) {
          const int c2 = ax[2].touch_cell[j2];
          const int a2 = ax[2].touch_mask[j2];
          int b2[W2];
          SB_STENCIL_UNROLL
          for (int i = 0; i < W2; ++i) b2[i] = canon2[i] ? stencil_touch_bits(ax[2], k2_2[i], c2) : 0;
          const long long cell = (static_cast<long long>(c0) * g.n[1] + c1) * g.n[2] + c2;
          for (int s = in.cell_start[cell]; s < in.cell_start[cell + 1]; ++s) {
            const double p0 = stencil_pair_weight(g.n[0], in.x[0][s] - c0, a0, b0);
            double p1[W1], p2[W2];
            SB_STENCIL_UNROLL
            for (int i = 0; i < W1; ++i) p1[i] = stencil_pair_weight(g.n[1], in.x[1][s] - c1, a1, b1[i]);
            SB_STENCIL_UNROLL
            for (int i = 0; i < W2; ++i) p2[i] = stencil_pair_weight(g.n[2], in.x[2][s] - c2, a2, b2[i]);
            SB_STENCIL_UNROLL
            for (int i = 0; i < W1; ++i)
              SB_STENCIL_UNROLL
              for (int j = 0; j < W2; ++j) acc[i][j] += p0 * p1[i] * p2[j];
          }
        }
      }
    }
  }
  SB_STENCIL_UNROLL
  for (int i = 0; i < W1; ++i)
    SB_STENCIL_UNROLL
    for (int j = 0; j < W2; ++j) {
      const int e = (e0 * W1 + i) * W2 + j;
      double v = 0.0;
      if (canon0 && canon1[i] && canon2[j]) {
        const int d[3] = {d0, W1 == 1 ? 0 : i - kStencilTaps / 2, W2 == 1 ? 0 : j - kStencilTaps / 2};
        double r = 0;
        for (int q = 0; q < in.terms; ++q) {
          double prod = in.term_weight[q];
          for (int a = 0; a < 3; ++a)
            prod *= in.axis[a].table[(k[a] * 3 + in.term_order[q][a]) * kStencilTaps + d[a] + 3];
          r += prod;
        }
        v = acc[i][j] + r;
      }
      value[static_cast<long long>(e) * g.nodes + node] = v;
    }
}

// How the product kernels read a row, by the level's size. Small levels (the coarse ones)
// are latency-bound: stencil_row_staged has every load of a row in flight at once, and its
// kernels take about two thirds of stencil_row's time there. On large levels it holds
// fewer threads per SM (its shared memory) and was slower: 25 against 21 us at 512², 7.7
// against 6.9 us at 257² (ncu, one solve), so those keep stencil_row and its occupancy.
inline constexpr long long kStagedMaxNodes = 32768;
inline constexpr int kStagedThreads = 64;  // stencil_row_staged: 2 x 49 x 4 B of shared memory a thread

bool staged_rows(long long nodes) { return nodes <= kStagedMaxNodes; }

// stencil_row on the device: the same FMAs in the same order (so the same bits), with each
// plane's entries and x values first copied into shared memory by asynchronous copies,
// all in flight at once. Read inside the FMA chain, as stencil_row reads them, the
// compiler issued them two or three ahead of their FMA, so one row waited on memory a
// dozen times and a level of a thousand nodes took as long as one of 66 000. Each thread
// reads back only what it copied: no barrier. Called once per kernel.
template <int W0, int W1, int W2>
__device__ __forceinline__ float stencil_row_staged(const StencilGeometry& g, const float* __restrict__ value,
                                                    const float* __restrict__ x, long long node) {
  constexpr int kPlane = W1 * W2;
  __shared__ float sv[kPlane][kStagedThreads], sx[kPlane][kStagedThreads];
  const int t = static_cast<int>(threadIdx.x);
  const StencilColumns<W0, W1, W2> col = stencil_columns<W0, W1, W2>(g, node);
  const long long n1 = g.n[1], n2 = g.n[2];
  float sum = 0.f;
#pragma unroll
  for (int a = 0; a < W0; ++a) {
#pragma unroll
    for (int b = 0; b < W1; ++b) {
      const float* row = x + (col.i0[a] * n1 + col.i1[b]) * n2;
#pragma unroll
      for (int c = 0; c < W2; ++c) {
        const long long e = (a * W1 + b) * W2 + c;
        __pipeline_memcpy_async(&sv[b * W2 + c][t], value + e * g.nodes + node, sizeof(float));
        __pipeline_memcpy_async(&sx[b * W2 + c][t], row + col.i2[c], sizeof(float));
      }
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
#pragma unroll
    for (int l = 0; l < kPlane; ++l) sum = fmaf(sv[l][t], sx[l][t], sum);
  }
  return sum;
}

// stencil_row (Staged false, blocks of kThreads) or stencil_row_staged (blocks of
// kStagedThreads): the same bits.
template <bool Staged, int W0, int W1, int W2>
__device__ __forceinline__ float device_row(const StencilGeometry& g, const float* __restrict__ value,
                                            const float* __restrict__ x, long long node) {
  if constexpr (Staged) return stencil_row_staged<W0, W1, W2>(g, value, x, node);
  else return stencil_row<W0, W1, W2>(g, value, x, node);
}

template <bool Staged, int W0, int W1, int W2>
__global__ void __launch_bounds__(kThreads)
    stencil_apply_kernel(StencilGeometry g, const float* __restrict__ value, const float* __restrict__ x,
                         float* __restrict__ y) {
  const long long node = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (node < g.nodes) y[node] = device_row<Staged, W0, W1, W2>(g, value, x, node);
}

// The smoother's Chebyshev step with its product in one pass (multigrid.cu's
// chebyshev_first / chebyshev_next after stencil_apply_kernel, the same arithmetic, so the
// same bits): ap = A x_in stays in a register, d = c2 D^-1 (b - ap) (first: D^-1 (b - ap)
// c2, c2 = 1 / theta) or d = c1 d + c2 D^-1 (b - ap), x_out = x_in + d. x_out is another
// buffer than x_in: the product reads x_in's neighbours while other threads write.
template <bool Staged, int W0, int W1, int W2>
__global__ void __launch_bounds__(kThreads)
    stencil_chebyshev_kernel(StencilGeometry g, const float* __restrict__ value, const float* __restrict__ x_in,
                             float* __restrict__ x_out, const float* __restrict__ b,
                             const float* __restrict__ inv_diag, float* __restrict__ d, float c1, float c2,
                             bool first) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= g.nodes) return;
  const float ap = device_row<Staged, W0, W1, W2>(g, value, x_in, i);
  const float di = first ? inv_diag[i] * (b[i] - ap) * c2 : fmaf(c1, d[i], c2 * inv_diag[i] * (b[i] - ap));
  d[i] = di;
  x_out[i] = x_in[i] + di;
}

// r = b - A x in one pass (vector_kernels.cuh's residual after the product: the same bits).
template <bool Staged, int W0, int W1, int W2>
__global__ void __launch_bounds__(kThreads)
    stencil_residual_kernel(StencilGeometry g, const float* __restrict__ value, const float* __restrict__ x,
                            const float* __restrict__ b, float* __restrict__ r) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < g.nodes) r[i] = b[i] - device_row<Staged, W0, W1, W2>(g, value, x, i);
}

__global__ void round_stencil_kernel(long long count, const double* __restrict__ exact, float* __restrict__ value) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) value[i] = static_cast<float>(exact[i]);
}

__global__ void stencil_centre_kernel(long long nodes, const float* __restrict__ centre, float* __restrict__ d) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < nodes) d[i] = centre[i];
}

std::string gib(std::uint64_t bytes) {
  std::ostringstream s;
  s.precision(3);
  s << static_cast<double>(bytes) / (1ull << 30) << " GiB";
  return s.str();
}

// Throws Unsupported when the stencils of levels [first, last) do not fit in the device's
// free memory (checked before any is formed, so the message names the need).
void require_stencil_memory(const std::vector<Level>& levels, std::size_t first, std::size_t last) {
  if (first >= last) return;
  std::uint64_t need = 0;
  for (std::size_t l = first; l < last; ++l) need += stencil_bytes(levels[l].layout);
  std::size_t free = 0, total = 0;
  SB_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  if (need > free) {
    const GridLayout& top = levels[first].layout;
    throw Unsupported("scattered GPU MG-PCG: the per-node stencils of levels " + std::to_string(first) + ".." +
                      std::to_string(last - 1) + " need " + gib(need) + " (" +
                      std::to_string(stencil_geometry(top).entries) + " f32 entries per node, " +
                      std::to_string(top.rows) + " nodes on level " + std::to_string(first) + "); the device has " +
                      gib(free) + " free of " + gib(total));
  }
}

// Forms a level's stencil into `value` (device memory, stencil_geometry(level.layout)'s
// nodes * entries values, entry-major) from the level's samples on the device (`grid` of
// level.layout and the samples sorted by cell: a matrix-free operator's, or uploaded and
// sorted for this alone): f64 entries a thread per node row, others a thread per entry.
// Queued on the calling thread's stream; the tables it reads return to the pool behind it.
template <typename T>
void form_stencil_device(const Level& level, const DeviceGrid& grid, const DeviceSamples& sorted, T* value) {
  const StencilGeometry geo = stencil_geometry(level.layout);
  const long long count = geo.nodes * geo.entries;
  DeviceBuffer<double> tables[3];
  StencilInputs in;
  in.geo = geo;
  for (int a = 0; a < 3; ++a) {
    const std::vector<double> t = canonical_axis_table(level.layout.axis[a]);
    tables[a].resize(t.size());
    tables[a].upload(t.data());
    const AxisView& ax = grid.view().axis[a];
    in.axis[a] = {ax.touch_offset, ax.touch_cell, ax.touch_mask, tables[a].data()};
    in.x[a] = sorted.coord[a].data();
  }
  in.cell_start = sorted.cell_start.data();
  set_stencil_terms(level.layout, in);
  if constexpr (std::is_same_v<T, double>) {
    // f64 entries (MG-PCG's first stencil level): a thread per node row of axes 1 and 2.
    const long long rows = geo.nodes * geo.width[0];
    const bool w1 = geo.width[1] > 1, w2 = geo.width[2] > 1;
    if (w1 && w2) form_stencil_rows_kernel<kStencilTaps, kStencilTaps><<<blocks_for(rows), kThreads>>>(in, value);
    else if (w2) form_stencil_rows_kernel<1, kStencilTaps><<<blocks_for(rows), kThreads>>>(in, value);
    else if (w1) form_stencil_rows_kernel<kStencilTaps, 1><<<blocks_for(rows), kThreads>>>(in, value);
    else form_stencil_rows_kernel<1, 1><<<blocks_for(rows), kThreads>>>(in, value);
    SB_CUDA_CHECK_LAUNCH("form_stencil_rows_kernel");
  } else {
    form_stencil_kernel<T><<<blocks_for(count), kThreads>>>(in, value);
    SB_CUDA_CHECK_LAUNCH("form_stencil_kernel");
  }
}

// The same, the level's samples uploaded and sorted for it (they return to the pool behind
// the kernel).
template <typename T>
void form_stencil_device(const Level& level, T* value) {
  const DeviceGrid grid(level.layout);
  DeviceSamples sorted;
  upload_and_sort(grid, level.samples, sorted);
  form_stencil_device(level, grid, sorted, value);
}

// A level's operator from its per-node stencil.
class StencilOperator {
 public:
  explicit StencilOperator(const Level& level) : geo_(stencil_geometry(level.layout)) {
    value_.resize(static_cast<std::size_t>(geo_.nodes) * static_cast<std::size_t>(geo_.entries));
    form_stencil_device(level, value_.data());
  }
  // From the f64 entries of a level formed otherwise (device memory, geometry g: a Galerkin
  // level, galerkin_level.cuh), each rounded once to f32; queued, not waited for.
  StencilOperator(const StencilGeometry& g, const double* exact) : geo_(g) {
    const long long count = geo_.nodes * geo_.entries;
    value_.resize(static_cast<std::size_t>(count));
    round_stencil_kernel<<<blocks_for(count), kThreads>>>(count, exact, value_.data());
    SB_CUDA_CHECK_LAUNCH("round_stencil_kernel");
  }

  long long rows() const { return geo_.nodes; }
  const StencilGeometry& geometry() const { return geo_; }
  const float* values() const { return value_.data(); }

  // ap = A p (device pointers, rows() each; p and ap must not alias); `rows` forces a row
  // form (tests: both give the same bits).
  void apply(const float* p, float* ap, cudaStream_t stream = nullptr,
             StencilRows rows = StencilRows::by_size) const {
    launch(
        [&]<bool Staged, int W0, int W1, int W2>(int blocks, int threads) {
          stencil_apply_kernel<Staged, W0, W1, W2><<<blocks, threads, 0, stream>>>(geo_, value_.data(), p, ap);
        },
        rows);
    SB_CUDA_CHECK_LAUNCH("stencil_apply_kernel");
  }

  // One Chebyshev step with its product (stencil_chebyshev_kernel; x_in and x_out distinct).
  void chebyshev_step(const float* x_in, float* x_out, const float* b, const float* inv_diag, float* d, float c1,
                      float c2, bool first, cudaStream_t stream = nullptr) const {
    launch([&]<bool Staged, int W0, int W1, int W2>(int blocks, int threads) {
      stencil_chebyshev_kernel<Staged, W0, W1, W2>
          <<<blocks, threads, 0, stream>>>(geo_, value_.data(), x_in, x_out, b, inv_diag, d, c1, c2, first);
    });
    SB_CUDA_CHECK_LAUNCH("stencil_chebyshev_kernel");
  }

  // r = b - A x (device pointers, rows() each, r aliasing neither).
  void residual(const float* x, const float* b, float* r, cudaStream_t stream = nullptr) const {
    launch([&]<bool Staged, int W0, int W1, int W2>(int blocks, int threads) {
      stencil_residual_kernel<Staged, W0, W1, W2><<<blocks, threads, 0, stream>>>(geo_, value_.data(), x, b, r);
    });
    SB_CUDA_CHECK_LAUNCH("stencil_residual_kernel");
  }

  // d = diag(A): the centre entries (the f64 sum rounded once, as the matrix-free diagonal).
  void diagonal(float* d, cudaStream_t stream = nullptr) const {
    stencil_centre_kernel<<<blocks_for(geo_.nodes), kThreads, 0, stream>>>(
        geo_.nodes, value_.data() + static_cast<long long>(geo_.centre()) * geo_.nodes, d);
    SB_CUDA_CHECK_LAUNCH("stencil_centre_kernel");
  }

 private:
  // Calls f.template operator()<Staged, W0, W1, W2>(blocks, threads) with the level's row
  // form (staged_rows, unless `rows` forces one) and widths.
  template <typename F>
  void launch(F&& f, StencilRows rows = StencilRows::by_size) const {
    const bool staged = rows == StencilRows::by_size ? staged_rows(geo_.nodes) : rows == StencilRows::staged;
    const int threads = staged ? kStagedThreads : kThreads;
    const int blocks = static_cast<int>((geo_.nodes + threads - 1) / threads);
    with_stencil_widths(geo_, [&]<int W0, int W1, int W2>() {
      if (staged) f.template operator()<true, W0, W1, W2>(blocks, threads);
      else f.template operator()<false, W0, W1, W2>(blocks, threads);
    });
  }

  StencilGeometry geo_;
  DeviceBuffer<float> value_;
};

}  // namespace
}  // namespace splinebench::scattered::gpu::detail
