// F^T y for a tile of nodes, plane by plane of cells, separably (operator_kernels.cuh
// marches it along axis 0 together with R p).
//
// (F^T y)_k = sum_s y_s W_0(s, k0) W_1(s, k1) W_2(s, k2), W_a the merged (folded) weight of
// node k_a. Along axes 0 and 1 the fold is a sum over "virtual" nodes: a cell c reaches the
// virtual nodes j = c - 1 .. c + 2 through the single tap j - c + 1, and node k receives
// every virtual j with fold(j) = k. Inside [0, n) that is j = k itself; outside, cells in
// [0, n - 1] reach only j = -1, n and n + 1 (the line's three images), whose folds are
// added where they land. So, for a plane of cells c0 and the tile's rows of cells c1:
//
//   G[c1][t0][t1](k2) = sum over the samples of row (c0, c1) reaching k2 along axis 2, in
//                       sorted order, of w_t0(f0) w_t1(f1) W_2(s, k2) y_s
//                       (one thread per (row, k2): its samples are one contiguous run of
//                       the sorted samples away from axis 2's folds, the touch lists there)
//   H[t0](k1, k2)     = sum over c1 = k1 - 2 .. k1 + 1 of G[c1][t0][k1 - c1 + 1]
//                       + the rows of the images j1 with fold(j1) = k1
//
// and virtual plane j0 = c0 + t0 - 1 collects H[t0]. Each sample is read by the four
// nodes along axis 2 it reaches, once per plane of cells (instead of by all 64 nodes), and
// a thread's samples are one run per row of cells. Every sum runs in a fixed order
// (samples sorted, rows and planes ascending, images after): repeatable bit for bit.
//
// A line of one node (a padding axis, or an extent of 1) has the weight 1 on tap 1 and
// no images.
#pragma once

#include "operator_gather.cuh"

namespace splinebench::scattered::gpu::detail {

inline constexpr int kTileX = 32, kTileY = 8;
// A block marches chunk + 6 steps for `chunk` planes of nodes (3 steps of halo each side).
inline constexpr int kMaxChunk = 64, kMarchHalo = 6;
inline constexpr int kPadX = kTileX + 6, kPadY = kTileY + 6;
// Rows of cells a tile's G needs: k1 - 2 .. k1 + 1 over the tile's kTileY nodes, then the
// cells of axis 1's images: 0 (image -1), n - 2 and n - 1 (images n and n + 1).
inline constexpr int kLocalRows = kTileY + 3, kRowSlots = kLocalRows + 3;

// The sorted samples as the operator reads them: a record float4 {f0, f1, f2, bits of the
// linear cell} and y = F p per sample.
struct OperatorSamples {
  const float4* rec;
  const float* y;
};

// The four tap weights along a line (a line of one node: 1 on tap 1).
__device__ __forceinline__ void line_weights(int n, float a, float w[4]) {
  weights4(a, w);
  if (n == 1) {
    w[0] = w[2] = w[3] = 0.f;
    w[1] = 1.f;
  }
}

// tap_weight(t, a) for a t that differs between threads: every tap's expression, then a
// selection (no divergent switch); the same numbers as weights4.
__device__ __forceinline__ float tap_weight_select(int t, float a) {
  float w[4];
  weights4(a, w);
  return t == 0 ? w[0] : t == 1 ? w[1] : t == 2 ? w[2] : w[3];
}

// Where the images -1, n, n + 1 of a line fold, kept only when the node lies in [lo, hi)
// (-1 otherwise, and always on a line of one node).
struct AxisImages {
  int target[3];
  __device__ AxisImages(const AxisView& ax, int lo, int hi) {
    const int image[3] = {-1, ax.n, ax.n + 1};
#pragma unroll
    for (int x = 0; x < 3; ++x) {
      const int k = ax.n == 1 ? -1 : fold_to_line(ax, image[x]);
      target[x] = k >= lo && k < hi ? k : -1;
    }
  }
  // Cells reaching the images: image -1 from cell 0 (tap 0), image n from n - 2 (tap 3)
  // and n - 1 (tap 2), image n + 1 from n - 1 (tap 3).
  __device__ bool needs_first() const { return target[0] >= 0; }
  __device__ bool needs_second_last() const { return target[1] >= 0; }
  __device__ bool needs_last() const { return target[1] >= 0 || target[2] >= 0; }
};

// g[4 t0 + t1] += w_t0(f0) w_t1(f1) v.
__device__ __forceinline__ void add_sample(const GridView& g, float f0, float f1, float v, float acc[16]) {
  float w0[4], w1[4], u[4];
  line_weights(g.axis[0].n, f0, w0);
  line_weights(g.axis[1].n, f1, w1);
#pragma unroll
  for (int t1 = 0; t1 < 4; ++t1) u[t1] = v * w1[t1];
#pragma unroll
  for (int t0 = 0; t0 < 4; ++t0)
#pragma unroll
    for (int t1 = 0; t1 < 4; ++t1) acc[4 * t0 + t1] = fmaf(w0[t0], u[t1], acc[4 * t0 + t1]);
}

// G of row of cells (c0, c1) at node k2 (above). plain2: axis 2's plain[k2].
__device__ __forceinline__ void row_sums(const GridView& g, const int* __restrict__ cell_start,
                                         const OperatorSamples& smp, int c0, int c1, int k2, bool plain2,
                                         float acc[16]) {
  const AxisView& ax2 = g.axis[2];
  const int n2 = ax2.n;
  const int base = (c0 * g.axis[1].n + c1) * n2;
#pragma unroll
  for (int i = 0; i < 16; ++i) acc[i] = 0.f;
  if (plain2) {
    // Cells k2 - 2 .. k2 + 1, each through tap k2 - c2 + 1: one run of sorted samples.
    const int lo = max(0, k2 - 2), hi = min(n2 - 1, k2 + 1);
    const int end = cell_start[base + hi + 1];
    for (int s = cell_start[base + lo]; s < end; ++s) {
      const float4 r = smp.rec[s];
      const int c2 = __float_as_int(r.w) - base;
      const float w2 = n2 == 1 ? 1.f : tap_weight_select(k2 - c2 + 1, r.z);
      add_sample(g, r.x, r.y, w2 * smp.y[s], acc);
    }
    return;
  }
  for (int i = ax2.touch_offset[k2]; i < ax2.touch_offset[k2 + 1]; ++i) {
    const int c2 = ax2.touch_cell[i], m2 = ax2.touch_mask[i];
    const int end = cell_start[base + c2 + 1];
    for (int s = cell_start[base + c2]; s < end; ++s) {
      const float4 r = smp.rec[s];
      add_sample(g, r.x, r.y, masked_weight(n2, m2, r.z) * smp.y[s], acc);
    }
  }
}

// One thread's part of the tile's F^T y on a plane of cells: which rows of cells it fills
// (slots ty and ty + kTileY), and its node's sum over them.
struct TileTranspose {
  int slot_cell[2];  // the row of cells of each of the thread's slots, -1 when unused
  int slot[2];
  AxisImages images1;
  bool plain2;

  __device__ TileTranspose(const GridView& g, int K1, int ty, int k2)
      : images1(g.axis[1], K1, min(K1 + kTileY, g.axis[1].n)) {
    const int n1 = g.axis[1].n;
    plain2 = k2 < g.axis[2].n && g.axis[2].plain[k2];
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int r = ty + i * kTileY;
      slot[i] = r;
      int c = -1;
      if (r < kLocalRows) {
        c = K1 - 2 + r;
        if (c < 0 || c >= n1) c = -1;
      } else if (r == kLocalRows) {
        c = images1.needs_first() ? 0 : -1;
      } else if (r == kLocalRows + 1) {
        c = images1.needs_second_last() ? n1 - 2 : -1;
      } else if (r == kLocalRows + 2) {
        c = images1.needs_last() ? n1 - 1 : -1;
      }
      slot_cell[i] = c;
    }
  }

  // G of the thread's rows on plane c0 into shared memory (columns past the grid unused).
  __device__ void fill(const GridView& g, const int* __restrict__ cell_start, const OperatorSamples& smp, int c0,
                       int k2, int tx, float (*rows)[16][kTileX]) const {
    if (k2 >= g.axis[2].n) return;
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      if (slot_cell[i] < 0) continue;
      float acc[16];
      row_sums(g, cell_start, smp, c0, slot_cell[i], k2, plain2, acc);
#pragma unroll
      for (int e = 0; e < 16; ++e) rows[slot[i]][e][tx] = acc[e];
    }
  }

  // H[t0] of node (k1, k2) from the filled rows (only for nodes inside the grid).
  __device__ void reduce(const GridView& g, int K1, int k1, int tx, const float (*rows)[16][kTileX],
                         float h[4]) const {
    const int n1 = g.axis[1].n;
#pragma unroll
    for (int t0 = 0; t0 < 4; ++t0) h[t0] = 0.f;
    const int lo = max(0, k1 - 2), hi = min(n1 - 1, k1 + 1);
    for (int c1 = lo; c1 <= hi; ++c1) {
      const int r = c1 - K1 + 2, t1 = k1 - c1 + 1;
#pragma unroll
      for (int t0 = 0; t0 < 4; ++t0) h[t0] += rows[r][4 * t0 + t1][tx];
    }
    if (images1.target[0] == k1)
#pragma unroll
      for (int t0 = 0; t0 < 4; ++t0) h[t0] += rows[kLocalRows][4 * t0 + 0][tx];
    if (images1.target[1] == k1)
#pragma unroll
      for (int t0 = 0; t0 < 4; ++t0) {
        h[t0] += rows[kLocalRows + 1][4 * t0 + 3][tx];
        h[t0] += rows[kLocalRows + 2][4 * t0 + 2][tx];
      }
    if (images1.target[2] == k1)
#pragma unroll
      for (int t0 = 0; t0 < 4; ++t0) h[t0] += rows[kLocalRows + 2][4 * t0 + 3][tx];
  }
};

}  // namespace splinebench::scattered::gpu::detail
