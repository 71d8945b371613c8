// Which part of the data one tile of a pass covers: tile numbers to slices, stream
// ranges, x patches or column chunks, and row units (flex_pass.hpp has the numbering).
#pragma once

#include <cstdint>

#include "gpu_common/flex/flex_pass.hpp"

namespace splinebench::gpu::flex {

// Where a tile's data lies.
struct TileSpan {
  std::int64_t base = 0;       // slice offset in values (stream kinds)
  std::int64_t s0 = 0, s1 = 0;  // outputs along the stream axis
  std::int64_t x0 = 0, w0 = 0;  // first sample of the x patch; first column of the chunk
  std::int64_t u0 = 0, u1 = 0;  // rows: row units
  std::int64_t count = 0;       // planes (stream: outputs + 2 halos) or row units
  std::int64_t nslices = 1;     // slices of the tile's group that exist (<= P.group)
};

SPLINEBENCH_HD TileSpan decode_tile(const PassDesc& P, std::int64_t tile) {
  TileSpan t;
  if (P.kind == TileKind::rows) {
    t.u0 = tile * P.units_per_tile;
    t.u1 = t.u0 + P.units_per_tile < P.units ? t.u0 + P.units_per_tile : P.units;
    t.count = t.u1 - t.u0;
    return t;
  }
  // Group -> field and first slice: groups never span fields, and the last group of a
  // field holds the slices that are left (with group == 1: slice = group index).
  const std::int64_t grp = tile / P.tiles_per_slice;
  std::int64_t r = tile - grp * P.tiles_per_slice;
  if (P.group == 1) {
    t.base = grp * P.slice_stride;
  } else {
    const std::int64_t field = grp / P.groups_per_field, in_field = (grp - field * P.groups_per_field) * P.group;
    t.base = (field * P.slices_per_field + in_field) * P.slice_stride;
    t.nslices = P.slices_per_field - in_field < P.group ? P.slices_per_field - in_field : P.group;
  }
  const std::int64_t per_range = P.kind == TileKind::stream_x ? P.x_tiles : P.w_tiles;
  const std::int64_t st = r / per_range;
  r -= st * per_range;
  t.s0 = st * P.s_range;
  t.s1 = t.s0 + P.s_range < P.ns ? t.s0 + P.s_range : P.ns;
  if (P.kind == TileKind::stream_x) {
    t.x0 = r * P.sx;
  } else {
    t.w0 = r * P.w;
  }
  t.count = (t.s1 - t.s0) + 2 * kHalo;
  return t;
}

}  // namespace splinebench::gpu::flex
