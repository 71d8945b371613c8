// The x filter of the rows and stream_x tiles: every row unit of a sub-block's
// footprint in segments of kSegment samples, each with its own warm-up and look-ahead,
// into the filtered rows g.
#pragma once

#include "gpu_common/flex/flex_pass.hpp"
#include "gpu_common/flex/tile/block_ops.cuh"
#include "gpu_common/flex/tile/footprint.cuh"
#include "gpu_common/flex/tile/line_filter.cuh"

namespace splinebench::gpu::flex {

// n / d for 0 <= n < 2^16 and 1 <= d <= 64, given inv = 1.0f / d: the exact quotient
// of n + 1/2 is at least 1 / (2 d) from an integer, and the two float roundings (of inv
// and of the product, each relative 2^-24) move it by less than 2^16 / d * 2^-23 =
// 2^-7 / d, so truncation gives the integer quotient (the tests check every such n and
// d). An integer division by a run-time divisor costs about 20 instructions, a tenth of
// a 64-sample filter per work item. (Work items are below 2^11; the divisor, segments
// per row unit, is at most kRowUnitValues / kSegment = 64.)
SPLINEBENCH_HD int small_quotient(int n, float inv) { return static_cast<int>((static_cast<float>(n) + 0.5f) * inv); }

// rows / stream_x: every row unit along x in segments of kSegment samples, each with
// its own warm-up and look-ahead read from the footprint; results to g, interleaved
// by channel like global memory (skewed).
template <int C, class Block>
SPLINEBENCH_HD void filter_row_segments(const Block& blk, const PassDesc& P, int np, const float* fp, float* g) {
  constexpr int W = kSegment + 2 * kHalo;
  // Fields in registers, not reloaded from parameter space per item.
  const int fp_plane = P.smem.fp_plane, fp_chan = P.smem.fp_chan, g_plane = P.smem.g_plane;
  const int segs = P.sx / kSegment;
  const float inv_segs = 1.0f / static_cast<float>(segs);
  blk.each([&](int tid, int nt) {
    for (int item = tid; item < np * C * segs; item += nt) {
      const int pc = small_quotient(item, inv_segs), seg = item - pc * segs;
      const int p = pc / C, ch = pc % C;
      const float* row = fp + p * fp_plane + ch * fp_chan;
      const int first = seg * kSegment;
      float v[W];
      if (C == 1) {
        // The window is two whole 32-position blocks, each 16-byte aligned.
        static_assert(kSegment == 32 && W == 64, "C == 1 windows are two padded 32-float blocks");
        const Vec4* lo = reinterpret_cast<const Vec4*>(row + fp_skew<C>(first));
        const Vec4* hi = reinterpret_cast<const Vec4*>(row + fp_skew<C>(first + 32));
  SB_FLEX_UNROLL
        for (int k = 0; k < 8; ++k) {
          const Vec4 a = lo[k], b = hi[k];
          v[4 * k] = a.x;
          v[4 * k + 1] = a.y;
          v[4 * k + 2] = a.z;
          v[4 * k + 3] = a.w;
          v[32 + 4 * k] = b.x;
          v[32 + 4 * k + 1] = b.y;
          v[32 + 4 * k + 2] = b.z;
          v[32 + 4 * k + 3] = b.w;
        }
      } else {
  SB_FLEX_UNROLL
        for (int k = 0; k < W; ++k) v[k] = row[fp_skew<C>(first + k)];
      }
      filter_window(v);
      float* out = g + p * g_plane;
      if (C == 1) {
        // One whole padded 32-float block of g: 16-byte stores, 8 segments of a
        // quarter-warp in 8 different bank groups.
        Vec4* o4 = reinterpret_cast<Vec4*>(out + g_skew<C>(first));
  SB_FLEX_UNROLL
        for (int k = 0; k < kSegment / 4; ++k)
          o4[k] = Vec4{v[kHalo + 4 * k], v[kHalo + 4 * k + 1], v[kHalo + 4 * k + 2], v[kHalo + 4 * k + 3]};
      } else {
  SB_FLEX_UNROLL
        for (int k = 0; k < kSegment; ++k) out[g_skew<C>((first + k) * C + ch)] = v[kHalo + k];
      }
    }
  });
}

}  // namespace splinebench::gpu::flex
