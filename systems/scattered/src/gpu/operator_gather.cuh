// The per-node gather over the samples that reach a node, for F^T f and diag(F^T F) (f64,
// once per operator; F^T y of every iteration is operator_transpose.cuh): sum over samples
// s of w_k(s) * (what the policy adds), in a fixed order (cells ascending, a cell's samples in sorted order), so a
// run repeats bit for bit without atomics.
//
// Fast path (every axis `plain`, grid_layout.hpp): the cells reaching node k are
// [k-2, k+1] per axis, each through the one tap k - c + 1. For fixed (c0, c1) those cells
// are one contiguous run of the sorted samples, so a node reads 2 cell starts per row of
// cells (16 rows) and visits only its own samples, evaluating one tap weight per axis.
// Other nodes (folded images of k reach the line: at most 3 per face) walk the touch
// lists and sum the masked taps, as the folded basis merges them.
#pragma once

#include "device_grid.cuh"

namespace splinebench::scattered::gpu::detail {

// The cubic B-spline weights at fraction a (the taps cell-1 .. cell+2). One expression per
// tap, shared by weights4 and tap_weight so F and F^T use the same numbers.
template <typename T>
__device__ __forceinline__ T tap_weight(int t, T a) {
  const T b = T(1) - a;
  const T sixth = T(1) / T(6), two_thirds = T(2) / T(3), half = T(0.5);
  switch (t) {
    case 0: return b * b * b * sixth;
    case 1: return two_thirds - a * a * (T(2) - a) * half;
    case 2: return two_thirds - b * b * (T(1) + a) * half;
    default: return a * a * a * sixth;
  }
}

template <typename T>
__device__ __forceinline__ void weights4(T a, T w[4]) {
#pragma unroll
  for (int t = 0; t < 4; ++t) w[t] = tap_weight(t, a);
}

// The merged weight of the taps in `mask` (bit t: tap t folds onto the node); a line of one
// node is the constant 1.
template <typename T>
__device__ __forceinline__ T masked_weight(int n, int mask, T a) {
  if (n == 1) return T(1);
  T w = T(0);
#pragma unroll
  for (int t = 0; t < 4; ++t)
    if (mask & (1 << t)) w += tap_weight(t, a);
  return w;
}

// i folded onto [0, n): the identity inside, the mode's extension outside.
__device__ __forceinline__ int fold_to_line(const AxisView& ax, int i) {
  return (i >= 0 && i < ax.n) ? i : static_cast<int>(bspline::fold_index(ax.mode, i, ax.n));
}

// Sum over the samples reaching node k of policy.add(acc, w_k(s), s). The policy:
//   T load(int s, int row_base, int c0, int c1, T f[3]) -> the sample's cell on axis 2 and
//     its fractions (row_base = (c0 n1 + c1) n2, the linear index of cell (c0, c1, 0));
//   void add(T& acc, T w, int s).
template <typename T, class Policy>
__device__ T gather_node(const GridView& g, const int* __restrict__ cell_start, int k0, int k1, int k2,
                         const Policy& policy) {
  const AxisView* ax = g.axis;
  const int n0 = ax[0].n, n1 = ax[1].n, n2 = ax[2].n;
  T acc = T(0);
  if (ax[0].plain[k0] && ax[1].plain[k1] && ax[2].plain[k2]) {
    const int lo0 = max(0, k0 - 2), hi0 = min(n0 - 1, k0 + 1);
    const int lo1 = max(0, k1 - 2), hi1 = min(n1 - 1, k1 + 1);
    const int lo2 = max(0, k2 - 2), hi2 = min(n2 - 1, k2 + 1);
    for (int c0 = lo0; c0 <= hi0; ++c0)
      for (int c1 = lo1; c1 <= hi1; ++c1) {
        const int base = (c0 * n1 + c1) * n2;
        const int end = cell_start[base + hi2 + 1];
        for (int s = cell_start[base + lo2]; s < end; ++s) {
          T f[3];
          const int c2 = policy.load(s, base, c0, c1, f);
          const T w0 = n0 == 1 ? T(1) : tap_weight(k0 - c0 + 1, f[0]);
          const T w1 = n1 == 1 ? T(1) : tap_weight(k1 - c1 + 1, f[1]);
          const T w2 = n2 == 1 ? T(1) : tap_weight(k2 - c2 + 1, f[2]);
          policy.add(acc, w0 * w1 * w2, s);
        }
      }
    return acc;
  }
  for (int i0 = ax[0].touch_offset[k0]; i0 < ax[0].touch_offset[k0 + 1]; ++i0) {
    const int c0 = ax[0].touch_cell[i0], m0 = ax[0].touch_mask[i0];
    for (int i1 = ax[1].touch_offset[k1]; i1 < ax[1].touch_offset[k1 + 1]; ++i1) {
      const int c1 = ax[1].touch_cell[i1], m1 = ax[1].touch_mask[i1];
      const int base = (c0 * n1 + c1) * n2;
      for (int i2 = ax[2].touch_offset[k2]; i2 < ax[2].touch_offset[k2 + 1]; ++i2) {
        const int c2 = ax[2].touch_cell[i2], m2 = ax[2].touch_mask[i2];
        for (int s = cell_start[base + c2]; s < cell_start[base + c2 + 1]; ++s) {
          T f[3];
          policy.load(s, base, c0, c1, f);
          const T w = masked_weight(n0, m0, f[0]) * masked_weight(n1, m1, f[1]) * masked_weight(n2, m2, f[2]);
          policy.add(acc, w, s);
        }
      }
    }
  }
  return acc;
}

// f64 fractions from the sorted coordinates (x - cell is exact in f64).
struct SortedSamplesF64 {
  const double* x[3];
  const int* cell;
  __device__ int load(int s, int base, int c0, int c1, double f[3]) const {
    const int c2 = cell[s] - base;
    f[0] = x[0][s] - c0;
    f[1] = x[1][s] - c1;
    f[2] = x[2][s] - c2;
    return c2;
  }
};

// F^T f in f64.
struct RhsPolicy : SortedSamplesF64 {
  const double* value;
  __device__ void add(double& acc, double w, int s) const { acc += w * value[s]; }
};

// diag(F^T F) in f64: the sum of the squared weights.
struct DiagonalPolicy : SortedSamplesF64 {
  __device__ void add(double& acc, double w, int) const { acc += w * w; }
};

}  // namespace splinebench::scattered::gpu::detail
