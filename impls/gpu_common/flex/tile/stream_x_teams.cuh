// The register stream_x tile in two teams (PassDesc::teams, tiles of at least
// FlexPolicy::kTeamsMinSubblocks sub-blocks). The one-team tile runs the x filter (often
// on half the block) and the y stream one after the other, both chains of dependent
// steps whose latency nothing else hides with one block per SM. Here two teams work on
// neighbouring sub-blocks at once:
//   - the x team (threads [0, kTeamX)) requests the footprints S - 1 sub-blocks ahead
//     and filters sub-block b along x into g buffer b % 2;
//   - the y team (the other kTeamY threads, kYCols columns each) streams sub-block b - 1
//     out of the other g buffer along y and writes its outputs.
// Hand-over through mbarriers at SmemLayout::bars, each phase one sub-block:
//   loaded[b % S]: every x thread's copies of sub-block b have landed (cp.async
//                  arrive-on: no x thread waits for the others' copies);
//   full[b % 2]:   every x thread has written g buffer b % 2 with sub-block b (so fp
//                  buffer b % S is read and may take sub-block b + S);
//   freed[b % 2]:  every y thread has read g buffer b % 2, which may take b + 2.
// (With named barriers, racecheck reported the g accesses as hazards.) A wait for the
// phase of sub-block b cannot be overtaken by that of b + S (or b + 2): that phase needs
// an arrival of the waiting team's own threads after the wait. Every column runs the
// same window steps on the same g values as in stream_x_registers: the same bits. The
// host emulation runs x step b and then y step b, an order the device allows.
#pragma once

#include <vector>  // the host emulation's per-thread windows

#include "gpu_common/flex/flex_pass.hpp"
#include "gpu_common/flex/tile/block_ops.cuh"
#include "gpu_common/flex/tile/footprint.cuh"
#include "gpu_common/flex/tile/row_filter.cuh"
#include "gpu_common/flex/tile/stream_window.cuh"
#include "gpu_common/flex/tile/tile_span.cuh"

namespace splinebench::gpu::flex {

// kYCols windows per y-team thread: registers on the device, one set per thread on the host.
template <int V>
struct YWindowSets {
#if defined(__CUDA_ARCH__)
  YWindow<V> own[kYCols];
  __device__ YWindow<V>& operator()(int, int j) { return own[j]; }
#else
  std::vector<YWindow<V>> all = std::vector<YWindow<V>>(static_cast<std::size_t>(kTeamY * kYCols));
  YWindow<V>& operator()(int t, int j) { return all[static_cast<std::size_t>(t * kYCols + j)]; }
#endif
};

template <int C, bool kGrouped, class Block>
SPLINEBENCH_HD SB_FLEX_NOINLINE void stream_x_teams(const Block& blk, const PassDesc& P, const TileSpan& T,
                                                   float* smem) {
  static_assert(kRegP == kHalo, "the window is two halves of kHalo entries");
  static_assert(kTeamY * kYCols >= kThreads, "the y team holds every column a tile can have");
  YWindowSets<1> window;
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
  const int group = kGrouped ? P.group : 1;  // slices side by side (YWindow::place)
  const int g_step = kRegP * group * g_plane;  // g buffer 1 follows buffer 0
  auto g_buffer = [&](int b) { return smem + L.g + (b & 1) * g_step; };
  const int S = L.fp_stages;
  std::uint64_t* loaded = reinterpret_cast<std::uint64_t*>(smem + L.bars);
  std::uint64_t* full = loaded + S;
  std::uint64_t* freed = full + 2;
  const Team<Block> xteam{blk, 0, kTeamX}, yteam{blk, kTeamX, kTeamY};

  // The y team's columns: thread t has columns t + j kTeamY (coalesced rows for every j).
  yteam.each([&](int t, int) {
  SB_FLEX_UNROLL
    for (int j = 0; j < kYCols; ++j) window(t, j).template place<C, kGrouped>(P, T, t + j * kTeamY);
  });
  const int buffer_step = L.fp[1] - L.fp[0];
  auto buffer = [&](int b) { return smem + L.fp[0] + (b % S) * buffer_step; };
  const int* xfold = reinterpret_cast<const int*>(smem + L.xfold);
  auto request = [&](int b) {
    const int t = b * kRegP;
    issue_row_loads<C, kGrouped>(xteam, P, T, t, count - t < kRegP ? count - t : kRegP, buffer(b), xfold);
    xteam.each([&](int, int) { team_bar_arrive_on_loads(loaded + b % S); });
  };
  // The previous tile ended with a block barrier after its last loads had landed and
  // its last waits had returned: xfold and the mbarriers are free.
  fill_row_folds(blk, P, T, reinterpret_cast<int*>(smem + L.xfold));
  blk.each([&](int tid, int) {
    if (tid != 0) return;
    for (int k = 0; k < S; ++k) team_bar_init(loaded + k, kTeamX);
    for (int k = 0; k < 2; ++k) {
      team_bar_init(full + k, kTeamX);
      team_bar_init(freed + k, kTeamY);
    }
  });
  blk.sync();

  auto x_step = [&](int b) {
    const int np = count - b * kRegP < kRegP ? count - b * kRegP : kRegP;
    xteam.each([&](int, int) {
      if (b >= 1 && b + S - 1 < nsub) {
        // Buffer (b + S - 1) % S held sub-block b - 1: wait until every x thread has read it.
        bulk_wait(full + ((b - 1) & 1), static_cast<std::uint32_t>(((b - 1) >> 1) & 1));
      }
    });
    if (b + S - 1 < nsub) request(b + S - 1);
    xteam.each([&](int, int) {
      bulk_wait(loaded + b % S, static_cast<std::uint32_t>((b / S) & 1));
      if (b >= 2) bulk_wait(freed + (b & 1), static_cast<std::uint32_t>(((b - 2) >> 1) & 1));
    });
    filter_row_segments<C>(xteam, P, np * group, buffer(b), g_buffer(b));
    xteam.each([&](int, int) { team_bar_arrive(full + (b & 1)); });
  };
  auto y_step = [&](int b) {
    const int np = count - b * kRegP < kRegP ? count - b * kRegP : kRegP;
    yteam.each([&](int t, int) {
      bulk_wait(full + (b & 1), static_cast<std::uint32_t>((b >> 1) & 1));
      const float* g = g_buffer(b);
  SB_FLEX_UNROLL
      for (int j = 0; j < kYCols; ++j) window(t, j).stream(g, group * g_plane, b, np, outputs, dst0, stride);
      team_bar_arrive(freed + (b & 1));
    });
  };

#if defined(__CUDA_ARCH__)
  if (static_cast<int>(threadIdx.x) < kTeamX) {
    for (int b = 0; b < S - 1 && b < nsub; ++b) request(b);
    for (int b = 0; b < nsub; ++b) x_step(b);
  } else {
    for (int b = 0; b < nsub; ++b) y_step(b);
  }
#else
  for (int b = 0; b < S - 1 && b < nsub; ++b) request(b);
  for (int b = 0; b < nsub; ++b) {
    x_step(b);
    y_step(b);
  }
#endif
  blk.sync();  // every write of the tile is issued; g, the buffers, xfold and the mbarriers are free
  blk.each([&](int tid, int) {
    if (tid == 0) bar_retire(loaded, S + 4);  // loaded[S], full[2], freed[2]
  });
  blk.sync();  // the barriers are retired before the next tile reuses their memory
}

}  // namespace splinebench::gpu::flex
