#include "prefilter_driver.hpp"

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "aligned_buffer.hpp"

namespace splinebench::cpu {

std::int64_t scratch_floats(std::int64_t n) {
  return kMaxScratchLanes * std::min(n, kMaxTransposedLength);
}

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Splits `total` into pieces of about `target`, each a multiple of `align` except the
// last, so items are balanced.
std::int64_t piece_size(std::int64_t total, std::int64_t target, std::int64_t align) {
  target = std::max(align, target / align * align);
  if (target >= total) return total;
  const std::int64_t pieces = ceil_div(total, target);
  return std::min(total, ceil_div(ceil_div(total, pieces), align) * align);
}

void filter_axis(const GridShape& shape, std::int64_t fields, float* data, int axis, const LinePlan& plan,
                 const PrefilterKernels& kernels, int threads) {
  const std::int64_t n = shape.extent[axis];
  const int C = shape.channels;
  const std::int64_t field_values = shape.values();
  if (axis == shape.dims - 1) {
    const std::int64_t rows = fields * (shape.points() / n);
    const std::int64_t row_floats = n * C;
    const std::int64_t per_item = piece_size(rows, kRowBlockBytes / (4 * row_floats), kMaxScratchLanes);
    const std::int64_t items = ceil_div(rows, per_item);
#pragma omp parallel num_threads(threads) if (threads > 1 && items > 1)
    {
      AlignedFloats scratch;  // vector-aligned: the kernels use aligned stores into it
      scratch.resize(static_cast<std::size_t>(scratch_floats(n)));
#pragma omp for schedule(static)
      for (std::int64_t it = 0; it < items; ++it) {
        const std::int64_t r0 = it * per_item;
        kernels.rows(data + r0 * row_floats, std::min(per_item, rows - r0), C, plan, scratch.data());
      }
    }
    return;
  }
  // Lines of this axis in one "outer" slab: `lanes` adjacent floats, rows `lanes` apart.
  const std::int64_t lanes = shape.stride(axis);
  const std::int64_t outer = field_values / (n * lanes);
  const std::int64_t width = piece_size(lanes, kColumnBlockBytes / (4 * n), kMaxScratchLanes);
  const std::int64_t blocks = ceil_div(lanes, width);
  const std::int64_t items = fields * outer * blocks;
#pragma omp parallel num_threads(threads) if (threads > 1 && items > 1)
  {
    AlignedFloats scratch;
    scratch.resize(static_cast<std::size_t>(scratch_floats(n)));
    // Static: contiguous runs of blocks per thread (the z pass of 256^3 on 16 threads,
    // one run each: 0.8 ms static, 2.0 ms dynamic).
#pragma omp for schedule(static)
    for (std::int64_t it = 0; it < items; ++it) {
      const std::int64_t slab = it / blocks;  // field * outer + o: slabs are back to back
      const std::int64_t j0 = (it % blocks) * width;
      kernels.columns(data + slab * n * lanes + j0, lanes, std::min(width, lanes - j0), plan, scratch.data());
    }
  }
}

// The last two axes slab by slab: each slab (one index of every axis before D-2) is
// filtered along axis D-2 and then along the contiguous axis D-1 while it sits in L2,
// so the two passes cost one trip through memory. The arithmetic per line and the order
// of the axes are those of filter_axis: the result is bit-identical. Returns the seconds
// of kernel time spent on each of the two axes, summed over threads, so the caller can
// attribute the fused pass's wall time to them.
std::pair<double, double> filter_last_two_axes(const GridShape& shape, std::int64_t fields, float* data,
                                               const LinePlan& plan_y, const LinePlan& plan_x,
                                               const PrefilterKernels& kernels, int threads) {
  const int C = shape.channels;
  const std::int64_t ny = shape.extent[shape.dims - 2];
  const std::int64_t nx = shape.extent[shape.dims - 1];
  const std::int64_t lanes = nx * C;  // columns of the slab along axis D-2
  const std::int64_t slab_values = ny * lanes;
  const std::int64_t slabs = fields * (shape.values() / slab_values);
  const std::int64_t width = piece_size(lanes, kColumnBlockBytes / (4 * ny), kMaxScratchLanes);
  const std::int64_t per_item = piece_size(ny, kRowBlockBytes / (4 * lanes), kMaxScratchLanes);
  double seconds_y = 0, seconds_x = 0;
#pragma omp parallel num_threads(threads) if (threads > 1 && slabs > 1) reduction(+ : seconds_y, seconds_x)
  {
    AlignedFloats scratch;
    scratch.resize(static_cast<std::size_t>(std::max(scratch_floats(ny), scratch_floats(nx))));
    // Dynamic: a slab is a few hundred microseconds of work, and on a shared host a
    // static split waits for the slowest core.
#pragma omp for schedule(dynamic)
    for (std::int64_t sl = 0; sl < slabs; ++sl) {
      float* slab = data + sl * slab_values;
      const auto t0 = std::chrono::steady_clock::now();
      for (std::int64_t j0 = 0; j0 < lanes; j0 += width)
        kernels.columns(slab + j0, lanes, std::min(width, lanes - j0), plan_y, scratch.data());
      const auto t1 = std::chrono::steady_clock::now();
      for (std::int64_t r0 = 0; r0 < ny; r0 += per_item)
        kernels.rows(slab + r0 * lanes, std::min(per_item, ny - r0), C, plan_x, scratch.data());
      const auto t2 = std::chrono::steady_clock::now();
      seconds_y += std::chrono::duration<double>(t1 - t0).count();
      seconds_x += std::chrono::duration<double>(t2 - t1).count();
    }
  }
  return {seconds_y, seconds_x};
}

}  // namespace

void prefilter_blocked(const GridShape& shape, std::int64_t fields, float* data, Mode mode,
                       const PrefilterKernels& kernels, int threads, PhaseTimes& times, bool fuse_last_two) {
  ScopedPhase total(times, phase::prefilter);
  const int D = shape.dims;
  int fused_from = D;  // axes >= fused_from run in the fused slab pass
  LinePlan plan_y, plan_x;
  if (fuse_last_two && D >= 3) {
    const std::int64_t slab_bytes = shape.extent[D - 2] * shape.extent[D - 1] * shape.channels * 4;
    plan_y = make_line_plan(shape.extent[D - 2], mode);
    plan_x = make_line_plan(shape.extent[D - 1], mode);
    if (!plan_y.identity && !plan_x.identity && slab_bytes <= kFusedSlabBytes) fused_from = D - 2;
  }
  for (int axis = 0; axis < fused_from; ++axis) {
    ScopedPhase axis_phase(times, phase::prefilter_axis(axis));
    const LinePlan plan = make_line_plan(shape.extent[axis], mode);
    if (plan.identity) continue;
    filter_axis(shape, fields, data, axis, plan, kernels, threads);
  }
  if (fused_from < D) {
    const auto start = std::chrono::steady_clock::now();
    const auto [seconds_y, seconds_x] = filter_last_two_axes(shape, fields, data, plan_y, plan_x, kernels, threads);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // One pass, two axes: its wall time split in proportion to the kernel time of each.
    const double share_y = seconds_y + seconds_x > 0 ? seconds_y / (seconds_y + seconds_x) : 0.5;
    times.add(phase::prefilter_axis(D - 2), wall * share_y);
    times.add(phase::prefilter_axis(D - 1), wall * (1 - share_y));
  }
}

}  // namespace splinebench::cpu
