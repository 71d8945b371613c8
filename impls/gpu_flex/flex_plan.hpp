// Host-side planning of the gpu_flex prefilter: which passes a shape needs, how each
// pass is cut into tiles, and the shared-memory layout of its tiles. Pure host code
// (no CUDA calls), so it is tested on machines without a GPU.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_flex/flex_pass.hpp"
#include "splinebench/types.hpp"

namespace splinebench::gpu::flex {

// flexible: every pass in one launch, tiles taken from a ticket counter: D = 1 rows,
//           D = 2 one fused stream_x pass, D >= 3 as Tuning::layout3d says (default:
//           one stream_x pass over every (y, x) plane, then one stream_only pass per
//           outer axis: two passes for 3-D).
// fixed   : the baseline, one launch per axis, tile = blockIdx: the contiguous axis
//           first (rows), then every other axis from D-2 down to 0 (stream_only).
enum class Variant { flexible, fixed };

// How a flexible plan of D >= 3 covers the axes.
//   xy_planes  : stream_x over every (y, x) plane of the batch (rows of x filtered in
//                shared memory, streaming along y), then stream_only along each outer
//                axis from D-3 down to 0 (3-D: two passes, ~2 reads + 2 writes).
//   yx_patches : stream_yx (32x32 (y, x) patches with halos, streaming along D-3), then
//                stream_only along each outer axis (3-D: one pass, 4.25x footprint reads;
//                one channel: the register stream_yx tile).
//   per_axis   : the fixed baseline's passes (rows, then stream_only per axis) inside
//                the one launch.
enum class Layout3D : std::int32_t { xy_planes = 0, yx_patches = 1, per_axis = 2 };
std::string_view to_string(Layout3D layout);

// Knobs of the planner; the defaults are what gpu_flex uses.
struct Tuning {
  int rows_items = 256;           // rows: contiguous-axis work items per sub-block (sets p)
  int stream_p = 16;              // stream_x / stream_only: planes per sub-block (at most)
  int plane_p = 0;                // stream_yx: planes per sub-block (0: largest that fits)
  int chunk_width = 1024;         // stream_only: columns per tile
  std::int64_t s_range = 0;       // > 0: outputs per tile along every stream axis
  // Profiling only (results are wrong): phases the tiles skip, to attribute time.
  // Bit 0: in-plane filters, bit 1: the stream filter (and its writes).
  int profile_skip = 0;
  // Profiling only (results are wrong): >= 0 keeps only that pass of the plan, so one
  // pass of a multi-pass plan can be timed inside the single launch.
  int profile_pass = -1;
  // Flexible plans of D >= 3 (bench/gpu_prefilter/README.md has the measurements).
  Layout3D layout3d = Layout3D::xy_planes;
  // Stream filter: adjacent columns per thread (1, 2 or 4; 0: the widest that still
  // gives every thread of the block a column group). Passes whose column groups are
  // not contiguous in shared memory use 1.
  int stream_vec = 0;
  // 1 = register tiles where they apply (same bits as the ring; need stream_p == kRegP):
  // stream_only passes (no shared memory, no barriers; columns per thread: 2 where
  // stream_vec >= 2 or (stream_vec == 0 and the chunk has 2 columns per thread), when the
  // chunk width is even; else 1) and stream_x passes whose patch has at most one column
  // per thread (the y window in registers), and one-channel stream_yx passes with
  // plane_p == 0 (the z window in registers, two columns per thread; the bits of the
  // ring with plane_p = kRegP). 0 = the shared-memory ring everywhere.
  int stream_regs = 1;
  // Register stream_x tiles: footprint buffers (2 = double buffering, at most 4; fewer
  // where shared memory is short). 2 measured fastest on the H100 (bench/gpu_prefilter).
  int x_stages = 2;
  // Register stream_x tiles: 1 = two teams of warps (flex_tile.cuh, stream_x_teams: the
  // x filter of one sub-block runs while the other team streams the previous one along
  // y; one more g buffer and a few mbarriers), 0 = the whole block through each phase in
  // turn, -1 = two teams for tiles of at least kTeamsMinSubblocks sub-blocks (flex_pass.hpp).
  int x_teams = -1;
  // stream_x: samples per x patch (0: whole rows, at most 1024 values per patch row).
  int x_patch = 0;
  // Register stream_x tiles: consecutive slices (planes of a field) per tile, side by
  // side, for patches narrower than the block (0: the planner's choice, see
  // flex_plan.cpp; otherwise at most this many, limited by threads and by the slices
  // of one field).
  int x_group = 0;
  // Register stream_yx tiles: footprint planes per batch (1, 2, 4, 8 or 16) and batch
  // buffers (2 to 8; fewer where shared memory is short): stages - 1 batches are in
  // flight while one is filtered.
  int yx_batch = kPlaneBatch;
  int yx_stages = 2;
  // Register stream_yx tiles: 1 = footprint planes by TMA tensor copies (two per plane,
  // 128-byte swizzled, completion through an mbarrier) where rows are a multiple of 16
  // bytes; 0 = per-thread cp.async. The same values land in shared memory either way, so
  // the same bits. 0 by default: with 1 the one-pass layout measured slower on the H100
  // (bench/gpu_prefilter/README.md), although the copies alone are fast in isolation.
  int yx_tma = 0;
  // stream_yx tiles: 1 = the patches on the border of the (y, x) plane first in each
  // range, then the interior row by row; 0 = row by row. Border patches fold the
  // positions of their footprint that leave the plane, the TMA instance on every batch,
  // which makes them its longest tiles; taken last, they were the launch's tail
  // (lab/evidence/h100/20261125-144900-gpu_flex-yx-tma-loads-profile). The order changes no
  // value: every tile computes the same outputs either way.
  int yx_edge_first = 1;
  // Register stream_only tiles of two columns per thread over whole chunks of
  // 2 * kThreads columns: 1 = fed through shared memory by bulk copies (flex_tile.cuh,
  // stream_bulk) in bulk_stages buffers of kRegP planes (fewer where shared memory is
  // short; at least 2); 0 = each thread loads its own columns (stream_registers).
  // 2 buffers measured fastest on the H100: 3 (192 KB) leave the x-y pass of the same
  // launch less L1 (bench/gpu_prefilter/README.md).
  int stream_bulk = 1;
  int bulk_stages = 2;

  friend bool operator==(const Tuning&, const Tuning&) = default;
};

struct Plan {
  std::vector<PassDesc> passes;  // in execution order; src/dst unset until bind_buffers
  std::int64_t fields = 1;
  int smem_floats = 0;           // the most any pass needs
  bool needs_tmp() const { return passes.size() > 1; }
};

// Shared memory one block may use (bytes) and blocks resident on the whole device;
// the planner sizes stream ranges so that the tiles fill the resident blocks.
struct DeviceLimits {
  int smem_bytes = 227 * 1024;
  int resident_blocks = 132;
};

// Throws Error for shapes it cannot take (an axis of 2^30 samples or more, channels
// other than 1, 2, 4) and Unsupported when a tile does not fit limits.smem_bytes.
Plan make_plan(const GridShape& shape, std::int64_t fields, Mode mode, Variant variant, const DeviceLimits& limits,
               const Tuning& tuning = {});

// Sets every pass's src/dst: pass 0 reads `in`, the last writes `out`, the ones in
// between alternate between `out` and `tmp` (tmp may be null for one pass).
void bind_buffers(Plan& plan, const float* in, float* out, float* tmp);

// Whether the register stream_yx pass P can read `src` through a TMA tensor map: the
// planes of every slice contiguous (y_stride == nx, s_stride == ny nx, slices back to
// back), rows a multiple of 16 bytes (nx % 4 == 0), src 16-byte aligned.
bool yx_tma_layout_ok(const PassDesc& P, const float* src);

// All passes of a flexible plan as one launch (tickets numbered pass after pass).
LaunchDesc make_launch(const Plan& plan);

// One line per pass, e.g. "stream_yx 512x512x512 C1: 16x16 patches, 2 ranges of 256, p=4, 512 tiles".
std::string describe(const Plan& plan);
std::string_view to_string(TileKind kind);

// Bytes each pass reads (footprints with halos, warm-up and look-ahead planes) and
// writes, summed over the plan: the design's memory traffic per element.
struct Traffic {
  double read_bytes = 0, write_bytes = 0;
};
Traffic traffic(const Plan& plan);

}  // namespace splinebench::gpu::flex
