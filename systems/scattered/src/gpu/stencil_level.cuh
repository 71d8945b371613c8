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
// Applying: one thread per node runs stencil_row, y_k = sum_e value[e][k] x[fold(k + d_e)]
// in f32 FMAs, the entries in order (the same bits every run).
#pragma once

#include <sstream>

#include "device_grid.cuh"
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

template <int W0, int W1, int W2>
__global__ void __launch_bounds__(kThreads)
    stencil_apply_kernel(StencilGeometry g, const float* __restrict__ value, const float* __restrict__ x,
                         float* __restrict__ y) {
  const long long node = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (node < g.nodes) y[node] = stencil_row<W0, W1, W2>(g, value, x, node);
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
// nodes * entries values, entry-major): the level's samples uploaded and sorted by cell,
// one thread per entry; returns after the kernel has finished (the samples and tables it
// reads are freed on return).
template <typename T>
void form_stencil_device(const Level& level, T* value) {
  const StencilGeometry geo = stencil_geometry(level.layout);
  const long long count = geo.nodes * geo.entries;
  const DeviceGrid grid(level.layout);
  DeviceSamples sorted;
  upload_and_sort(grid, level.samples, sorted);
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
  form_stencil_kernel<T><<<blocks_for(count), kThreads>>>(in, value);
  SB_CUDA_CHECK_LAUNCH("form_stencil_kernel");
  sync_this_thread();  // before the inputs are freed
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

  // ap = A p (device pointers, rows() each; p and ap must not alias).
  void apply(const float* p, float* ap, cudaStream_t stream = nullptr) const {
    const int blocks = blocks_for(geo_.nodes);
    const StencilGeometry& g = geo_;
    const float* v = value_.data();
    with_stencil_widths(g, [&]<int W0, int W1, int W2>() {
      stencil_apply_kernel<W0, W1, W2><<<blocks, kThreads, 0, stream>>>(g, v, p, ap);
    });
    SB_CUDA_CHECK_LAUNCH("stencil_apply_kernel");
  }

  // d = diag(A): the centre entries (the f64 sum rounded once, as the matrix-free diagonal).
  void diagonal(float* d, cudaStream_t stream = nullptr) const {
    stencil_centre_kernel<<<blocks_for(geo_.nodes), kThreads, 0, stream>>>(
        geo_.nodes, value_.data() + static_cast<long long>(geo_.centre()) * geo_.nodes, d);
    SB_CUDA_CHECK_LAUNCH("stencil_centre_kernel");
  }

 private:
  StencilGeometry geo_;
  DeviceBuffer<float> value_;
};

}  // namespace
}  // namespace splinebench::scattered::gpu::detail
