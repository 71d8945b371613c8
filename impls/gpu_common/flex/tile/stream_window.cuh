// The register window of the stream filter, shared by the register tiles: per column,
// the causal recursion continues over each sub-block of kRegP planes, and the
// anti-causal recursion runs from zero at the newest plane back over this and the
// previous sub-block, writing the previous sub-block's outputs. kRegP == kHalo: two
// halves of kHalo entries, every index a compile-time constant (so, registers).
#pragma once

#include <cstdint>
#include <vector>  // the host emulation's per-thread windows

#include "gpu_common/flex/flex_pass.hpp"
#include "gpu_common/flex/tile/block_ops.cuh"
#include "gpu_common/flex/tile/footprint.cuh"
#include "gpu_common/flex/tile/line_filter.cuh"
#include "gpu_common/flex/tile/tile_span.cuh"

namespace splinebench::gpu::flex {

// V adjacent values at `p`: one V-float access when Whole (aligned, all V are
// columns of the axis), else the first `nvalid` one by one (the others 0).
template <int V, bool Whole>
SPLINEBENCH_HD void load_cols(const float* p, int nvalid, float (&x)[V]) {
  if constexpr (Whole && V == 2) {
    const Vec2 q = *reinterpret_cast<const Vec2*>(p);
    x[0] = q.x;
    x[1] = q.y;
  } else {
  SB_FLEX_UNROLL
    for (int e = 0; e < V; ++e) x[e] = (Whole || e < nvalid) ? p[e] : 0.f;
  }
}
template <int V, bool Whole>
SPLINEBENCH_HD void store_cols(float* p, int nvalid, const float (&x)[V]) {
  if constexpr (Whole && V == 2) {
    *reinterpret_cast<Vec2*>(p) = Vec2{x[0], x[1]};
  } else {
  SB_FLEX_UNROLL
    for (int e = 0; e < V; ++e)
      if (Whole || e < nvalid) p[e] = x[e];
  }
}

// Sub-block b: the causal recursion continues over cur's np entries (tile entries
// t0 - kHalo + k, t0 = b kRegP) in place; from the third sub-block on, the anti-causal
// recursion runs from zero at the newest entry down over cur and then prev (outputs
// lo + k), handing each output in [lo, hi) to store(out0 + index * stride, a); then prev
// takes cur.
template <int V, class Store>
SPLINEBENCH_HD void window_step(float (&c)[V], float (&prev)[kRegP][V], float (&cur)[kRegP][V], int b, int np,
                                int outputs, float* out0, std::int64_t stride, const Store& store) {
  SB_FLEX_UNROLL
  for (int k = 0; k < kRegP; ++k) {
    if (k < np) {
  SB_FLEX_UNROLL
      for (int e = 0; e < V; ++e) {
        c[e] = causal_step(c[e], cur[k][e]);
        cur[k][e] = c[e];
      }
    }
  }
  if (b >= 2) {
    const int t0 = b * kRegP;
    const int lo = t0 - 2 * kHalo;
    const int hi = t0 + np - 2 * kHalo < outputs ? t0 + np - 2 * kHalo : outputs;
    float a[V];
  SB_FLEX_UNROLL
    for (int e = 0; e < V; ++e) a[e] = 0.f;
  SB_FLEX_UNROLL
    for (int k = kRegP - 1; k >= 0; --k)
      if (k < np)
  SB_FLEX_UNROLL
        for (int e = 0; e < V; ++e) a[e] = anticausal_step(a[e], cur[k][e]);
    float* out = out0 + (lo + kRegP - 1) * stride;
  SB_FLEX_UNROLL
    for (int k = kRegP - 1; k >= 0; --k) {
  SB_FLEX_UNROLL
      for (int e = 0; e < V; ++e) a[e] = anticausal_step(a[e], prev[k][e]);
      if (lo + k < hi) store(out, a);
      out -= stride;
    }
  }
  SB_FLEX_UNROLL
  for (int k = 0; k < kRegP; ++k)
  SB_FLEX_UNROLL
    for (int e = 0; e < V; ++e) prev[k][e] = cur[k][e];
}

// One thread's window over V adjacent columns: the causal state and the previous
// sub-block's causal values. It outlives the barriers between a tile's phases: the
// thread's registers on the device, one per thread on the host (YWindows).
template <int V>
struct YWindow {
  float c[V];
  float prev[kRegP][V];
  // The register stream_x tile's column of this thread, fixed for the tile: its offset
  // in a row of g, its output columns (0: none), and its output offset from dst0.
  int g_off = 0, nvalid = 0;
  std::int64_t out_off = 0;
  // The state of a stream that has seen nothing yet (every register tile starts so).
  SPLINEBENCH_HD void clear() {
  SB_FLEX_UNROLL
    for (int e = 0; e < V; ++e) c[e] = 0.f;
  SB_FLEX_UNROLL
    for (int k = 0; k < kRegP; ++k)
  SB_FLEX_UNROLL
      for (int e = 0; e < V; ++e) prev[k][e] = 0.f;
  }
  // A cleared window on columns [col, col + V) of register stream_x tile T, whose
  // `group` slices lie side by side: column col is column col % width of slice
  // col / width; plane k of slice s is row k * group + s of the footprint and of g.
  template <int C, bool kGrouped>
  SPLINEBENCH_HD void place(const PassDesc& P, const TileSpan& T, int col) {
    clear();
    const int width = P.sx * C, nslices = static_cast<int>(T.nslices);
    const std::int64_t limit = (P.nx - T.x0) * C;  // output columns of each slice of the tile
    const int slice = kGrouped ? col / width : 0, x = col - slice * width;
    const std::int64_t left = col < P.ncols && slice < nslices ? limit - x : 0;
    nvalid = left >= V ? V : (left > 0 ? static_cast<int>(left) : 0);
    g_off = slice * P.smem.g_plane + g_skew<C>(x);
    out_off = x + T.s0 * P.s_stride + (kGrouped ? static_cast<std::int64_t>(slice) * P.slice_stride : 0);
  }
  // Sub-block b (np rows) of this window's columns along y, out of g (consecutive rows of
  // a slice row_step apart), through window_step; writes the finished outputs below
  // dst0 + out_off. Nothing to do for a window without output columns.
  SPLINEBENCH_HD void stream(const float* g, int row_step, int b, int np, int outputs, float* dst0,
                             std::int64_t stride) {
    if (nvalid == 0) return;
    const float* grow = g + g_off;
    float cur[kRegP][V];
  SB_FLEX_UNROLL
    for (int k = 0; k < kRegP; ++k)
  SB_FLEX_UNROLL
      for (int e = 0; e < V; ++e) cur[k][e] = k < np ? grow[k * row_step + e] : 0.f;
    const int n = nvalid;
    window_step<V>(c, prev, cur, b, np, outputs, dst0 + out_off, stride, [n](float* out, const float (&a)[V]) {
  SB_FLEX_UNROLL
      for (int e = 0; e < V; ++e)
        if (e < n) out[e] = a[e];
    });
  }
};

// Each thread's window: its registers on the device, one per thread on the host.
template <int V>
struct YWindows {
#if defined(__CUDA_ARCH__)
  YWindow<V> own;
  __device__ YWindow<V>& operator()(int) { return own; }
#else
  std::vector<YWindow<V>> all = std::vector<YWindow<V>>(static_cast<std::size_t>(kThreads));
  YWindow<V>& operator()(int tid) { return all[static_cast<std::size_t>(tid)]; }
#endif
};

}  // namespace splinebench::gpu::flex
