// The normal equations on the device, in f64, on the CPU assembly's CSR pattern (row k:
// the product of the per-axis coupled-node lists in C order).
//
// atomic ("shooting", the seed's): one thread per sample adds its (4^D)^2 products to the
//   matrix and its 4^D weighted values to the right-hand side with atomicAdd; the sum order
//   changes from run to run, so the result does in its last bits.
// gather (deterministic): samples sorted by cell; one thread per matrix entry (k, k') sums,
//   over the cells in touch(k) ∩ touch(k') in ascending order and each cell's samples in
//   sorted order, the products of the two nodes' weights; one thread per row sums F^T f
//   (operator_gather.cuh). Every run gives the same bits.
// Both add lambda R from the per-axis integral tables, entry by entry, as the CPU does.
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <chrono>
#include <limits>

#include "device_assembly.hpp"
#include "device_system.cuh"
#include "device_grid.cuh"
#include "operator_gather.cuh"

namespace splinebench::scattered::gpu::detail {

namespace {

__global__ void row_lengths(long long rows, GridView g, int* length) {
  const long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row > rows) return;
  if (row == rows) {
    length[row] = 0;  // the exclusive scan's last element becomes nnz
    return;
  }
  int k[3];
  g.unflat(row, k);
  int len = 1;
  for (int a = 0; a < 3; ++a) len *= g.axis[a].offset[k[a] + 1] - g.axis[a].offset[k[a]];
  length[row] = len;
}

// Row and per-axis places of entry e of that row; false past the row's end.
struct Entry {
  long long row;
  int k[3];   // row node per axis
  int j[3];   // index into the axis' node / integral arrays
  int col[3]; // column node per axis
};

__device__ inline bool entry_of(const GridView& g, long long t, int max_row, Entry& out) {
  out.row = t / max_row;
  int e = static_cast<int>(t % max_row);
  g.unflat(out.row, out.k);
  int len[3];
  for (int a = 0; a < 3; ++a) len[a] = g.axis[a].offset[out.k[a] + 1] - g.axis[a].offset[out.k[a]];
  if (e >= len[0] * len[1] * len[2]) return false;
  int pos[3];
  pos[2] = e % len[2];
  e /= len[2];
  pos[1] = e % len[1];
  pos[0] = e / len[1];
  for (int a = 0; a < 3; ++a) {
    out.j[a] = g.axis[a].offset[out.k[a]] + pos[a];
    out.col[a] = g.axis[a].node[out.j[a]];
  }
  return true;
}

__device__ inline double thin_plate_entry(const GridView& g, const Entry& en) {
  double r = 0;
  for (int t = 0; t < g.terms; ++t)
    r += g.term_weight[t] * g.axis[0].integral[g.term_order[t][0]][en.j[0]] *
         g.axis[1].integral[g.term_order[t][1]][en.j[1]] * g.axis[2].integral[g.term_order[t][2]][en.j[2]];
  return r;
}

// Fills the column indices; value = lambda R (atomic, the samples are added after) or
// F^T F + lambda R summed by this thread alone (gather).
template <bool kGather>
__global__ void entries(long long rows, int max_row, GridView g, const int* __restrict__ outer, int* inner,
                        double* value, const double* x0, const double* x1, const double* x2,
                        const int* __restrict__ cell_start) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= rows * max_row) return;
  Entry en;
  if (!entry_of(g, t, max_row, en)) return;
  const long long at = outer[en.row] + t % max_row;
  inner[at] = static_cast<int>(g.flat(en.col[0], en.col[1], en.col[2]));
  double s = 0;
  if (kGather) {
    const double* x[3] = {x0, x1, x2};
    const AxisView* ax = g.axis;
    for (int i0 = ax[0].touch_offset[en.k[0]]; i0 < ax[0].touch_offset[en.k[0] + 1]; ++i0) {
      const int c0 = ax[0].touch_cell[i0];
      if (!touches(ax[0], en.col[0], c0)) continue;
      for (int i1 = ax[1].touch_offset[en.k[1]]; i1 < ax[1].touch_offset[en.k[1] + 1]; ++i1) {
        const int c1 = ax[1].touch_cell[i1];
        if (!touches(ax[1], en.col[1], c1)) continue;
        for (int i2 = ax[2].touch_offset[en.k[2]]; i2 < ax[2].touch_offset[en.k[2] + 1]; ++i2) {
          const int c2 = ax[2].touch_cell[i2];
          if (!touches(ax[2], en.col[2], c2)) continue;
          const int c[3] = {c0, c1, c2};
          const long long cell = g.flat(c0, c1, c2);
          for (int smp = cell_start[cell]; smp < cell_start[cell + 1]; ++smp) {
            double wk[3], wc[3];
            for (int a = 0; a < 3; ++a) {
              const double frac = x[a][smp] - c[a];
              wk[a] = node_weight(ax[a], c[a], frac, en.k[a]);
              wc[a] = node_weight(ax[a], c[a], frac, en.col[a]);
            }
            // The CPU's product order: ((w_k0 w_k1 w_k2) w_c0 w_c1) w_c2.
            s += wk[0] * wk[1] * wk[2] * wc[0] * wc[1] * wc[2];
          }
        }
      }
    }
  }
  value[at] = s + thin_plate_entry(g, en);
}

__global__ void rhs_gather(long long rows, GridView g, RhsPolicy policy, const int* __restrict__ cell_start,
                           double* rhs) {
  const long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  int k[3];
  g.unflat(row, k);
  rhs[row] = gather_node<double>(g, cell_start, k[0], k[1], k[2], policy);
}

// One thread per sample: the seed's shooting.
__global__ void shoot(long long count, GridView g, const double* x0, const double* x1, const double* x2,
                      const double* __restrict__ f, const int* __restrict__ outer, double* value, double* rhs) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const double x[3] = {x0[i], x1[i], x2[i]};
  Taps<double> taps[3];
  int pos[3][4][4], len[3][4];
  for (int a = 0; a < 3; ++a) {
    const int cell = cell_of(g.axis[a], x[a]);
    taps[a] = axis_taps(g.axis[a], cell, x[a] - cell);
    for (int s = 0; s < taps[a].count; ++s) {
      const int k = taps[a].node[s];
      len[a][s] = g.axis[a].offset[k + 1] - g.axis[a].offset[k];
      for (int t = 0; t < taps[a].count; ++t) pos[a][s][t] = coupled_position(g.axis[a], k, taps[a].node[t]);
    }
  }
  for (int s0 = 0; s0 < taps[0].count; ++s0)
    for (int s1 = 0; s1 < taps[1].count; ++s1)
      for (int s2 = 0; s2 < taps[2].count; ++s2) {
        const long long row = g.flat(taps[0].node[s0], taps[1].node[s1], taps[2].node[s2]);
        const double wr = taps[0].weight[s0] * taps[1].weight[s1] * taps[2].weight[s2];
        atomicAdd(rhs + row, wr * f[i]);
        double* row_values = value + outer[row];
        for (int t0 = 0; t0 < taps[0].count; ++t0)
          for (int t1 = 0; t1 < taps[1].count; ++t1) {
            const int base = (pos[0][s0][t0] * len[1][s1] + pos[1][s1][t1]) * len[2][s2];
            const double w01 = wr * taps[0].weight[t0] * taps[1].weight[t1];
            for (int t2 = 0; t2 < taps[2].count; ++t2) atomicAdd(row_values + base + pos[2][s2][t2], w01 * taps[2].weight[t2]);
          }
      }
}

double wall_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

void gather_rhs(const DeviceGrid& grid, const DeviceSamples& s, double* rhs, cudaStream_t stream) {
  const long long rows = grid.layout().rows;
  RhsPolicy policy;
  for (int a = 0; a < 3; ++a) policy.x[a] = s.coord[a].data();
  policy.cell = s.cell.data();
  policy.value = s.value.data();
  rhs_gather<<<blocks_for(rows), kThreads, 0, stream>>>(rows, grid.view(), policy, s.cell_start.data(), rhs);
  SB_CUDA_CHECK_LAUNCH("rhs_gather");
}

DeviceSystem::DeviceSystem(const GridLayout& layout, const SampleArrays& samples, bool gather)
    : s_(std::make_unique<State>()) {
  if (layout.nnz > std::numeric_limits<int>::max() || layout.rows >= std::numeric_limits<int>::max())
    throw Unsupported("scattered GPU assembly: " + std::to_string(layout.nnz) +
                      " matrix entries, more than 32-bit CSR indices address (use the matrix-free operator)");
  State& st = *s_;
  auto t0 = std::chrono::steady_clock::now();
  const DeviceGrid grid(layout);
  const GridView& g = grid.view();
  const long long rows = layout.rows;
  const auto nnz = static_cast<std::size_t>(layout.nnz);
  st.rows = rows;
  st.nnz = nnz;
  DeviceSamples sorted;
  DeviceSamplesUnsorted raw;
  if (gather) {
    upload_and_sort(grid, samples, sorted);
    upload_s = wall_since(t0) - sorted.sort_s;
    sort_s = sorted.sort_s;
  } else {
    upload(samples, raw);
    sync_this_thread();
    upload_s = wall_since(t0);
  }
  DeviceBuffer<int> length(static_cast<std::size_t>(rows) + 1);
  st.outer.resize(static_cast<std::size_t>(rows) + 1);
  st.inner.resize(nnz);
  st.value.resize(nnz);
  st.rhs.resize(static_cast<std::size_t>(rows));
  // Poisoned (all bits set: index -1, value NaN) so an entry no thread writes shows.
  SB_CUDA_CHECK(cudaMemset(st.inner.data(), 0xFF, nnz * sizeof(int)));
  SB_CUDA_CHECK(cudaMemset(st.value.data(), 0xFF, nnz * sizeof(double)));
  SB_CUDA_CHECK(cudaMemset(st.rhs.data(), 0xFF, static_cast<std::size_t>(rows) * sizeof(double)));

  Event start, patterned, done;
  start.record();
  row_lengths<<<blocks_for(rows + 1), kThreads>>>(rows, g, length.data());
  SB_CUDA_CHECK_LAUNCH("row_lengths");
  std::size_t scan_bytes = 0;
  SB_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, length.data(), st.outer.data(), static_cast<int>(rows + 1)));
  DeviceBuffer<unsigned char> temp(std::max<std::size_t>(scan_bytes, 1));
  SB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.data(), scan_bytes, length.data(), st.outer.data(),
                                              static_cast<int>(rows + 1)));
  patterned.record();
  const long long entry_threads = rows * layout.max_row;
  if (gather) {
    entries<true><<<blocks_for(entry_threads), kThreads>>>(rows, layout.max_row, g, st.outer.data(), st.inner.data(),
                                                           st.value.data(), sorted.coord[0].data(),
                                                           sorted.coord[1].data(), sorted.coord[2].data(),
                                                           sorted.cell_start.data());
    SB_CUDA_CHECK_LAUNCH("entries<gather>");
    gather_rhs(grid, sorted, st.rhs.data());
  } else {
    entries<false><<<blocks_for(entry_threads), kThreads>>>(rows, layout.max_row, g, st.outer.data(), st.inner.data(),
                                                            st.value.data(), nullptr, nullptr, nullptr, nullptr);
    SB_CUDA_CHECK_LAUNCH("entries<atomic>");
    SB_CUDA_CHECK(cudaMemsetAsync(st.rhs.data(), 0, static_cast<std::size_t>(rows) * sizeof(double)));
    shoot<<<blocks_for(raw.count), kThreads>>>(raw.count, g, raw.coord[0].data(), raw.coord[1].data(),
                                               raw.coord[2].data(), raw.value.data(), st.outer.data(),
                                               st.value.data(), st.rhs.data());
    SB_CUDA_CHECK_LAUNCH("shoot");
  }
  done.record();
  pattern_s = patterned.seconds_since(start);
  values_s = done.seconds_since(patterned);
}

DeviceSystem::~DeviceSystem() = default;

long long DeviceSystem::rows() const { return s_->rows; }

std::vector<double> DeviceSystem::rhs() const {
  std::vector<double> out(static_cast<std::size_t>(s_->rows));
  s_->rhs.download(out.data());
  return out;
}

HostCsr DeviceSystem::download() const {
  const State& st = *s_;
  HostCsr out;
  out.upload_s = upload_s;
  out.sort_s = sort_s;
  out.pattern_s = pattern_s;
  out.values_s = values_s;
  const auto t0 = std::chrono::steady_clock::now();
  out.outer.resize(static_cast<std::size_t>(st.rows) + 1);
  out.inner.resize(st.nnz);
  out.value.resize(st.nnz);
  out.rhs.resize(static_cast<std::size_t>(st.rows));
  st.outer.download(out.outer.data());
  st.inner.download(out.inner.data());
  st.value.download(out.value.data());
  st.rhs.download(out.rhs.data());
  out.readback_s = wall_since(t0);
  return out;
}

HostCsr assemble_csr(const GridLayout& layout, const SampleArrays& samples, bool gather) {
  return DeviceSystem(layout, samples, gather).download();
}

}  // namespace splinebench::scattered::gpu::detail
