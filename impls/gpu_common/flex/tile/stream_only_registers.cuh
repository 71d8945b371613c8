// The stream_only tile: each thread owns one or two adjacent columns of a chunk and
// streams them along the pass's axis with the register window (stream_window.cuh): no
// shared memory and no barrier inside.
#pragma once

#include <cstdint>

#include "gpu_common/flex/flex_pass.hpp"
#include "gpu_common/flex/tile/block_ops.cuh"
#include "gpu_common/flex/tile/line_filter.cuh"
#include "gpu_common/flex/tile/stream_window.cuh"
#include "gpu_common/flex/tile/tile_span.cuh"

namespace splinebench::gpu::flex {

// The stream filter of V adjacent columns (the first `nvalid` are columns of the axis):
// per sub-block of kRegP planes, the kRegP independent loads of its columns, then the
// register window (window_step). The same operations in the same order on the same
// values as a shared-memory ring with p = kRegP, so the same bits.
template <int V, bool Whole>
SPLINEBENCH_HD void register_columns(const PassDesc& P, const TileSpan& T, int col, int nvalid) {
  static_assert(kRegP == kHalo, "the window is two halves of kHalo entries");
  const int count = static_cast<int>(T.count);  // planes of the tile (outputs + 2 kHalo)
  const int nsub = (count + kRegP - 1) / kRegP;
  const int outputs = static_cast<int>(T.s1 - T.s0);
  const std::int64_t stride = P.s_stride;
  const float* src0 = P.src + T.base + T.w0 + col;
  float* dst0 = P.dst + T.base + T.w0 + col;
  float* out0 = dst0 + T.s0 * stride;  // output 0 of this column
  float c[V], prev[kRegP][V], cur[kRegP][V];
  SB_FLEX_UNROLL
  for (int e = 0; e < V; ++e) c[e] = 0.f;
  SB_FLEX_UNROLL
  for (int k = 0; k < kRegP; ++k)
  SB_FLEX_UNROLL
    for (int e = 0; e < V; ++e) prev[k][e] = cur[k][e] = 0.f;
  for (int b = 0; b < nsub; ++b) {
    const int t0 = b * kRegP;
    const int np = count - t0 < kRegP ? count - t0 : kRegP;
    // Plane t of the tile is stream position s0 - kHalo + t (folded at the ends).
    const std::int64_t first = T.s0 - kHalo + t0;
    if (first >= 0 && first + kRegP <= P.ns) {
      // Inside the axis (every sub-block but those at the ends): one base pointer.
      const float* from = src0 + first * stride;
  SB_FLEX_UNROLL
      for (int k = 0; k < kRegP; ++k) {
        if (k < np) load_cols<V, Whole>(from, nvalid, cur[k]);
        from += stride;
      }
    } else {
  SB_FLEX_UNROLL
      for (int k = 0; k < kRegP; ++k)
        if (k < np)
          load_cols<V, Whole>(src0 + fold32(P.mode, static_cast<int>(first) + k, static_cast<int>(P.ns)) * stride,
                              nvalid, cur[k]);
    }
    window_step<V>(c, prev, cur, b, np, outputs, out0, stride,
                   [nvalid](float* out, const float (&a)[V]) { store_cols<V, Whole>(out, nvalid, a); });
  }
}

// stream_only without shared memory and without barriers: each thread owns V adjacent
// columns of the chunk (consecutive threads own consecutive columns: coalesced loads
// and stores), register_columns does the rest. Not inlined on the device: its
// registers are allocated apart from the other tile kinds of the same kernel.
template <int V, class Block>
SPLINEBENCH_HD SB_FLEX_NOINLINE void stream_only_registers(const Block& blk, const PassDesc& P, const TileSpan& T) {
  static_assert(V == 1 || V == 2, "one or two columns per thread");
  const std::int64_t limit = P.inner - T.w0;  // output columns of this chunk
  const bool aligned = V == 1 || (P.s_stride % V == 0 &&
                                  (reinterpret_cast<std::uintptr_t>(P.src + T.base + T.w0) % (4 * V)) == 0 &&
                                  (reinterpret_cast<std::uintptr_t>(P.dst + T.base + T.w0) % (4 * V)) == 0);
  blk.each([&](int tid, int nt) {
    for (int q = tid; V * q < P.ncols; q += nt) {
      const int col = V * q;
      const std::int64_t left = limit - col;
      const int nvalid = left >= V ? V : (left > 0 ? static_cast<int>(left) : 0);
      if (nvalid == 0) continue;  // past the end of the axis: nothing to write
      if (aligned && nvalid == V)
        register_columns<V, true>(P, T, col, nvalid);
      else
        register_columns<V, false>(P, T, col, nvalid);
    }
  });
}

}  // namespace splinebench::gpu::flex
