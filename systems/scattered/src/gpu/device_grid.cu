#include "device_grid.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <chrono>
#include <limits>
#include <numeric>
#include <vector>

#include "block_sums.cuh"

namespace splinebench::scattered::gpu::detail {

namespace {

template <typename T>
void upload_vector(DeviceBuffer<T>& buf, const std::vector<T>& host) {
  buf.resize(host.size());
  if (!host.empty()) buf.upload(host.data());
}

__global__ void linear_cells(long long count, GridView g, const double* x0, const double* x1, const double* x2,
                             int* cell, int* index, int* cell_count) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const long long c = g.flat(cell_of(g.axis[0], x0[i]), cell_of(g.axis[1], x1[i]), cell_of(g.axis[2], x2[i]));
  cell[i] = static_cast<int>(c);
  index[i] = static_cast<int>(i);
  atomicAdd(cell_count + c, 1);  // an integer count: the same whatever the order
}

__global__ void permute(long long count, const int* index, const double* in, double* out) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) out[i] = in[index[i]];
}

__global__ void dot_partial(long long n, const float* __restrict__ a, const float* __restrict__ b, double* partial) {
  store_block_sum<kThreads>(grid_stride_dot(n, a, b), partial);
}

__global__ void dot_final(int count, const double* partial, double* out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    double t = 0;
    for (int i = 0; i < count; ++i) t += partial[i];
    *out = t;
  }
}

}  // namespace

DeviceGrid::DeviceGrid(const GridLayout& layout) : layout_(layout) {
  for (int a = 0; a < 3; ++a) {
    const AxisLayout& ax = layout.axis[a];
    Axis& d = axes_[a];
    upload_vector(d.offset, ax.offset);
    upload_vector(d.node, ax.node);
    upload_vector(d.touch_offset, ax.touch_offset);
    upload_vector(d.touch_cell, ax.touch_cell);
    upload_vector(d.touch_mask, ax.touch_mask);
    upload_vector(d.plain, ax.plain);
    upload_vector(d.stencil_f32, std::vector<float>(ax.stencil.begin(), ax.stencil.end()));
    AxisView& v = view_.axis[a];
    v.n = ax.n;
    v.mode = ax.mode;
    v.offset = d.offset.data();
    v.node = d.node.data();
    v.touch_offset = d.touch_offset.data();
    v.touch_cell = d.touch_cell.data();
    v.touch_mask = d.touch_mask.data();
    v.plain = d.plain.data();
    v.stencil_f32 = d.stencil_f32.data();
    for (int p = 0; p < 3; ++p) {
      upload_vector(d.integral[p], ax.integral[p]);
      const std::vector<float> f32(ax.integral[p].begin(), ax.integral[p].end());
      upload_vector(d.integral_f32[p], f32);
      v.integral[p] = d.integral[p].data();
      v.integral_f32[p] = d.integral_f32[p].data();
    }
  }
  view_.terms = layout.terms;
  for (int t = 0; t < layout.terms; ++t) {
    for (int a = 0; a < 3; ++a) view_.term_order[t][a] = layout.term_order[t][a];
    view_.term_weight[t] = layout.term_weight[t];
    view_.term_weight_f32[t] = static_cast<float>(layout.term_weight[t]);
  }
}

void upload(const SampleArrays& samples, DeviceSamplesUnsorted& out) {
  out.count = static_cast<long long>(samples.value.size());
  for (int a = 0; a < 3; ++a) upload_vector(out.coord[a], samples.coord[a]);
  upload_vector(out.value, samples.value);
}

void upload_and_sort(const DeviceGrid& grid, const SampleArrays& samples, DeviceSamples& out) {
  const GridLayout& layout = grid.layout();
  if (layout.rows >= std::numeric_limits<int>::max() ||
      samples.value.size() >= static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw Unsupported("scattered GPU: more than 2^31 - 1 nodes or samples");
  const long long n = static_cast<long long>(samples.value.size());
  const auto rows = static_cast<std::size_t>(layout.rows);
  out.count = n;
  const auto t0 = std::chrono::steady_clock::now();
  DeviceSamplesUnsorted raw;
  upload(samples, raw);
  sync_this_thread();
  out.upload_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  Event start, stop;
  start.record();
  DeviceBuffer<int> cell_in(n), index_in(n), index(n);
  out.cell.resize(n);
  DeviceBuffer<int> cell_count(rows + 1);
  SB_CUDA_CHECK(cudaMemset(cell_count.data(), 0, (rows + 1) * sizeof(int)));
  linear_cells<<<blocks_for(n), kThreads>>>(n, grid.view(), raw.coord[0].data(), raw.coord[1].data(),
                                            raw.coord[2].data(), cell_in.data(), index_in.data(), cell_count.data());
  SB_CUDA_CHECK_LAUNCH("linear_cells");
  int end_bit = 1;
  while (end_bit < 31 && (1LL << end_bit) < static_cast<long long>(rows)) ++end_bit;
  std::size_t sort_bytes = 0, scan_bytes = 0;
  SB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, cell_in.data(), out.cell.data(), index_in.data(),
                                                index.data(), n, 0, end_bit));
  out.cell_start.resize(rows + 1);
  SB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, cell_count.data(), out.cell_start.data(),
                                              static_cast<int>(rows + 1)));
  DeviceBuffer<unsigned char> temp(std::max(std::max(sort_bytes, scan_bytes), std::size_t{1}));
  SB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), sort_bytes, cell_in.data(), out.cell.data(),
                                                index_in.data(), index.data(), n, 0, end_bit));
  SB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.data(), scan_bytes, cell_count.data(), out.cell_start.data(),
                                              static_cast<int>(rows + 1)));
  for (int a = 0; a < 3; ++a) {
    out.coord[a].resize(n);
    permute<<<blocks_for(n), kThreads>>>(n, index.data(), raw.coord[a].data(), out.coord[a].data());
    SB_CUDA_CHECK_LAUNCH("permute");
  }
  out.value.resize(n);
  permute<<<blocks_for(n), kThreads>>>(n, index.data(), raw.value.data(), out.value.data());
  SB_CUDA_CHECK_LAUNCH("permute");
  stop.record();
  out.sort_s = stop.seconds_since(start);
}

double DotProduct::operator()(long long n, const float* a, const float* b) {
  dot_partial<<<kBlocks, kThreads>>>(n, a, b, partial_.data());
  SB_CUDA_CHECK_LAUNCH("dot_partial");
  dot_final<<<1, 32>>>(kBlocks, partial_.data(), result_.data());
  SB_CUDA_CHECK_LAUNCH("dot_final");
  double h = 0;
  result_.download(&h);
  return h;
}

}  // namespace splinebench::scattered::gpu::detail
