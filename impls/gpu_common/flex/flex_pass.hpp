// Plain data shared by the host planner, the CUDA kernels and the host emulation of
// the gpu_flex prefilter: the tile kinds, the description of one pass over the data
// and the shared-memory layout of its tiles. Usable from host and device code.
//
// Arithmetic every tile kind shares (tile/line_filter.cuh): each output is the
// infinite-line cubic B-spline prefilter of the mode's extension of the samples,
// computed on a window that reaches kHalo samples past the output on both sides. The
// causal recursion starts from zero kHalo samples early ("warm-up"), the anti-causal
// one kHalo samples late ("look-ahead"). What is left out is the filter's tail beyond
// kHalo samples. The filter's impulse response is A z^|k| with A = -6z/(1-z^2) = sqrt 3.
// The warm-up leaves out the inputs more than h samples before the output:
//     sum_{m>h} A |z|^m max|input| = A |z|^(h+1) / (1-|z|) max|input| = 2.37 |z|^(h+1) max|input|;
// the look-ahead leaves out the causal values c+ more than h samples after it, with
// |c+| <= 6/(1-|z|) max|input|:  6 |z|^(h+2) / (1-|z|)^2 max|input| = 3.0 |z|^(h+1) max|input|.
// For h = 16 the sum is 5.4 |z|^17 max|input| = 1.0e-9 max|input| per axis: below 2^-29,
// a thirtieth of the float32 rounding of a unit-sized coefficient. Boundaries need
// no special formulas: a window position outside [0, N) reads the folded sample, which
// is exactly what the closed-form initial values of the oracle sum over (any N >= 1).
#pragma once

#include <cstdint>

#include "gpu_common/flex/flex_policy.hpp"
#include "splinebench/bspline_math.hpp"  // SPLINEBENCH_HD

namespace splinebench::gpu::flex {

// Samples of warm-up before and look-ahead after every output window.
inline constexpr int kHalo = 16;
// Outputs per work item of the contiguous-axis filter of long rows.
inline constexpr int kSegment = 32;
// Threads per block of every kernel (the policy's).
inline constexpr int kThreads = FlexPolicy::kThreads;
// Planes per sub-block of the stream tiles: a compile-time constant, so that the window
// of kRegP + kHalo causal values per column of the register tiles lives in registers
// (two halves of kHalo). The shared-memory ring takes as many where they fit, so that
// every tile kind emits the same windows.
inline constexpr int kRegP = 16;
// The two-team register stream_x tile (tile/stream_x_teams.cuh): threads of the x
// team and of the y team, columns per y-team thread, and its mbarriers (loaded[stages],
// full[2], freed[2]; 8 bytes each, at SmemLayout::bars).
inline constexpr int kTeamX = kThreads / 2, kTeamY = kThreads - kTeamX;
inline constexpr int kYCols = 2;
constexpr int team_bar_count(int stages) { return stages + 4; }
// Passes of one launch: at most one per axis.
inline constexpr int kMaxPasses = 6;

// What one tile does.
//   rows        : filters a run of row segments along the contiguous axis only
//                 (1-D fields; the fixed baseline's pass over the last axis).
//   stream_x    : streams along axis D-2 and filters every plane's row segment along
//                 the contiguous axis first (the last two axes in one pass).
//   stream_only : streams along an outer axis over a chunk of contiguous columns
//                 (every axis before the last two; the baseline's strided passes).
//                 Always the register window (PassDesc::regs columns per thread),
//                 fed by each thread's loads or by bulk copies (PassDesc::bulk).
enum class TileKind : std::int32_t { rows = 0, stream_x = 1, stream_only = 2 };

// Offsets and sizes, in floats, inside a block's dynamic shared memory.
struct SmemLayout {
  std::int32_t fp_chan = 0;   // between channels inside a footprint plane
  std::int32_t fp_plane = 0;  // one plane (or row unit) of the footprint
  std::int32_t fp[2] = {0, 0};  // the two footprint buffers (sub-block b uses fp[b & 1])
  // The register stream_x tile's pipeline: fp_stages footprint buffers, buffer k at
  // fp[0] + k * (fp[1] - fp[0]) (sub-block b uses buffer b % fp_stages).
  std::int32_t fp_stages = 2;
  std::int32_t xfold = 0;     // register stream_x tile: folded x per footprint position (ints)
  std::int32_t g_plane = 0;   // one plane of filtered rows (rows, stream_x)
  std::int32_t g = 0;
  std::int32_t ring = 0;      // causal results waiting for the anti-causal pass
  std::int32_t ring_len = 0;  // entries per column: p + kHalo
  std::int32_t cz = 0;        // causal state per column
  std::int32_t bars = 0;      // bulk stream_only tile: fp_stages mbarriers (8 bytes each)
  std::int32_t total = 0;
};

// One pass over a batch: every tile of it does the same kind of work on a different
// part of the data. Tiles are numbered slice group by slice group (a group is one
// slice except in grouped stream_x passes; groups never span fields; `rows` tiles run
// over consecutive row units instead), and inside a group stream range first, then x
// patch / column chunk, so that tiles taken at the same time are neighbours and share
// their halos in L2.
struct PassDesc {
  TileKind kind = TileKind::rows;
  std::int32_t channels = 1;
  std::int32_t mode = 0;  // static_cast<int>(Mode)

  std::int64_t slices = 0;            // independent blocks of data of one geometry
  std::int64_t slice_stride = 0;      // values between slices
  std::int64_t slices_per_field = 1;  // for the per-field pass counters
  // Consecutive slices of one field per tile (the register stream_x tile only: narrow
  // planes side by side, so that every thread has a column; 1 elsewhere), and the
  // groups of them per field (the last group of a field may be short).
  std::int32_t group = 1;
  std::int64_t groups_per_field = 1;

  // Stream axis (stream_*): length, stride in values, outputs per tile, tiles.
  std::int64_t ns = 1, s_stride = 0, s_range = 1, s_tiles = 1;
  // x axis (rows, stream_x): samples, samples per tile (rows: per unit).
  std::int64_t nx = 1, x_tiles = 1;
  std::int32_t sx = 1;
  // Contiguous columns (stream_only): values after the stream axis, per tile, tiles.
  std::int64_t inner = 1, w_tiles = 1;
  std::int32_t w = 1;

  std::int32_t p = 1;          // planes (rows: row units) per sub-block
  std::int32_t vec = 1;        // shared-memory ring: adjacent columns per thread (1, 2)
  // > 0: the register window: stream_only columns per thread (1, 2); stream_x 1.
  std::int32_t regs = 0;
  std::int32_t bulk = 0;       // stream_only register tile fed by bulk copies (tile/stream_only_bulk.cuh)
  // Register stream_x tile: 1 = two teams of warps, x filter and y stream of neighbouring
  // sub-blocks at once (tile/stream_x_teams.cuh; two g buffers); 0 = one team.
  std::int32_t teams = 0;
  std::int32_t ncols = 0;      // columns of the stream filter
  std::int64_t units = 0;      // rows: row units in all (slices * x_tiles)
  std::int64_t units_per_tile = 1;

  std::int64_t tiles_per_slice = 0;  // per slice group (per slice where group == 1)
  std::int64_t tiles = 0;

  const float* src = nullptr;
  float* dst = nullptr;
  SmemLayout smem;
};

// One launch of the flexible-allocation kernel: its passes in dependency order.
struct LaunchDesc {
  std::int32_t passes = 0;
  PassDesc pass[kMaxPasses];
  std::int64_t pass_begin[kMaxPasses + 1] = {};  // first ticket of each pass
  std::int64_t fields = 1;
  std::int32_t smem_floats = 0;  // the most any pass needs
};

// Field of tile `local` of pass P (rows: 0; a rows pass is never waited for).
SPLINEBENCH_HD std::int64_t tile_field(const PassDesc& P, std::int64_t local) {
  if (P.kind == TileKind::rows) return 0;
  return (local / P.tiles_per_slice) / P.groups_per_field;
}
// Tiles of one field in pass P: what a tile of the next pass waits for. A rows pass
// (its tiles run across fields) counts as one group: the next pass waits for all of it.
SPLINEBENCH_HD std::int64_t tiles_per_field(const PassDesc& P) {
  return P.kind == TileKind::rows ? P.tiles : P.tiles_per_slice * P.groups_per_field;
}
// Counter a tile of field `field` waits on when `previous` is the pass before its own.
SPLINEBENCH_HD std::int64_t wait_field(const PassDesc& previous, std::int64_t field) {
  return previous.kind == TileKind::rows ? 0 : field;
}

}  // namespace splinebench::gpu::flex
