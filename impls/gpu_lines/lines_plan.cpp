#include "gpu_lines/lines_plan.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <limits>

#include "gpu_common/axis_limits.hpp"
#include "gpu_common/halo_tolerance.hpp"
#include "splinebench/error.hpp"

namespace splinebench::gpu::lines {

namespace {
constexpr std::int64_t kMaxBlocks = std::numeric_limits<std::int32_t>::max();  // gridDim.x
const char* kAxisNames[] = {"x", "y", "z", "w", "v", "u"};
}  // namespace

int choose_cap(const GridShape& shape) {
  const std::int64_t nx = shape.extent[shape.dims - 1];
  const std::int64_t lanes_per_row = shape.channels * ((nx + kDefaultCap - 1) / kDefaultCap);
  return lanes_per_row >= 8 ? kShortRowCap : kDefaultCap;
}

int pick_segment(std::int64_t n, int cap) {
  const std::int64_t segs = (n + cap - 1) / cap;
  const std::int64_t need = (n + segs - 1) / segs;
  for (const int S : kSegmentLengths)
    if (S >= need) return S;
  throw Error("gpu_lines: segment cap " + std::to_string(cap) + " above the longest compiled segment");
}

std::int64_t staged_smem_floats(std::int64_t rows, std::int64_t row_values) {
  const std::int64_t w = rows * row_values;
  return w + w / 32 + 1;
}

Plan make_plan(const GridShape& shape, std::int64_t fields, const PlanOptions& options) {
  shape.validate();
  if (fields < 1) throw Error("gpu_lines: fields must be >= 1, got " + std::to_string(fields));
  const int cap = options.cap ? options.cap : choose_cap(shape);
  if (cap < kSegmentLengths[0] || cap > kSegmentLengths[std::size(kSegmentLengths) - 1])
    throw Error("gpu_lines: segment cap " + std::to_string(cap) + " outside [16, 64]");
  const int D = shape.dims;
  for (int a = 0; a < D; ++a)
    if (shape.extent[a] >= kMaxAxisLength)
      throw Unsupported("gpu_lines: axis " + std::to_string(a) + " longer than 2^30 - 1 samples");
  const std::int64_t per_field = shape.values();
  if (per_field > std::numeric_limits<std::int64_t>::max() / fields)
    throw Unsupported("gpu_lines: the batch has more than 2^63 values");

  Plan P;
  P.cap = cap;
  P.count = D;
  P.values = per_field * fields;
  P.wide = options.force_wide || P.values > std::numeric_limits<std::int32_t>::max();
  const std::int64_t budget_floats = std::max(0, options.staged_budget_bytes) / 4;
  const int C = shape.channels;
  for (int p = 0; p < D; ++p) {
    Pass& q = P.pass[p];
    q.axis = D - 1 - p;
    q.n = static_cast<int>(shape.extent[q.axis]);
    q.C = C;
    q.s = shape.stride(q.axis);
    q.outer = P.values / (q.n * q.s);
    q.S = pick_segment(q.n, cap);
    q.segs = (q.n + q.S - 1) / q.S;
    if (q.axis == D - 1) {
      // Rows of n C values per block: as many as the lanes and the budget allow (and the
      // batch has); none fit -> the strided kernel below, as for every other axis.
      const std::int64_t per_row = static_cast<std::int64_t>(C) * q.segs;
      std::int64_t rows = std::min<std::int64_t>(kThreads / per_row, q.outer);
      while (rows > 0 && staged_smem_floats(rows, static_cast<std::int64_t>(q.n) * C) > budget_floats) --rows;
      if (rows > 0) {
        q.staged = 1;
        q.rows_per_block = static_cast<int>(rows);
        q.smem_bytes = static_cast<std::uint32_t>(4 * staged_smem_floats(rows, static_cast<std::int64_t>(q.n) * C));
        q.tasks = q.outer * per_row;
        q.blocks = (q.outer + rows - 1) / rows;
      }
    }
    if (!q.staged) {
      q.tasks = q.outer * q.segs * q.s;
      q.blocks = (q.tasks + kThreads - 1) / kThreads;
    }
    if (q.blocks > kMaxBlocks)
      throw Unsupported("gpu_lines: pass over axis " + std::to_string(q.axis) + " needs " + std::to_string(q.blocks) +
                        " blocks, more than one launch takes");
  }
  return P;
}

std::string describe(const Pass& q) {
  char b[320];
  std::snprintf(b, sizeof b, "axis %d n %d stride %lld: S %d x %d segs, %s, %lld lanes, %lld blocks of %d", q.axis, q.n,
                static_cast<long long>(q.s), q.S, q.segs, q.staged ? "staged" : "strided",
                static_cast<long long>(q.tasks), static_cast<long long>(q.blocks), kThreads);
  std::string d = b;
  if (q.staged)
    d += ", " + std::to_string(q.rows_per_block) + " rows/block, " + std::to_string(q.smem_bytes) + " B shared";
  return d;
}

std::string describe(const Plan& plan) {
  std::string d = "cap " + std::to_string(plan.cap) + ":";
  for (int p = 0; p < plan.count; ++p) {
    const Pass& q = plan.pass[p];
    const int from_x = plan.count - 1 - q.axis;
    d += std::string(p ? ", " : " ") + kAxisNames[from_x] + " S" + std::to_string(q.S) + "x" + std::to_string(q.segs) +
         (q.staged ? " staged" : "");
  }
  if (plan.wide) d += ", 64-bit indexing";
  return d;
}

// The same windows of +-16 samples per axis as gpu_flex's, so its tolerance.
Tolerance tolerance(const GridShape& shape) { return halo_truncated_tolerance(shape); }

}  // namespace splinebench::gpu::lines
