// One tile of the gpu_flex prefilter. run_tile picks the tile body of a pass; each body
// is written once for two drivers: the CUDA kernels (flex_kernels.cu, DeviceBlock: one
// thread block) and the host emulation of the tests (tests/gpu_flex/flex_emulate.cpp,
// HostBlock: the block's threads one after the other between barriers). A tile is a
// sequence of phases; inside a phase every thread works on its own items, and the block
// synchronises between phases, so the host computes exactly what the device does. Every
// arithmetic operation is an explicit fmaf or a single multiply/subtract (nothing for
// the compiler to contract), so both round identically: the GPU tests compare them bit
// for bit.
//
// The tile bodies, one per file under tile/ (flex_pass.hpp: the kinds, the halo bound):
//   ring.cuh                   rows, and stream_x rows wider than the block: the x
//                              filter in shared memory, the y stream through a ring of
//                              p + kHalo causal values per column;
//   stream_x_registers.cuh     stream_x with the y window of each column in registers;
//   stream_x_teams.cuh         the same in two teams of warps, x filter and y stream of
//                              neighbouring sub-blocks at once (long tiles);
//   stream_only_registers.cuh  stream_only, one or two columns per thread, window in
//                              registers, no shared memory;
//   stream_only_bulk.cuh       the same fed by bulk copies (whole, aligned chunks).
// The register windows give the bits of a ring of kRegP planes per sub-block.
//
// A block carries one thing from tile to tile: the bulk tile's mbarriers (BulkBars,
// stream_only_bulk.cuh), which stay valid across the tiles that leave their memory
// alone. The caller retires them before a tile that does not (bulk_bars_before_tile,
// then run_tile) and when the block has run its last tile (bulk_bars_retire). A caller
// without that state (fixed_kernel: one tile per block) passes none: the bulk tile
// retires its own.
#pragma once

#include <cstdint>

#include "gpu_common/flex/flex_pass.hpp"
#include "gpu_common/flex/tile/ring.cuh"
#include "gpu_common/flex/tile/stream_only_bulk.cuh"
#include "gpu_common/flex/tile/stream_only_registers.cuh"
#include "gpu_common/flex/tile/stream_x_registers.cuh"
#include "gpu_common/flex/tile/stream_x_teams.cuh"
#include "gpu_common/flex/tile/tile_span.cuh"

namespace splinebench::gpu::flex {

// Whether tile T of pass P runs the bulk tile (else a stream_only tile runs
// stream_only_registers).
SPLINEBENCH_HD bool takes_bulk(const PassDesc& P, const TileSpan& T) {
  return P.kind == TileKind::stream_only && P.bulk > 0 && bulk_fits(P, T);
}

// Floats of shared memory, from the start, that tile T of pass P may use: its pass's
// layout (SmemLayout::total), none for stream_only_registers.
SPLINEBENCH_HD std::int32_t tile_smem_floats(const PassDesc& P, const TileSpan& T) {
  return P.kind == TileKind::stream_only && !takes_bulk(P, T) ? 0 : P.smem.total;
}

// Before tile `tile` of pass P: retires the block's live bulk barriers (`state`) unless
// the tile is a bulk tile of their layout or uses no shared memory at their offsets.
// Ends with a block barrier where it retires them (bulk_bars_retire). Not inlined, and
// called by flex_kernel before its dependency wait, not from run_tile: inlined in
// front of the tile bodies it cost stream_x_registers 20 bytes of spills (ptxas, sm_90).
template <class Block>
SPLINEBENCH_HD SB_FLEX_NOINLINE void bulk_bars_before_tile(const Block& blk, const PassDesc& P, std::int64_t tile,
                                                          float* smem, BulkBars* state) {
  const BulkBars bars = load_bulk_bars(state);  // every thread: as the block's last tile left them
  if (!bars.live()) return;
  const TileSpan T = decode_tile(P, tile);
  const bool bulk = takes_bulk(P, T);
  const bool same = bulk && bars.offset == P.smem.bars && bars.count == P.smem.fp_stages;
  if (!same && (bulk || tile_smem_floats(P, T) > bars.offset)) bulk_bars_retire(blk, smem, bars, state);
}

// Runs tile `tile` of pass P. `state`: the block's bulk barriers, after
// bulk_bars_before_tile (or null, no state: none live, and a bulk tile retires its own);
// a bulk tile keeps or initialises them and records them there.
template <int C, class Block>
SPLINEBENCH_HD void run_tile(const Block& blk, const PassDesc& P, std::int64_t tile, float* smem, BulkBars* state) {
  const TileSpan T = decode_tile(P, tile);
  const bool bulk = takes_bulk(P, T);
  if (P.kind == TileKind::stream_x && P.regs > 0 && P.teams > 0) {
    // Ends with a barrier: every thread's writes are issued before the tile's release.
    if (P.group > 1)
      stream_x_teams<C, true>(blk, P, T, smem);
    else
      stream_x_teams<C, false>(blk, P, T, smem);
    return;
  }
  if (P.kind == TileKind::stream_x && P.regs > 0) {
    // Ends with a barrier: every thread's writes are issued before the tile's release.
    if (P.group > 1)
      stream_x_registers<C, true>(blk, P, T, smem);
    else
      stream_x_registers<C, false>(blk, P, T, smem);
    return;
  }
  if (bulk) {
    // Ends with a barrier: every thread's writes are issued before the tile's release.
    stream_only_bulk(blk, P, T, smem, state);
    return;
  }
  if (P.kind == TileKind::stream_only) {
    // No shared memory, no barrier inside; the one barrier orders every thread's
    // writes before the caller's release of the tile (flex_kernels.cu).
    if (P.regs == 2)
      stream_only_registers<2>(blk, P, T);
    else
      stream_only_registers<1>(blk, P, T);
    blk.sync();
    return;
  }
  // rows, and stream_x rows wider than the block (or short of shared memory for the
  // register tile's buffers). Ends with a barrier.
  run_ring_tile<C>(blk, P, T, smem);
}

}  // namespace splinebench::gpu::flex
