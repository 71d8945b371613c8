// The register stream_only tile with two columns per thread fed by bulk copies
// (PassDesc::bulk): per sub-block, thread 0 requests its kRegP plane rows (one
// cp.async.bulk each) into buffer b % S, S - 1 sub-blocks ahead; every thread waits on
// the buffer's mbarrier, takes its columns into registers and runs the register window:
// the same bits as stream_only_registers<2>. Why: that tile keeps one sub-block per
// thread in flight in its load slots; the copy engine keeps S - 1 of the whole block.
// run_tile checks per tile that it applies (bulk_fits); other tiles of the pass take
// stream_only_registers<2>.
//
// The S mbarriers outlive the tile (BulkBars): a block initialises them in its first
// bulk tile and keeps them, phase parities carried on, through every following tile that
// is a bulk tile of the same layout or leaves their memory alone; it retires them
// (mbarrier.inval, which PTX requires before the memory of a valid barrier is used for
// anything else, a new barrier included) before a tile that uses that memory otherwise,
// and before it leaves the kernel. Why: compute-sanitizer racecheck reports a
// write-write hazard on a barrier invalidated and initialised again after a bulk copy
// completed on it, even with every wait and a block barrier in between, and none on
// one barrier whose phases go on (lab/probes/bulk_racecheck, lab/NOTES.md).
#pragma once

#include <cstdint>

#include "gpu_common/flex/flex_pass.hpp"
#include "gpu_common/flex/tile/block_ops.cuh"
#include "gpu_common/flex/tile/line_filter.cuh"
#include "gpu_common/flex/tile/stream_window.cuh"
#include "gpu_common/flex/tile/tile_span.cuh"

namespace splinebench::gpu::flex {

// A block's bulk-tile mbarriers between its tiles, in shared memory (flex_bulk_bars on
// the device; a host variable per emulated block). All-zero: none live. Every thread
// reads it before a tile (bulk_bars_before_tile) and at the start of a bulk tile; only
// thread 0 writes it, after a block barrier that follows those reads, and the next
// reads come after another barrier (bulk_bars_retire ends with one, every tile ends
// with one, and the kernel's loop has its own before the next tile). Not carried in
// registers through the kernel's loop: that cost the kernel spills (ptxas, sm_90).
struct BulkBars {
  std::int32_t offset;  // in floats into shared memory (SmemLayout::bars)
  std::int32_t count;   // barriers (SmemLayout::fp_stages); 0: none live
  std::uint32_t parity;  // bit k: phases barrier k has completed, mod 2
  SPLINEBENCH_HD bool live() const { return count > 0; }
};
static_assert(FlexPolicy::kBulkStages <= 32, "one parity bit per barrier");

#if defined(__CUDACC__)
// flex_kernel's BulkBars. The device code takes it through this symbol (shared-memory
// accesses at a constant address, as flex_dynamic_smem); the BulkBars pointer it is
// passed (&flex_bulk_bars, or null where a block keeps none) only says whether there
// is one.
__shared__ BulkBars flex_bulk_bars;
#endif

// The block's BulkBars, none without a state.
SPLINEBENCH_HD BulkBars load_bulk_bars(const BulkBars* state) {
#if defined(__CUDA_ARCH__)
  return state ? flex_bulk_bars : BulkBars{};
#else
  return state ? *state : BulkBars{};
#endif
}
SPLINEBENCH_HD void store_bulk_bars(BulkBars* state, const BulkBars& bars) {
#if defined(__CUDA_ARCH__)
  (void)state;
  flex_bulk_bars = bars;
#else
  *state = bars;
#endif
}

// Retires the barriers `bars` describes, if any are live (every wait on them has
// returned: a tile ends with a block barrier after its last wait), and records in
// `state` (if any) that none are. Ends with a block barrier: nobody touches their memory
// before they are invalid, and every thread reads `state` only after thread 0 wrote it.
template <class Block>
SPLINEBENCH_HD void bulk_bars_retire(const Block& blk, float* smem, const BulkBars& bars, BulkBars* state) {
  if (!bars.live()) return;
  blk.each([&](int tid, int) {
    if (tid == 0) bar_retire(reinterpret_cast<std::uint64_t*>(smem + bars.offset), bars.count);
  });
  blk.sync();  // every thread has read `state` (and `bars`) before thread 0 writes it
  if (!state) return;
  blk.each([&](int tid, int) {
    if (tid == 0) store_bulk_bars(state, BulkBars{});
  });
  blk.sync();
}

template <class Block>
SPLINEBENCH_HD SB_FLEX_NOINLINE void stream_only_bulk(const Block& blk, const PassDesc& P, const TileSpan& T,
                                                     float* smem, BulkBars* state) {
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
  // The block's barriers as its last tile left them (bulk_bars_before_tile retired any
  // that this tile does not keep); else this tile initialises them. Without `state`
  // (fixed_kernel: a block of one tile) the tile retires them at its end.
  const BulkBars carried = load_bulk_bars(state);
  const bool kept = carried.offset == L.bars && carried.count == S;
  const std::uint32_t parity0 = kept ? carried.parity : 0u;
  // Sub-block b completes phase b / S of this tile on barrier b % S.
  auto parity = [&](int b) { return ((parity0 >> (b % S)) ^ static_cast<std::uint32_t>(b / S)) & 1u; };
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
    if (tid != 0) return;
    if (kept)
      bulk_fence();  // the earlier tiles' accesses to the buffers before this tile's copies
    else
      for (int k = 0; k < S; ++k) bulk_init(bars + k);
  });
  blk.sync();  // the barriers are valid (initialised here or kept) before anyone waits on them
  blk.each([&](int tid, int) {
    if (tid == 0)
      for (int b = 0; b < S - 1 && b < nsub; ++b) request(b);
  });
  for (int b = 0; b < nsub; ++b) {
    const int np = count - b * kRegP < kRegP ? count - b * kRegP : kRegP;
    blk.each([&](int tid, int) {
      // Buffer (b + S - 1) % S held sub-block b - 1, released by the barrier that ended it.
      if (tid == 0 && b + S - 1 < nsub) request(b + S - 1);
      bulk_wait(bars + b % S, parity(b));
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
    // Buffer b % S is free again. After the last sub-block: every wait has returned and
    // every write is issued (the tile's closing barrier); the barriers stay valid.
    blk.sync();
  }
  // Barrier k completed ceil((nsub - k) / S) phases in this tile.
  std::uint32_t flips = 0;
  for (int k = 0; k < S && k < nsub; ++k) flips |= (static_cast<std::uint32_t>((nsub - k + S - 1) / S) & 1u) << k;
  BulkBars next;
  next.offset = L.bars;
  next.count = S;
  next.parity = parity0 ^ flips;
  if (!state) {
    bulk_bars_retire(blk, smem, next, nullptr);
    return;
  }
  blk.each([&](int tid, int) {
    if (tid == 0) store_bulk_bars(state, next);  // every thread read the state before the barriers above
  });
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
