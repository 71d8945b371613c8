// The register stream_only tile with two columns per thread fed by bulk copies
// (PassDesc::bulk): per sub-block, thread 0 requests its kRegP plane rows (one
// cp.async.bulk each) into buffer b % S, S - 1 sub-blocks ahead; every thread waits on
// the buffer's mbarrier, takes its columns into registers and runs the register window:
// the same bits as stream_only_registers<2>. Why: that tile keeps one sub-block per
// thread in flight in its load slots; the copy engine keeps S - 1 of the whole block.
// run_tile checks per tile that it applies (bulk_fits); other tiles of the pass take
// stream_only_registers<2>.
#pragma once

#include <cstdint>

#include "gpu_common/flex/flex_pass.hpp"
#include "gpu_common/flex/tile/block_ops.cuh"
#include "gpu_common/flex/tile/line_filter.cuh"
#include "gpu_common/flex/tile/stream_window.cuh"
#include "gpu_common/flex/tile/tile_span.cuh"

namespace splinebench::gpu::flex {

template <class Block>
SPLINEBENCH_HD SB_FLEX_NOINLINE void stream_only_bulk(const Block& blk, const PassDesc& P, const TileSpan& T,
                                                     float* smem) {
  static_assert(kRegP == kHalo, "the window is two halves of kHalo entries");
  static constexpr int V = 2;
  YWindows<V> window;
#if defined(__CUDA_ARCH__)
  smem = reinterpret_cast<float*>(flex_dynamic_smem);  // LDS, not generic loads (block_ops.cuh)
#endif
  const SmemLayout& L = P.smem;
  const int S = L.fp_stages, w = P.w;
  const int count = static_cast<int>(T.count);  // planes of the tile (outputs + 2 kHalo)
  const int nsub = (count + kRegP - 1) / kRegP;
  const int outputs = static_cast<int>(T.s1 - T.s0);
  const std::int64_t stride = P.s_stride;
  const float* src0 = P.src + T.base + T.w0;
  float* out_base = P.dst + T.base + T.w0 + T.s0 * stride;
  std::uint64_t* bars = reinterpret_cast<std::uint64_t*>(smem + L.bars);
  const int buffer_step = kRegP * w;
  // Thread 0 only: sub-block b's plane rows into buffer b % S.
  auto request = [&](int b) {
    const int t0 = b * kRegP;
    const int np = count - t0 < kRegP ? count - t0 : kRegP;
    std::uint64_t* bar = bars + b % S;
    float* buf = smem + L.fp[0] + (b % S) * buffer_step;
    bulk_expect(bar, static_cast<std::uint32_t>(np * w * 4));
    const int first = static_cast<int>(T.s0) - kHalo + t0, ns = static_cast<int>(P.ns);
    for (int k = 0; k < np; ++k)
      bulk_copy(buf + k * w, src0 + static_cast<std::int64_t>(fold32(P.mode, first + k, ns)) * stride,
                static_cast<std::uint32_t>(w * 4), bar);
  };
  blk.each([&](int tid, int) {
    window(tid).clear();
    if (tid == 0)
      for (int k = 0; k < S; ++k) bulk_init(bars + k);
  });
  blk.sync();  // the barriers are initialised before anyone waits on them
  blk.each([&](int tid, int) {
    if (tid == 0)
      for (int b = 0; b < S - 1 && b < nsub; ++b) request(b);
  });
  for (int b = 0; b < nsub; ++b) {
    const int np = count - b * kRegP < kRegP ? count - b * kRegP : kRegP;
    blk.each([&](int tid, int) {
      // Buffer (b + S - 1) % S held sub-block b - 1, released by the barrier that ended it.
      if (tid == 0 && b + S - 1 < nsub) request(b + S - 1);
      bulk_wait(bars + b % S, static_cast<std::uint32_t>((b / S) & 1));
      const float* buf = smem + L.fp[0] + (b % S) * buffer_step;
      const int col = V * tid;
      float cur[kRegP][V];
  SB_FLEX_UNROLL
      for (int k = 0; k < kRegP; ++k) {
        const Vec2 q = k < np ? *reinterpret_cast<const Vec2*>(buf + k * w + col) : Vec2{0.f, 0.f};
        cur[k][0] = q.x;
        cur[k][1] = q.y;
      }
      YWindow<V>& win = window(tid);
      window_step<V>(win.c, win.prev, cur, b, np, outputs, out_base + col, stride,
                     [](float* out, const float (&a)[V]) { *reinterpret_cast<Vec2*>(out) = Vec2{a[0], a[1]}; });
    });
    blk.sync();  // buffer b % S is free again
  }
  blk.each([&](int tid, int) {
    if (tid == 0) bar_retire(bars, S);
  });
  blk.sync();  // the barriers are retired before the next tile reuses their memory
}

// Whether a stream_only tile can take the bulk tile: a whole chunk of the block's
// columns whose plane rows start 16-byte aligned (the planner sets P.bulk only for
// such chunk widths; the data's alignment is known only here).
SPLINEBENCH_HD bool bulk_fits(const PassDesc& P, const TileSpan& T) {
  return P.inner - T.w0 >= P.w && (P.s_stride & 3) == 0 && (T.w0 & 3) == 0 &&
         (reinterpret_cast<std::uintptr_t>(P.src + T.base) & 15u) == 0 &&
         (reinterpret_cast<std::uintptr_t>(P.dst + T.base) & 7u) == 0;
}

}  // namespace splinebench::gpu::flex
