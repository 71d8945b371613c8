// The shared-memory ring tile: `rows`, and stream_x passes whose patch has more columns
// than the block has threads (or whose register buffers do not fit). Per sub-block of p
// planes (row units for `rows`) the next footprint is requested while this one is
// filtered along x; `rows` writes the filtered rows back; stream_x continues, per
// column, the causal recursion along y into a ring of p + kHalo entries and, once kHalo
// more planes are known, runs the anti-causal recursion back over the ring from zero
// and writes the finished planes (consecutive threads own consecutive columns).
#pragma once

#include <cstdint>

#include "gpu_common/flex/flex_pass.hpp"
#include "gpu_common/flex/tile/block_ops.cuh"
#include "gpu_common/flex/tile/footprint.cuh"
#include "gpu_common/flex/tile/line_filter.cuh"
#include "gpu_common/flex/tile/row_filter.cuh"
#include "gpu_common/flex/tile/tile_span.cuh"

namespace splinebench::gpu::flex {

// rows: writes the filtered row units of the sub-block (coalesced, one warp a unit).
template <int C, class Block>
SPLINEBENCH_HD void write_rows(const Block& blk, const PassDesc& P, const TileSpan& T, std::int64_t t0, int np,
                               const float* g) {
  blk.each([&](int tid, int nt) {
    const int warp = tid >> 5, lane = tid & 31, warps = nt >> 5;
    for (int p = warp; p < np; p += warps) {
      const std::int64_t u = T.u0 + t0 + p;
      const std::int64_t row = u / P.x_tiles;
      const std::int64_t x0 = (u - row * P.x_tiles) * P.sx;
      const std::int64_t valid_samples = P.nx - x0 < P.sx ? P.nx - x0 : P.sx;
      const int valid = static_cast<int>(valid_samples) * C;
      float* dst = P.dst + row * P.slice_stride + x0 * C;
      const float* src = g + p * P.smem.g_plane;
      if (C == 1 && (valid & 3) == 0 && (reinterpret_cast<std::uintptr_t>(dst) & 15u) == 0) {
        for (int v = 4 * lane; v < valid; v += 128)
          *reinterpret_cast<Vec4*>(dst + v) = *reinterpret_cast<const Vec4*>(src + g_skew<C>(v));
      } else {
        for (int v = lane; v < valid; v += 32) dst[v] = src[g_skew<C>(v)];
      }
    }
  });
}

// The ring's stream filter, per column of g: continues the causal recursion over planes
// [t0, t0 + np) of the tile (plane t is stream position s0 - kHalo + t) and keeps those
// of positions >= s0 in the ring (entry j: position s0 + j); then, if kHalo planes past
// some unwritten outputs are known, runs the anti-causal recursion from zero at the
// newest entry down and writes outputs [emitted, emit_end). A thread carries kGroup
// columns, base + k * threads (coalesced rows, independent chains): 2 where the block
// has more columns than threads, else 1.
template <int C, int kGroup, class Block>
SPLINEBENCH_HD void stream_columns(const Block& blk, const PassDesc& P, const TileSpan& T, std::int64_t t0, int np,
                                   std::int64_t emitted, std::int64_t emit_end, const float* g, float* smem) {
  const SmemLayout& L = P.smem;
  float* ring = smem + L.ring;
  float* cz = smem + L.cz;
  const int ncols = P.ncols;
  const int R = L.ring_len;
  // Tile-local plane numbers fit in int (axes are shorter than 2^30).
  const int t0i = static_cast<int>(t0);
  const int top = t0i + np - kHalo - 1;  // newest ring entry
  const int lo = static_cast<int>(emitted), hi = static_cast<int>(emit_end);
  const bool emit = hi > lo;
  blk.each([&](int tid, int nt) {
    for (int base = tid; base < ncols; base += kGroup * nt) {
      int col[kGroup], in_off[kGroup];
      std::int64_t out_off[kGroup];
      bool exists[kGroup], valid[kGroup];
      float c[kGroup];
      SB_FLEX_UNROLL
      for (int k = 0; k < kGroup; ++k) {
        col[k] = base + k * nt;
        exists[k] = col[k] < ncols;
        const int cc = exists[k] ? col[k] : base;  // stands in for a missing column
        in_off[k] = g_skew<C>(cc);
        out_off[k] = T.x0 * C + cc;
        valid[k] = T.x0 + cc / C < P.nx && exists[k];
        col[k] = cc;
        c[k] = (t0i == 0 || !exists[k]) ? 0.f : cz[cc];
      }

      int slot = ((t0i - kHalo) % R + R) % R;  // ring slot of plane t0
      for (int p = 0; p < np; ++p) {
        const bool keep = t0i + p - kHalo >= 0;
        SB_FLEX_UNROLL
        for (int k = 0; k < kGroup; ++k) {
          c[k] = causal_step(c[k], g[in_off[k] + p * L.g_plane]);
          if (keep && exists[k]) ring[slot * ncols + col[k]] = c[k];
        }
        slot = slot + 1 == R ? 0 : slot + 1;
      }
      SB_FLEX_UNROLL
      for (int k = 0; k < kGroup; ++k)
        if (exists[k]) cz[col[k]] = c[k];

      if (emit) {
        float a[kGroup];
        std::int64_t at[kGroup];
        SB_FLEX_UNROLL
        for (int k = 0; k < kGroup; ++k) {
          a[k] = 0.f;
          at[k] = T.base + out_off[k] + (T.s0 + top) * P.s_stride;
        }
        int rs = top % R;
        for (int j = top; j >= lo; --j) {
          SB_FLEX_UNROLL
          for (int k = 0; k < kGroup; ++k) {
            a[k] = anticausal_step(a[k], ring[rs * ncols + col[k]]);
            if (j < hi && valid[k]) P.dst[at[k]] = a[k];
            at[k] -= P.s_stride;
          }
          rs = rs == 0 ? R - 1 : rs - 1;
        }
      }
    }
  });
}

// The same with V = 2 adjacent columns per thread, 8-byte accesses and stores where both
// outputs are whole and aligned: the same per-column arithmetic, so the same bits. The
// planner sets P.vec only where column pairs are contiguous and aligned in g.
template <int C, int V, class Block>
SPLINEBENCH_HD void stream_vectors(const Block& blk, const PassDesc& P, const TileSpan& T, std::int64_t t0, int np,
                                   std::int64_t emitted, std::int64_t emit_end, const float* g, float* smem) {
  static_assert(V == 2, "column pairs");
  const SmemLayout& L = P.smem;
  float* ring = smem + L.ring;
  float* cz = smem + L.cz;
  const int ncols = P.ncols;
  const int R = L.ring_len;
  const int t0i = static_cast<int>(t0);
  const int top = t0i + np - kHalo - 1;
  const int lo = static_cast<int>(emitted), hi = static_cast<int>(emit_end);
  // Columns of this tile that are outputs, and where column 0 goes.
  const std::int64_t limit = (P.nx - T.x0) * C;
  const std::int64_t out0 = T.base + T.x0 * C;
  const bool stride_ok = P.s_stride % V == 0;
  blk.each([&](int tid, int nt) {
    for (int q = tid; V * q < ncols; q += nt) {
      const int col = V * q;
      const int in_off = g_skew<C>(col);
      const std::int64_t left = limit - col;
      const int nvalid = left >= V ? V : (left > 0 ? static_cast<int>(left) : 0);
      float c[V];
      if (t0i == 0) {
  SB_FLEX_UNROLL
        for (int e = 0; e < V; ++e) c[e] = 0.f;
      } else {
        get2(cz + col, c);
      }
      int slot = ((t0i - kHalo) % R + R) % R;
      for (int p = 0; p < np; ++p) {
        float x[V];
        get2(g + in_off + p * L.g_plane, x);
  SB_FLEX_UNROLL
        for (int e = 0; e < V; ++e) c[e] = causal_step(c[e], x[e]);
        if (t0i + p - kHalo >= 0) put2(ring + slot * ncols + col, c);
        slot = slot + 1 == R ? 0 : slot + 1;
      }
      put2(cz + col, c);

      if (hi > lo && nvalid > 0) {
        float a[V];
  SB_FLEX_UNROLL
        for (int e = 0; e < V; ++e) a[e] = 0.f;
        float* out = P.dst + out0 + col + (T.s0 + top) * P.s_stride;
        const bool vec = nvalid == V && stride_ok && (reinterpret_cast<std::uintptr_t>(out) % (4 * V)) == 0;
        int rs = top % R;
        for (int j = top; j >= lo; --j) {
          float r[V];
          get2(ring + rs * ncols + col, r);
  SB_FLEX_UNROLL
          for (int e = 0; e < V; ++e) a[e] = anticausal_step(a[e], r[e]);
          if (j < hi) {
            if (vec) {
              put2(out, a);
            } else {
  SB_FLEX_UNROLL
              for (int e = 0; e < V; ++e)
                if (e < nvalid) out[e] = a[e];
            }
          }
          out -= P.s_stride;
          rs = rs == 0 ? R - 1 : rs - 1;
        }
      }
    }
  });
}

// rows, and stream_x where its y window does not fit in registers (rows wider than the
// block has threads, or shared memory too short for the register tile's buffers).
template <int C, class Block>
SPLINEBENCH_HD void run_ring_tile(const Block& blk, const PassDesc& P, const TileSpan& T, float* smem) {
  const bool stream = P.kind == TileKind::stream_x;
  const int nsub = static_cast<int>((T.count + P.p - 1) / P.p);
  std::int64_t emitted = 0;  // stream outputs written so far (same on every thread)
  float* g = smem + P.smem.g;

  issue_loads<C>(blk, P, T, 0, static_cast<int>(T.count < P.p ? T.count : P.p), smem + P.smem.fp[0]);
  blk.commit_loads();
  for (int b = 0; b < nsub; ++b) {
    const std::int64_t t0 = static_cast<std::int64_t>(b) * P.p;
    const int np = static_cast<int>(T.count - t0 < P.p ? T.count - t0 : P.p);
    float* fp = smem + P.smem.fp[b & 1];
    if (b + 1 < nsub) {
      // The other buffer was released by the barrier that ended sub-block b - 1.
      const std::int64_t t1 = t0 + P.p;
      issue_loads<C>(blk, P, T, t1, static_cast<int>(T.count - t1 < P.p ? T.count - t1 : P.p),
                     smem + P.smem.fp[(b + 1) & 1]);
      blk.commit_loads();
      blk.wait_loads(1);
    } else {
      blk.wait_loads(0);
    }
    blk.sync();
    filter_row_segments<C>(blk, P, np, fp, g);
    blk.sync();
    if (!stream) {
      write_rows<C>(blk, P, T, t0, np, g);
    } else {
      const std::int64_t e = t0 + np;  // planes known after this sub-block
      const std::int64_t outputs = T.s1 - T.s0;
      const std::int64_t emit_end = e - 2 * kHalo < outputs ? e - 2 * kHalo : outputs;
      if (P.vec == 2)
        stream_vectors<C, 2>(blk, P, T, t0, np, emitted, emit_end, g, smem);
      else if (P.ncols > kThreads)
        stream_columns<C, 2>(blk, P, T, t0, np, emitted, emit_end, g, smem);
      else
        stream_columns<C, 1>(blk, P, T, t0, np, emitted, emit_end, g, smem);
      if (emit_end > emitted) emitted = emit_end;
    }
    blk.sync();  // fp[b & 1], g and the ring are free again
  }
}

}  // namespace splinebench::gpu::flex
