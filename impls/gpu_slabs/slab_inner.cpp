#include "gpu_slabs/slab_inner.hpp"

#include <algorithm>
#include <memory>
#include <utility>

#include "gpu_common/prefilter_step.hpp"
#include "gpu_common/flex/flex_launch.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/error.hpp"

namespace splinebench::gpu::slabs {

GridShape inner_shape(const GridShape& shape) {
  GridShape inner;
  inner.dims = shape.dims - 1;
  inner.channels = shape.channels;
  for (int d = 1; d < shape.dims; ++d) inner.extent[d - 1] = shape.extent[d];
  return inner;
}

namespace {

InnerMethod enqueue_step(Slab& sl, const GridShape& shape, std::int64_t fields, Mode mode, InnerMethod m,
                         std::string why) {
  GridShape ext = shape;
  ext.extent[0] = sl.len + 3;
  for (int axis = 1; axis < shape.dims; ++axis) prefilter_axis_step(ext, fields, mode, sl.ext(), axis, sl.stream);
  m.flex = false;
  m.chunk_planes = 0;
  m.why_step = std::move(why);
  return m;
}

// Planes per gpu_flex launch: all of them when the second buffers have the slab's size
// (a repeated prepare), as many as they hold when they were sized for a slab of this
// size before (a repeated prepare of a slab filtered in chunks: freeing and allocating
// tens of GB again would cost more than the launch), otherwise what `share_of_free` of
// the free memory holds, the buffers (re)allocated for it. 0 when not even one plane fits.
std::int64_t size_buffers(Slab& sl, std::int64_t planes, bool needs_tmp, double share_of_free) {
  const std::size_t whole = static_cast<std::size_t>(planes * sl.P);
  const auto held = static_cast<std::int64_t>(sl.inner_out.size()) / sl.P;
  if (sl.inner_out.size() == whole && (!needs_tmp || sl.inner_tmp.size() == whole)) return planes;
  if (sl.inner_sized_for == sl.data.size() && held >= 1 && held < planes &&
      (!needs_tmp || sl.inner_tmp.size() == sl.inner_out.size()))
    return held;
  sl.inner_out.reset();
  sl.inner_tmp.reset();
  sl.inner_sized_for = 0;
  std::size_t free_bytes = 0, total_bytes = 0;
  SB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const double plane_bytes = static_cast<double>(sl.P) * sizeof(float) * (needs_tmp ? 2 : 1);
  const auto fit = static_cast<std::int64_t>(share_of_free * static_cast<double>(free_bytes) / plane_bytes);
  const std::int64_t chunk = std::min(planes, fit);
  if (chunk < 1) return 0;
  const std::size_t count = static_cast<std::size_t>(chunk * sl.P);
  sl.inner_out.resize(count);
  if (needs_tmp) sl.inner_tmp.resize(count);
  sl.inner_sized_for = sl.data.size();
  return chunk;
}

}  // namespace

InnerMethod enqueue_inner_axes(Slab& sl, const GridShape& shape, std::int64_t fields, Mode mode,
                               double share_of_free) {
  DeviceGuard g(sl.device);
  InnerMethod m;
  m.planes = fields * (sl.len + 3);
  if (shape.dims < 2) return m;
  const GridShape inner = inner_shape(shape);
  if (!sl.inner_runner) sl.inner_runner = std::make_unique<flex::FlexRunner>();
  flex::FlexRunner& runner = *sl.inner_runner;

  std::int64_t chunk = 0;
  bool needs_tmp = false;
  try {
    needs_tmp = runner.tmp_values(flex::Variant::flexible, inner, 1, mode) > 0;
    // Plans the largest launch first, so a tile that does not fit shows before any
    // memory is taken.
    (void)runner.plan(flex::Variant::flexible, inner, m.planes, mode);
    chunk = size_buffers(sl, m.planes, needs_tmp, share_of_free);
  } catch (const Error& e) {  // Unsupported included: the planes or the memory
    sl.inner_out.reset();
    sl.inner_tmp.reset();
    return enqueue_step(sl, shape, fields, mode, m, std::string("gpu_flex: ") + e.what());
  }
  if (chunk < 1) return enqueue_step(sl, shape, fields, mode, m, "no device memory for one plane of gpu_flex's output");

  m.flex = true;
  m.chunk_planes = chunk;
  float* tmp = needs_tmp ? sl.inner_tmp.data() : nullptr;
  if (chunk == m.planes) {
    runner.run(flex::Variant::flexible, inner, m.planes, mode, sl.ext(), sl.inner_out.data(), tmp, sl.stream);
    // The filtered planes become the slab's data; the old buffer is the next output.
    std::swap(sl.data, sl.inner_out);
    return m;
  }
  for (std::int64_t k = 0; k < m.planes; k += chunk) {
    const std::int64_t c = std::min(chunk, m.planes - k);
    float* planes = sl.ext() + k * sl.P;
    runner.run(flex::Variant::flexible, inner, c, mode, planes, sl.inner_out.data(), tmp, sl.stream);
    SB_CUDA_CHECK(cudaMemcpyAsync(planes, sl.inner_out.data(), static_cast<std::size_t>(c * sl.P) * sizeof(float),
                                  cudaMemcpyDeviceToDevice, sl.stream));
  }
  return m;
}

std::string describe(const InnerMethod& m) {
  if (!m.flex) return "step prefilter (" + m.why_step + ")";
  if (m.chunk_planes == m.planes) return "gpu_flex tiles, whole slab";
  return "gpu_flex tiles, chunks of " + std::to_string(m.chunk_planes) + " of " + std::to_string(m.planes) + " planes";
}

}  // namespace splinebench::gpu::slabs
