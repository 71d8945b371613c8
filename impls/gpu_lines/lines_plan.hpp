// The plan of the gpu_lines prefilter: one pass per axis, the contiguous axis first, in
// which every lane computes a SEGMENT of S outputs of one line from its own folded samples
// (lines_lane.hpp); what each pass is (segment length, staged or strided, grid) and which
// buffer it reads and writes. Plain data usable from host and device code (the kernels
// take a Pass by value); the planner itself is host code (lines_plan.cpp), built without
// CUDA too, so that the tests check it on machines without a GPU.
//
// Layout: C order, channels innermost, fields back to back (splinebench/implementation.hpp).
// Axis a of extent n has stride s = C * prod(extent[a+1..]) values; a line is (o, i) with
// o < outer = values / (n s) (the fields included) and i < s (the channel included), its
// sample k at o n s + k s + i.
#pragma once

#include <cstdint>
#include <string>

#include "splinebench/bspline_math.hpp"  // SPLINEBENCH_HD
#include "splinebench/implementation.hpp"
#include "splinebench/types.hpp"

namespace splinebench::gpu::lines {

// Threads per block of every kernel.
inline constexpr int kThreads = 256;
inline constexpr int kMaxPasses = kMaxDims;
// The compiled segment lengths S (kernels are instantiated for each).
inline constexpr int kSegmentLengths[] = {16, 24, 32, 48, 64};
// Segment caps of the plan choice (choose_cap).
inline constexpr int kDefaultCap = 32;
inline constexpr int kShortRowCap = 16;
// A staged pass uses at most this much shared memory per block (the kernels are allowed
// it once per device); less where the device allows less.
inline constexpr int kStagedBudgetBytes = 96 * 1024;

// One pass: the lines along `axis`.
struct Pass {
  int axis = 0;            // 0 = slowest
  int n = 1;               // extent of the axis
  int S = 16;              // outputs per lane, one of kSegmentLengths
  int segs = 1;            // segments per line, ceil(n / S)
  int C = 1;               // channels (a staged row interleaves them)
  int staged = 0;          // 1: the contiguous axis through shared memory; 0: strided lanes
  int rows_per_block = 0;  // staged: rows of n C values per block
  std::uint32_t smem_bytes = 0;  // staged: dynamic shared memory per block
  std::int64_t s = 1;      // stride of the axis, values
  std::int64_t outer = 1;  // values / (n s)
  std::int64_t tasks = 0;  // lanes that compute (strided: outer segs s; staged: outer C segs)
  std::int64_t blocks = 0; // blocks of kThreads
};

struct Plan {
  int count = 0;             // passes, = D
  int cap = kDefaultCap;     // the longest segment asked for
  bool wide = false;         // 64-bit lane and offset arithmetic (the batch has >= 2^31 values)
  std::int64_t values = 0;   // of the whole batch
  Pass pass[kMaxPasses];
};

// What the planner is asked beyond the problem. cap 0: choose_cap's rule. The tests plan
// with a small shared-memory budget (the strided fallback of the contiguous axis) and with
// wide indexing forced (the 64-bit path on small data).
struct PlanOptions {
  int cap = 0;
  int staged_budget_bytes = kStagedBudgetBytes;
  bool force_wide = false;
};

// The segment cap for a problem (README.md, "Plan choice"): 16 when a row of the contiguous
// axis would hold 8 or more cap-32 lanes (C * ceil(n_x / 32) >= 8: many short rows of
// interleaved channels, or long rows), 32 otherwise.
int choose_cap(const GridShape& shape);

// Segment length for a line of n under `cap`: as many segments as the cap needs, each the
// smallest compiled length that covers its share (n <= cap: the whole line in one lane).
int pick_segment(std::int64_t n, int cap);

// Shared-memory floats of a staged block of `rows` rows of `row_values` values: one pad
// word per 32 (pad()) and one spare.
std::int64_t staged_smem_floats(std::int64_t rows, std::int64_t row_values);

// The passes for `fields` fields of `shape`, x first. Throws Error for shapes it cannot
// take (GridShape::validate's, fields < 1, a cap outside [16, 64]) and Unsupported for
// an axis of 2^30 samples or more or a grid the device cannot launch.
Plan make_plan(const GridShape& shape, std::int64_t fields, const PlanOptions& options = {});

// One line per pass, "axis 2 n 128 stride 1: S 32 x 4 segs, staged 64 rows/block 33796 B, ..."
std::string describe(const Pass& pass);
// The passes' segment lengths and kinds, e.g. "cap 32: x S32x4 staged, y S32x4, z S32x4".
std::string describe(const Plan& plan);

// Which buffer pass p of `count` reads and writes: 0 the input, 1 the output, 2 the
// temporary. The last pass writes the output, the ones before it alternate with the
// temporary backwards; pass 0 reads the input; none is in place (a lane reads its halos
// from neighbouring segments). A temporary is needed for count >= 2.
SPLINEBENCH_HD int dst_buffer(int count, int p) { return ((count - 1 - p) % 2 == 0) ? 1 : 2; }
SPLINEBENCH_HD int src_buffer(int count, int p) { return p == 0 ? 0 : dst_buffer(count, p - 1); }

// The prefilter tolerance of gpu_lines (GpuLines::tolerance): gpu_flex's, the float32
// pass-by-pass bound of f32_accuracy.hpp plus the halo truncation.
Tolerance tolerance(const GridShape& shape);

}  // namespace splinebench::gpu::lines
