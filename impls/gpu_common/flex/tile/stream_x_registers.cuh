// The register stream_x tile: the y window of each column in registers. Per sub-block
// of kRegP rows the footprint rows arrive (cp.async, SmemLayout::fp_stages buffers,
// fp_stages - 1 sub-blocks ahead), the block filters them along x into g, and each
// thread streams its column of g with the register window, writing the previous
// sub-block's outputs to global memory: the same bits as the ring with p = kRegP.
#pragma once

#include "gpu_common/flex/flex_pass.hpp"
#include "gpu_common/flex/tile/block_ops.cuh"
#include "gpu_common/flex/tile/footprint.cuh"
#include "gpu_common/flex/tile/row_filter.cuh"
#include "gpu_common/flex/tile/stream_window.cuh"
#include "gpu_common/flex/tile/tile_span.cuh"

namespace splinebench::gpu::flex {

// kGrouped: the tile holds P.group slices side by side (narrow planes, the planner's
// choose_group). A template switch (as in issue_row_loads), so that one-slice tiles keep
// their code: a run-time group in the one-slice path measured slower.
template <int C, bool kGrouped, class Block>
SPLINEBENCH_HD SB_FLEX_NOINLINE void stream_x_registers(const Block& blk, const PassDesc& P, const TileSpan& T,
                                                       float* smem) {
  static_assert(kRegP == kHalo, "the window is two halves of kHalo entries");
  static constexpr int V = 1;  // columns per thread (flex_plan.cpp: ncols <= kThreads)
  YWindows<V> window;
#if defined(__CUDA_ARCH__)
  smem = reinterpret_cast<float*>(flex_dynamic_smem);  // LDS, not generic loads (block_ops.cuh)
#endif
  const SmemLayout& L = P.smem;
  const int g_plane = L.g_plane;
  const int count = static_cast<int>(T.count);  // rows of the tile (outputs + 2 kHalo)
  const int nsub = (count + kRegP - 1) / kRegP;
  const int outputs = static_cast<int>(T.s1 - T.s0);
  const std::int64_t stride = P.s_stride;
  float* dst0 = P.dst + T.base + T.x0 * C;
  const float* g = smem + L.g;
  // The tile's `group` slices side by side (YWindow::place).
  const int group = kGrouped ? P.group : 1;

  // One column per thread (the planner keeps ncols <= threads).
  blk.each([&](int tid, int) { window(tid).template place<C, kGrouped>(P, T, V * tid); });
  // Sub-block b's footprint goes to buffer b % S; S - 1 sub-blocks are requested ahead.
  const int S = L.fp_stages;
  const int buffer_step = L.fp[1] - L.fp[0];
  auto buffer = [&](int b) { return smem + L.fp[0] + (b % S) * buffer_step; };
  const int* xfold = reinterpret_cast<const int*>(smem + L.xfold);
  auto request = [&](int b) {
    const int t = b * kRegP;
    issue_row_loads<C, kGrouped>(blk, P, T, t, count - t < kRegP ? count - t : kRegP, buffer(b), xfold);
    blk.commit_loads();
  };
  // The previous tile's loads finished before its last barrier; its xfold is free.
  fill_row_folds(blk, P, T, reinterpret_cast<int*>(smem + L.xfold));
  blk.sync();
  for (int b = 0; b < S - 1 && b < nsub; ++b) request(b);
  for (int b = 0; b < nsub; ++b) {
    const int t0 = b * kRegP;
    const int np = count - t0 < kRegP ? count - t0 : kRegP;
    // Buffer (b + S - 1) % S held sub-block b - 1, released by the barrier that ended it.
    if (b + S - 1 < nsub) request(b + S - 1);
    const int newer = nsub - 1 - b < S - 1 ? nsub - 1 - b : S - 1;  // batches after b's
    blk.wait_loads(newer);
    blk.sync();
    filter_row_segments<C>(blk, P, np * group, buffer(b), smem + L.g);
    blk.sync();
    // Plane k + 1 of a slice is group rows further down g.
    blk.each([&](int tid, int) { window(tid).stream(g, group * g_plane, b, np, outputs, dst0, stride); });
    blk.sync();  // buffer(b) and g are free again
  }
}

}  // namespace splinebench::gpu::flex
