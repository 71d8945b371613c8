// Host-side planning of the gpu_flex prefilter: which passes a shape needs, how each
// pass is cut into tiles, and the shared-memory layout of its tiles. Pure host code
// (no CUDA calls), so it is tested on machines without a GPU.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_common/flex/flex_pass.hpp"
#include "splinebench/types.hpp"

namespace splinebench::gpu::flex {

// flexible: every pass in one launch, tiles taken from a ticket counter: D = 1 rows,
//           D >= 2 one stream_x pass over every (y, x) plane (rows of x filtered in
//           shared memory, streaming along y), then one stream_only pass per outer axis
//           from D-3 down to 0 (3-D: two passes, about 2 reads + 2 writes of the field).
// fixed   : the baseline, one launch per axis, tile = blockIdx: the contiguous axis
//           first (rows), then every other axis from D-2 down to 0 (stream_only).
enum class Variant { flexible, fixed };

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
Plan make_plan(const GridShape& shape, std::int64_t fields, Mode mode, Variant variant, const DeviceLimits& limits);

// Sets every pass's src/dst: pass 0 reads `in`, the last writes `out`, the ones in
// between alternate between `out` and `tmp` (tmp may be null for one pass).
void bind_buffers(Plan& plan, const float* in, float* out, float* tmp);

// All passes of a flexible plan as one launch (tickets numbered pass after pass).
LaunchDesc make_launch(const Plan& plan);

// One line per pass, e.g. "stream_only: 1 slices, 512 planes, 1024-column chunks (256), ranges of 512 (1), ...".
std::string describe(const Plan& plan);
std::string_view to_string(TileKind kind);

// Bytes each pass reads (footprints with halos, warm-up and look-ahead planes) and
// writes, summed over the plan: the design's memory traffic per element.
struct Traffic {
  double read_bytes = 0, write_bytes = 0;
};
Traffic traffic(const Plan& plan);

}  // namespace splinebench::gpu::flex
