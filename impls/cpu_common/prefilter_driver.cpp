#include "prefilter_driver.hpp"

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "aligned_buffer.hpp"
#include "work_pool.hpp"

namespace splinebench::cpu {

std::int64_t scratch_floats(std::int64_t n) {
  return kMaxScratchLanes * std::min(n, kMaxTransposedLength);
}

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// One scratch buffer per participant of a parallel_for, allocated by the participant
// on its first range (vector-aligned: the kernels use aligned stores into it).
class SlotScratch {
 public:
  SlotScratch(int threads, std::int64_t floats)
      : buffers_(static_cast<std::size_t>(std::max(1, threads))), floats_(static_cast<std::size_t>(floats)) {}
  float* get(int slot) {
    AlignedFloats& b = buffers_[static_cast<std::size_t>(slot)];
    if (b.size() != floats_) b.resize(floats_);
    return b.data();
  }

 private:
  std::vector<AlignedFloats> buffers_;
  std::size_t floats_;
};

// Splits `total` into pieces of about `target`, each a multiple of `align` except the
// last, so items are balanced.
std::int64_t piece_size(std::int64_t total, std::int64_t target, std::int64_t align) {
  target = std::max(align, target / align * align);
  if (target >= total) return total;
  const std::int64_t pieces = ceil_div(total, target);
  return std::min(total, ceil_div(ceil_div(total, pieces), align) * align);
}

// Threads a pass of `items` work items runs on.
int pass_threads(int threads, std::int64_t items) {
  return static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(threads, items)));
}

// Returns the threads the pass ran on.
int filter_axis(const GridShape& shape, std::int64_t fields, float* data, int axis, const LinePlan& plan,
                const PrefilterKernels& kernels, int threads) {
  const std::int64_t n = shape.extent[axis];
  const int C = shape.channels;
  const std::int64_t field_values = shape.values();
  if (axis == shape.dims - 1) {
    const std::int64_t rows = fields * (shape.points() / n);
    const std::int64_t row_floats = n * C;
    const std::int64_t per_item = piece_size(rows, kRowBlockBytes / (4 * row_floats), kMaxScratchLanes);
    const std::int64_t items = ceil_div(rows, per_item);
    SlotScratch scratch(threads, scratch_floats(n));
    parallel_for(threads, items, [&](std::int64_t first, std::int64_t last, int slot) {
      for (std::int64_t it = first; it < last; ++it) {
        const std::int64_t r0 = it * per_item;
        kernels.rows(data + r0 * row_floats, std::min(per_item, rows - r0), C, plan, scratch.get(slot));
      }
    });
    return pass_threads(threads, items);
  }
  // Lines of this axis in one "outer" slab: `lanes` adjacent floats, rows `lanes` apart.
  const std::int64_t lanes = shape.stride(axis);
  const std::int64_t outer = field_values / (n * lanes);
  const std::int64_t width = piece_size(lanes, kColumnBlockBytes / (4 * n), kMaxScratchLanes);
  const std::int64_t blocks = ceil_div(lanes, width);
  const std::int64_t items = fields * outer * blocks;
  SlotScratch scratch(threads, scratch_floats(n));
  // Ranges of neighbouring blocks (parallel_for's guided ranges), not one block at a
  // time: a long run keeps the hardware prefetchers' streams going (measured on the
  // first axis of large grids, where one block at a time was much slower).
  parallel_for(threads, items, [&](std::int64_t first, std::int64_t last, int slot) {
    for (std::int64_t it = first; it < last; ++it) {
      const std::int64_t slab = it / blocks;  // field * outer + o: slabs are back to back
      const std::int64_t j0 = (it % blocks) * width;
      kernels.columns(data + slab * n * lanes + j0, lanes, std::min(width, lanes - j0), plan, scratch.get(slot));
    }
  });
  return pass_threads(threads, items);
}

// The last two axes slab by slab: each slab (one index of every axis before D-2) is
// filtered along axis D-2 and then along the contiguous axis D-1 while it sits in L2,
// so the two passes cost one trip through memory. The arithmetic per line and the order
// of the axes are those of filter_axis: the result is bit-identical. Returns the seconds
// of kernel time spent on each of the two axes, summed over threads, so the caller can
// attribute the fused pass's wall time to them, and sets `used` to the threads it ran on.
std::pair<double, double> filter_last_two_axes(const GridShape& shape, std::int64_t fields, float* data,
                                               const LinePlan& plan_y, const LinePlan& plan_x,
                                               const PrefilterKernels& kernels, int threads, int& used) {
  const int C = shape.channels;
  const std::int64_t ny = shape.extent[shape.dims - 2];
  const std::int64_t nx = shape.extent[shape.dims - 1];
  const std::int64_t lanes = nx * C;  // columns of the slab along axis D-2
  const std::int64_t slab_values = ny * lanes;
  const std::int64_t slabs = fields * (shape.values() / slab_values);
  const std::int64_t width = piece_size(lanes, kColumnBlockBytes / (4 * ny), kMaxScratchLanes);
  const std::int64_t per_item = piece_size(ny, kRowBlockBytes / (4 * lanes), kMaxScratchLanes);
  SlotScratch scratch(threads, std::max(scratch_floats(ny), scratch_floats(nx)));
  // Kernel seconds per participant, a cache line each (written once per slab).
  struct alignas(64) Seconds {
    double y = 0, x = 0;
  };
  std::vector<Seconds> seconds(static_cast<std::size_t>(std::max(1, threads)));
  parallel_for(threads, slabs, [&](std::int64_t first, std::int64_t last, int slot) {
    float* s = scratch.get(slot);
    for (std::int64_t sl = first; sl < last; ++sl) {
      float* slab = data + sl * slab_values;
      const auto t0 = std::chrono::steady_clock::now();
      for (std::int64_t j0 = 0; j0 < lanes; j0 += width)
        kernels.columns(slab + j0, lanes, std::min(width, lanes - j0), plan_y, s);
      const auto t1 = std::chrono::steady_clock::now();
      for (std::int64_t r0 = 0; r0 < ny; r0 += per_item)
        kernels.rows(slab + r0 * lanes, std::min(per_item, ny - r0), C, plan_x, s);
      const auto t2 = std::chrono::steady_clock::now();
      seconds[slot].y += std::chrono::duration<double>(t1 - t0).count();
      seconds[slot].x += std::chrono::duration<double>(t2 - t1).count();
    }
  });
  used = pass_threads(threads, slabs);
  double seconds_y = 0, seconds_x = 0;
  for (const Seconds& t : seconds) {
    seconds_y += t.y;
    seconds_x += t.x;
  }
  return {seconds_y, seconds_x};
}

}  // namespace

int prefilter_blocked(const GridShape& shape, std::int64_t fields, float* data, Mode mode,
                      const PrefilterKernels& kernels, int threads, PhaseTimes& times, bool fuse_last_two) {
  ScopedPhase total(times, phase::prefilter);
  int used = 1;
  const int D = shape.dims;
  int fused_from = D;  // axes >= fused_from run in the fused slab pass
  std::shared_ptr<const LinePlan> plan_y, plan_x;
  if (fuse_last_two && D >= 3) {
    const std::int64_t slab_bytes = shape.extent[D - 2] * shape.extent[D - 1] * shape.channels * 4;
    plan_y = line_plan(shape.extent[D - 2], mode);
    plan_x = line_plan(shape.extent[D - 1], mode);
    if (!plan_y->identity && !plan_x->identity && slab_bytes <= kFusedSlabBytes) fused_from = D - 2;
  }
  for (int axis = 0; axis < fused_from; ++axis) {
    ScopedPhase axis_phase(times, phase::prefilter_axis(axis));
    const std::shared_ptr<const LinePlan> plan = line_plan(shape.extent[axis], mode);
    if (plan->identity) continue;
    used = std::max(used, filter_axis(shape, fields, data, axis, *plan, kernels, threads));
  }
  if (fused_from < D) {
    const auto start = std::chrono::steady_clock::now();
    int fused_used = 1;
    const auto [seconds_y, seconds_x] =
        filter_last_two_axes(shape, fields, data, *plan_y, *plan_x, kernels, threads, fused_used);
    used = std::max(used, fused_used);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // One pass, two axes: its wall time split in proportion to the kernel time of each.
    const double share_y = seconds_y + seconds_x > 0 ? seconds_y / (seconds_y + seconds_x) : 0.5;
    times.add(phase::prefilter_axis(D - 2), wall * share_y);
    times.add(phase::prefilter_axis(D - 1), wall * (1 - share_y));
  }
  return used;
}

}  // namespace splinebench::cpu
