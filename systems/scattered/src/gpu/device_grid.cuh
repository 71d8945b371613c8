// The grid layout (grid_layout.hpp) on the device, read by kernels through small views,
// the per-axis basis arithmetic those kernels share, and the samples sorted by cell.
#pragma once

#include <array>
#include <cstdint>

#include "cuda_support.cuh"
#include "grid_layout.hpp"
#include "splinebench/bspline_math.hpp"

namespace splinebench::scattered::gpu::detail {

struct AxisView {
  int n, mode;
  const int* offset;
  const int* node;
  const int* touch_offset;
  const int* touch_cell;
  const int* touch_mask;     // grid_layout.hpp
  const int* plain;          // grid_layout.hpp
  const float* stencil_f32;  // grid_layout.hpp, rounded to f32
  const double* integral[3];
  const float* integral_f32[3];
};

struct GridView {
  AxisView axis[3];
  int terms;
  int term_order[kMaxTerms][3];
  double term_weight[kMaxTerms];
  float term_weight_f32[kMaxTerms];
  __host__ __device__ long long flat(int k0, int k1, int k2) const {
    return (static_cast<long long>(k0) * axis[1].n + k1) * axis[2].n + k2;
  }
  __host__ __device__ void unflat(long long row, int k[3]) const {
    k[2] = static_cast<int>(row % axis[2].n);
    row /= axis[2].n;
    k[1] = static_cast<int>(row % axis[1].n);
    k[0] = static_cast<int>(row / axis[1].n);
  }
};

// The folded basis of one axis at a sample in cell `cell` (floor(x)) with fraction
// `frac`: distinct nodes and merged weights, in the order the CPU's axis_taps merges
// them. A line of one node is the constant 1.
template <typename T>
struct Taps {
  int count;
  int node[4];
  T weight[4];
};

template <typename T>
__device__ inline Taps<T> axis_taps(const AxisView& ax, int cell, T frac) {
  Taps<T> taps;
  if (ax.n == 1) {
    taps.count = 1;
    taps.node[0] = 0;
    taps.weight[0] = T(1);
    return taps;
  }
  T w[4];
  bspline::weights(frac, w);
  taps.count = 0;
  for (int t = 0; t < 4; ++t) {
    const int k = static_cast<int>(bspline::fold_index(ax.mode, cell + t - 1, ax.n));
    int j = 0;
    while (j < taps.count && taps.node[j] != k) ++j;
    if (j == taps.count) {
      taps.node[j] = k;
      taps.weight[j] = T(0);
      ++taps.count;
    }
    taps.weight[j] += w[t];
  }
  return taps;
}

// The merged weight of node k alone (zero when the sample does not reach it).
template <typename T>
__device__ inline T node_weight(const AxisView& ax, int cell, T frac, int k) {
  if (ax.n == 1) return T(1);
  T w[4];
  bspline::weights(frac, w);
  T s = T(0);
  for (int t = 0; t < 4; ++t)
    if (static_cast<int>(bspline::fold_index(ax.mode, cell + t - 1, ax.n)) == k) s += w[t];
  return s;
}

// Place of k2 among the coupled nodes of k (-1 when they do not couple: a bug).
__device__ inline int coupled_position(const AxisView& ax, int k, int k2) {
  for (int j = ax.offset[k]; j < ax.offset[k + 1]; ++j)
    if (ax.node[j] == k2) return j - ax.offset[k];
  return -1;
}

__device__ inline bool touches(const AxisView& ax, int k, int cell) {
  for (int j = ax.touch_offset[k]; j < ax.touch_offset[k + 1]; ++j)
    if (ax.touch_cell[j] == cell) return true;
  return false;
}

__device__ inline int cell_of(const AxisView& ax, double x) { return ax.n == 1 ? 0 : static_cast<int>(floor(x)); }

// The layout's arrays on the device.
class DeviceGrid {
 public:
  explicit DeviceGrid(const GridLayout& layout);
  const GridView& view() const { return view_; }
  const GridLayout& layout() const { return layout_; }

 private:
  struct Axis {
    DeviceBuffer<int> offset, node, touch_offset, touch_cell, touch_mask, plain;
    DeviceBuffer<float> stencil_f32;
    DeviceBuffer<double> integral[3];
    DeviceBuffer<float> integral_f32[3];
  };
  GridLayout layout_;
  std::array<Axis, 3> axes_;
  GridView view_{};
};

// The samples in cell order (key: the linear index of the cell, the grid's flat index of
// (cell_0, cell_1, cell_2)); a stable radix sort keeps the input order inside a cell, so
// every sum over a cell's samples runs in one order from run to run.
struct DeviceSamples {
  long long count = 0;
  DeviceBuffer<double> coord[3];    // sorted
  DeviceBuffer<double> value;       // sorted
  DeviceBuffer<int> cell;           // sorted linear cell index
  DeviceBuffer<int> cell_start;     // rows + 1: samples of cell c are [cell_start[c], cell_start[c+1])
  double upload_s = 0, sort_s = 0;  // wall (upload) and device (sort) seconds
};
void upload_and_sort(const DeviceGrid& grid, const SampleArrays& samples, DeviceSamples& out);

// Unsorted samples on the device (the atomic assembly needs no order).
struct DeviceSamplesUnsorted {
  long long count = 0;
  DeviceBuffer<double> coord[3];
  DeviceBuffer<double> value;
};
void upload(const SampleArrays& samples, DeviceSamplesUnsorted& out);

// F^T f in f64, one thread per node over the sorted samples of the cells that reach it
// (fixed order: bitwise repeatable; operator_gather.cuh). assembly.cu.
void gather_rhs(const DeviceGrid& grid, const DeviceSamples& samples, double* rhs, cudaStream_t stream = nullptr);

}  // namespace splinebench::scattered::gpu::detail
