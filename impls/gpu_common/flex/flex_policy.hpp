// Per-architecture tile parameters of gpu_flex, in the style of CUB's tuning policies:
// one struct of compile-time constants per tuned architecture, chosen once (FlexPolicy
// below) and read by the host planner and by the tiles alike. What depends on the shape
// (stream ranges, slices per tile, one or two teams, the fallbacks where shared memory
// is short) is the planner's logic, not a parameter.
#pragma once

namespace splinebench::gpu::flex {

// Tuned on the H100 (sm_90); lab/NOTES.md has the measurements behind each value.
struct FlexPolicy900 {
  // Threads per block of every kernel. The register windows hold 128 registers per
  // thread, so one block of 16 warps fills an SM; the stream tiles give every thread
  // one or two columns of a 1024-column chunk.
  static constexpr int kThreads = 512;
  // rows tiles: 32-sample work items per sub-block (sets the row units per sub-block).
  static constexpr int kRowsItems = 256;
  // rows tiles: values per row unit at most (longer rows are cut into units).
  static constexpr int kRowUnitValues = 2048;
  // stream_x tiles: values of one patch row at most; narrower rows are one patch.
  static constexpr int kPatchValues = 1024;
  // stream_only tiles: contiguous columns per tile, two per thread.
  static constexpr int kChunkWidth = 1024;
  // Register stream_x tiles: footprint buffers, sub-blocks requested ahead plus one
  // (fewer where shared memory is short; at least 2). Deeper pipelines did not move
  // more bytes per SM and took shared memory from the other pass of the launch.
  static constexpr int kXStages = 2;
  // Bulk stream_only tiles: buffers of 16 planes (fewer where shared memory is short;
  // at least 2). A third buffer leaves the x-y pass of the same launch less L1.
  static constexpr int kBulkStages = 2;
  // Register stream_x tiles of at least this many sub-blocks run in two teams of warps:
  // the teams' pipeline fills and drains once per tile, which short tiles do not repay.
  static constexpr int kTeamsMinSubblocks = 16;
};

// The policy every kernel and plan of this build uses. A second tuned architecture adds
// its struct above and picks it here (the kernels are built for sm_90 only).
using FlexPolicy = FlexPolicy900;

}  // namespace splinebench::gpu::flex
