// Who waits for whom in one flexible launch: the completion counters a tile waits on
// (each until it reaches a value) and the counters it increments when it finishes.
// Written once for the kernel (flex_kernels.cu: the lanes of warp 0 poll the
// dependencies in parallel), the host emulation and the ticket orders (flex_order.cpp),
// so all three agree on the dependency graph. Counter layout: LaunchDesc.
//
// Three kinds of dependency:
//  - field : a tile of pass k > 0 waits for every tile of pass k - 1 of its field
//            (the counter [k - 1][field] reaches the tiles per field);
//  - chain : a tile of range st > 0 of a chained pass (PassDesc::carry) waits for range
//            st - 1 of its column group, whose causal state it continues (the chain
//            counter reaches st; ranges of a group finish in order, since each waits
//            for the one before);
//  - plane : in a pipelined launch, pass 1 (the stream along axis D-3, right after the
//            (y, x) planes of pass 0) waits, instead of for all of pass 0, only for the
//            pass-0 tiles its window reads: every plane of its warm-up (range 0),
//            outputs and look-ahead, folded like the loads, and every pass-0 y range
//            its columns lie in (the plane counter [pass-0 slice][y range] reaches the
//            x patches per range).
// Every dependency is on tiles that come earlier in each ticket order the launch uses
// (pass after pass, flex_order.cpp's pipelined and adversarial orders, all checked by
// check_order), which is what the progress argument of flex_kernels.cu needs.
#pragma once

#include <cstdint>

#include "gpu_flex/flex_pass.hpp"

namespace splinebench::gpu::flex {

// Where a tile lies in its pass (stream kinds): slice, stream range, column group
// (stream_x: x patch; stream_only: column chunk; stream_yx: y patch * x_tiles + x patch).
struct TileCoords {
  std::int64_t slice = 0, st = 0, group = 0;
};

SPLINEBENCH_HD std::int64_t groups_per_range(const PassDesc& P) {
  if (P.kind == TileKind::stream_yx) return P.y_tiles * P.x_tiles;
  if (P.kind == TileKind::stream_x) return P.x_tiles;
  if (P.kind == TileKind::stream_only) return P.w_tiles;
  return 1;
}

SPLINEBENCH_HD TileCoords tile_coords(const PassDesc& P, std::int64_t local) {
  TileCoords c;
  if (P.kind == TileKind::rows) return c;
  c.slice = local / P.tiles_per_slice;
  const std::int64_t r = local - c.slice * P.tiles_per_slice;
  const std::int64_t per_range = groups_per_range(P);
  c.st = r / per_range;
  c.group = r - c.st * per_range;
  return c;
}

struct Dep {
  std::int64_t counter = 0;
  std::uint32_t need = 0;
};

namespace deps_detail {

// A pipelined pass 1 tile's window on its stream axis and the pass-0 y ranges its
// columns lie in.
struct PlaneWindow {
  std::int64_t first = 0, positions = 0;  // stream positions [first, first + positions)
  std::int64_t yr0 = 0, yranges = 0;      // pass-0 ranges [yr0, yr0 + yranges)
};

SPLINEBENCH_HD PlaneWindow plane_window(const LaunchDesc& L, const TileCoords& c) {
  const PassDesc& P0 = L.pass[0];
  const PassDesc& P1 = L.pass[1];
  PlaneWindow w;
  const std::int64_t s0 = c.st * P1.s_range;
  const std::int64_t s1 = s0 + P1.s_range < P1.ns ? s0 + P1.s_range : P1.ns;
  const std::int64_t warm = (P1.carry && c.st > 0) ? 0 : kHalo;
  w.first = s0 - warm;
  w.positions = (s1 + kHalo) - w.first;
  const std::int64_t w0 = c.group * P1.w;
  const std::int64_t w1 = w0 + P1.w < P1.inner ? w0 + P1.w : P1.inner;
  const std::int64_t row = P0.s_stride;  // values per pass-0 row: one y position of a plane
  const std::int64_t y_lo = w0 / row, y_hi = (w1 - 1) / row;
  w.yr0 = y_lo / P0.s_range;
  w.yranges = y_hi / P0.s_range - w.yr0 + 1;
  return w;
}

SPLINEBENCH_HD bool plane_deps(const LaunchDesc& L, int k) { return L.pipelined != 0 && k == 1; }

}  // namespace deps_detail

// Dependencies of tile `local` of pass k: field (or plane), then chain.
SPLINEBENCH_HD std::int64_t dep_count(const LaunchDesc& L, int k, std::int64_t local) {
  const PassDesc& P = L.pass[k];
  const TileCoords c = tile_coords(P, local);
  std::int64_t n = 0;
  if (deps_detail::plane_deps(L, k)) {
    const deps_detail::PlaneWindow w = deps_detail::plane_window(L, c);
    n += w.positions * w.yranges;
  } else if (k > 0) {
    n += 1;
  }
  if (P.carry && c.st > 0) n += 1;
  return n;
}

SPLINEBENCH_HD Dep dep_at(const LaunchDesc& L, int k, std::int64_t local, std::int64_t i) {
  const PassDesc& P = L.pass[k];
  const TileCoords c = tile_coords(P, local);
  Dep d;
  std::int64_t first = 0;  // dependencies before the chain one
  if (deps_detail::plane_deps(L, k)) {
    const deps_detail::PlaneWindow w = deps_detail::plane_window(L, c);
    first = w.positions * w.yranges;
    if (i < first) {
      const PassDesc& P0 = L.pass[0];
      const std::int64_t pos = w.first + i / w.yranges;
      const std::int64_t yr = w.yr0 + i % w.yranges;
      const std::int64_t z = fold32(P.mode, static_cast<int>(pos), static_cast<int>(P.ns));
      const std::int64_t slice0 = c.slice * P.ns + z;
      d.counter = L.plane_begin + slice0 * P0.s_tiles + yr;
      d.need = static_cast<std::uint32_t>(P0.x_tiles);
      return d;
    }
  } else if (k > 0) {
    first = 1;
    if (i == 0) {
      const PassDesc& prev = L.pass[k - 1];
      d.counter = (k - 1) * L.fields + wait_field(prev, tile_field(P, local));
      d.need = static_cast<std::uint32_t>(tiles_per_field(prev));
      return d;
    }
  }
  (void)first;
  d.counter = L.chain_begin[k] + c.slice * groups_per_range(P) + c.group;
  d.need = static_cast<std::uint32_t>(c.st);
  return d;
}

// Counters tile `local` of pass k increments when it finishes (at most 3).
SPLINEBENCH_HD int release_count(const LaunchDesc& L, int k, std::int64_t local) {
  (void)local;
  const PassDesc& P = L.pass[k];
  int n = L.passes > 1 ? 1 : 0;
  if (P.carry) ++n;
  if (L.pipelined && k == 0) ++n;
  return n;
}

SPLINEBENCH_HD std::int64_t release_at(const LaunchDesc& L, int k, std::int64_t local, int i) {
  const PassDesc& P = L.pass[k];
  const TileCoords c = tile_coords(P, local);
  if (L.passes > 1) {
    if (i == 0) return k * L.fields + tile_field(P, local);
    --i;
  }
  if (P.carry) {
    if (i == 0) return L.chain_begin[k] + c.slice * groups_per_range(P) + c.group;
    --i;
  }
  return L.plane_begin + c.slice * P.s_tiles + c.st;
}

}  // namespace splinebench::gpu::flex
