// Footprints in shared memory: the index rules of their rows (padding against bank
// conflicts, 16-byte groups kept whole) and the loads that fill them, for the
// shared-memory ring (issue_loads) and the register stream_x tiles (issue_row_loads).
// Positions outside an axis read the folded sample (line_filter.cuh).
#pragma once

#include <cstdint>

#include "gpu_common/flex/flex_pass.hpp"
#include "gpu_common/flex/tile/block_ops.cuh"
#include "gpu_common/flex/tile/line_filter.cuh"
#include "gpu_common/flex/tile/tile_span.cuh"

namespace splinebench::gpu::flex {

// Shared-memory index of footprint position i inside a channel row. C == 1: four padding
// floats every 32, so 16-byte groups stay whole and aligned (16-byte cp.async in, float4
// reads out) and the 16-byte reads of 8 segments 32 positions apart fall in 8 different
// bank groups. C > 1: one padding float every 32, so that items 32 positions apart hit
// different banks. flex_plan.cpp (segment_smem) sizes the rows with the same rule.
template <int C>
SPLINEBENCH_HD int fp_skew(int i) {
  return C == 1 ? i + ((i >> 5) << 2) : i + (i >> 5);
}
// Index of value i (channels interleaved) inside a row of filtered values g: the same
// rule (C == 1: 16-byte groups whole and aligned).
template <int C>
SPLINEBENCH_HD int g_skew(int i) {
  return fp_skew<C>(i);
}

// rows and the shared-memory ring of stream_x: requests the footprint of planes (row
// units) [t0, t0 + np) of the tile into `fp`, positions folded by fold32.
template <int C, class Block>
SPLINEBENCH_HD void issue_loads(const Block& blk, const PassDesc& P, const TileSpan& T, std::int64_t t0, int np,
                                float* fp) {
  blk.each([&](int tid, int nt) {
    const int warp = tid >> 5, lane = tid & 31, warps = nt >> 5;
    const int mode = P.mode;
    const SmemLayout& L = P.smem;
    const int fx = P.sx + 2 * kHalo;
    // Fields in registers: P lives in parameter space behind a reference, which the
    // compiler would otherwise reload in the loops. Positions fit in int (axes are
    // shorter than 2^30).
    const int nx = static_cast<int>(P.nx), fp_plane = L.fp_plane, fp_chan = L.fp_chan;
    const bool is_rows = P.kind == TileKind::rows;
    for (int p = warp; p < np; p += warps) {
      const float* src;
      int x0;
      if (is_rows) {
        const std::int64_t u = T.u0 + t0 + p;
        const std::int64_t row = u / P.x_tiles;
        x0 = static_cast<int>((u - row * P.x_tiles) * P.sx);
        src = P.src + row * P.slice_stride;
      } else {
        const std::int64_t s = fold32(mode, static_cast<int>(T.s0 - kHalo + t0 + p), static_cast<int>(P.ns));
        x0 = static_cast<int>(T.x0);
        src = P.src + T.base + s * P.s_stride;
      }
      float* dst = fp + p * fp_plane;
      if (C == 1 && (reinterpret_cast<std::uintptr_t>(src) & 15u) == 0) {
        // 16-byte groups (x0 - kHalo is a multiple of 4): whole copies where the
        // group lies inside the axis, folded values elsewhere.
        for (int k = lane; k < fx / 4; k += 32) {
          const int x = x0 - kHalo + 4 * k;
          float* to = dst + fp_skew<C>(4 * k);
          if (x >= 0 && x <= nx - 4) {
            copy16_to_shared(to, src + x);
          } else {
            for (int e = 0; e < 4; ++e) copy_to_shared(to + e, src + fold32(mode, x + e, nx));
          }
        }
      } else {
        // One sample (C values) per lane and step: one fold per sample.
        for (int i = lane; i < fx; i += 32) {
          const float* from = src + static_cast<std::int64_t>(fold32(mode, x0 - kHalo + i, nx)) * C;
          float* to = dst + fp_skew<C>(i);
          SB_FLEX_UNROLL
          for (int ch = 0; ch < C; ++ch) copy_to_shared(to + ch * fp_chan, from + ch);
        }
      }
    }
  });
}

// The register stream_x tile's footprints: kRegP rows of sx + 2 kHalo samples per
// slice of the tile's group (row r = plane r / group of slice r % group; slices past a
// field's short last group load its last slice again: real samples, never written
// back). The x positions are the same for every row of the tile, so their folds are
// computed once per tile (fill_row_folds, `xfold` in shared memory) and a halo position
// costs a shared load: a fold per halo value, with the pass fields reloaded per row, had
// made these loads a third of the x-y pass's instructions. Whole, aligned 16-byte groups
// go as 16-byte copies. One-channel rows whose start is 16-byte aligned take two loops:
// whole 16-byte groups inside the axis (one copy each, no branch), then the remaining
// positions (halos outside the axis, the tail of an axis that is not a multiple of 4)
// one float each through xfold. One loop with the branch inside made the compiler
// predicate both paths for every group.
template <int C, bool kGrouped, class Block>
SPLINEBENCH_HD void issue_row_loads(const Block& blk, const PassDesc& P, const TileSpan& T, int t0, int np, float* fp,
                                    const int* xfold) {
  blk.each([&](int tid, int nt) {
    const int warp = tid >> 5, lane = tid & 31, warps = nt >> 5;
    const int mode = P.mode, ns = static_cast<int>(P.ns), nx = static_cast<int>(P.nx);
    const int fx = P.sx + 2 * kHalo, fp_plane = P.smem.fp_plane, fp_chan = P.smem.fp_chan;
    const std::int64_t s_stride = P.s_stride, slice_stride = P.slice_stride;
    const int group = kGrouped ? P.group : 1, last_slice = static_cast<int>(T.nslices) - 1;
    const int s_first = static_cast<int>(T.s0) - kHalo + t0, x_first = static_cast<int>(T.x0) - kHalo;
    const float* base = P.src + T.base;
    // Every row start is 16-byte aligned when the slice is and the strides keep it.
    const bool aligned = C == 1 && (reinterpret_cast<std::uintptr_t>(base) & 15u) == 0 && (s_stride & 3) == 0 &&
                         (!kGrouped || (slice_stride & 3) == 0);
    // Whole 16-byte groups inside the axis: groups [g_lo, g_hi) of the footprint
    // (x_first is a multiple of 4: patches are multiples of kSegment samples).
    const int g_lo = x_first >= 0 ? 0 : -x_first / 4;
    int g_hi = (nx - 4 - x_first) / 4 + 1;
    if (nx - 4 - x_first < 0) g_hi = 0;
    if (g_hi > fx / 4) g_hi = fx / 4;
    if (g_hi < g_lo) g_hi = g_lo;
    const int head = 4 * g_lo, tail = fx - 4 * g_hi;  // positions before and after them
    // Row r of the footprint is plane r / group of slice r % group, followed without division.
    const int plane_step = warps / group, slice_step = warps - plane_step * group;
    int plane = warp / group, slice = warp - plane * group;
    for (int r = warp; r < np * group; r += warps) {
      const float* src = base + static_cast<std::int64_t>(fold32(mode, s_first + plane, ns)) * s_stride;
      if (kGrouped) src += static_cast<std::int64_t>(slice < last_slice ? slice : last_slice) * slice_stride;
      float* dst = fp + r * fp_plane;
      if (aligned) {
        for (int k = g_lo + lane; k < g_hi; k += 32) copy16_to_shared(dst + fp_skew<C>(4 * k), src + x_first + 4 * k);
        for (int j = lane; j < head + tail; j += 32) {
          const int i = j < head ? j : 4 * g_hi + (j - head);
          copy_to_shared(dst + fp_skew<C>(i), src + xfold[i]);
        }
      } else {
        for (int i = lane; i < fx; i += 32) {
          const float* from = src + static_cast<std::int64_t>(xfold[i]) * C;
          float* to = dst + fp_skew<C>(i);
          SB_FLEX_UNROLL
          for (int ch = 0; ch < C; ++ch) copy_to_shared(to + ch * fp_chan, from + ch);
        }
      }
      plane += plane_step;
      slice += slice_step;
      if (slice >= group) {
        slice -= group;
        ++plane;
      }
    }
  });
}

// The folded x of every footprint position of a stream_x tile (for issue_row_loads).
template <class Block>
SPLINEBENCH_HD void fill_row_folds(const Block& blk, const PassDesc& P, const TileSpan& T, int* xfold) {
  blk.each([&](int tid, int nt) {
    const int mode = P.mode, nx = static_cast<int>(P.nx), fx = P.sx + 2 * kHalo;
    const int x_first = static_cast<int>(T.x0) - kHalo;
    for (int i = tid; i < fx; i += nt) xfold[i] = fold32(mode, x_first + i, nx);
  });
}

}  // namespace splinebench::gpu::flex
