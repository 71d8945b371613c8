#include "prefilter_driver.hpp"

#include <algorithm>
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
#pragma omp for schedule(static)
    for (std::int64_t it = 0; it < items; ++it) {
      const std::int64_t slab = it / blocks;  // field * outer + o: slabs are back to back
      const std::int64_t j0 = (it % blocks) * width;
      kernels.columns(data + slab * n * lanes + j0, lanes, std::min(width, lanes - j0), plan, scratch.data());
    }
  }
}

}  // namespace

void prefilter_blocked(const GridShape& shape, std::int64_t fields, float* data, Mode mode,
                       const PrefilterKernels& kernels, int threads, PhaseTimes& times) {
  ScopedPhase total(times, phase::prefilter);
  for (int axis = 0; axis < shape.dims; ++axis) {
    ScopedPhase axis_phase(times, phase::prefilter_axis(axis));
    const LinePlan plan = make_line_plan(shape.extent[axis], mode);
    if (plan.identity) continue;
    filter_axis(shape, fields, data, axis, plan, kernels, threads);
  }
}

}  // namespace splinebench::cpu
