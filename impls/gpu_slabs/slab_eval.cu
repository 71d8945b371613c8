// Host side of evaluate_slab: parameter packing (the grid's strides and periods, the
// slab's extended planes), kernel choice (D, C, index width) and launches chunked by the
// 65535-block limit of grid.y over fields, as gpu_common's evaluate_global.
#include <algorithm>
#include <string>

#include "gpu_common/axis_math.cuh"
#include "gpu_slabs/slab_eval.hpp"
#include "gpu_slabs/slab_eval_kernel.cuh"
#include "splinebench/cuda/check.hpp"
#include "splinebench/error.hpp"

namespace splinebench::gpu::slabs {
namespace {

constexpr int kBlock = 256;
constexpr std::int64_t kMaxGridY = 65535;

using Kernel = void (*)(detail::SlabEvalParams);

template <int D, typename Index>
Kernel pick_channels(int channels) {
  switch (channels) {
    case 1: return &detail::slab_evaluate_kernel<D, 1, Index>;
    case 2: return &detail::slab_evaluate_kernel<D, 2, Index>;
    case 4: return &detail::slab_evaluate_kernel<D, 4, Index>;
  }
  return nullptr;
}

template <typename Index>
Kernel pick(int dims, int channels) {
  switch (dims) {
    case 1: return pick_channels<1, Index>(channels);
    case 2: return pick_channels<2, Index>(channels);
    case 3: return pick_channels<3, Index>(channels);
    case 4: return pick_channels<4, Index>(channels);
    case 5: return pick_channels<5, Index>(channels);
    case 6: return pick_channels<6, Index>(channels);
  }
  return nullptr;
}

}  // namespace

void evaluate_slab(const GridShape& shape, std::int64_t fields, Mode mode, const SlabView& slab,
                   const float* d_coords, std::int64_t n, float* d_out, cudaStream_t stream) {
  if (fields < 1) throw Error("gpu_slabs: fields must be >= 1");
  if (n <= 0) return;
  for (int d = 0; d < shape.dims; ++d)
    if (shape.extent[d] >= gpu::detail::kMaxAxisLength)
      throw Unsupported("gpu_slabs: axis " + std::to_string(d) + " longer than 2^30 - 1 samples");
  if ((n + kBlock - 1) / kBlock > 0x7fffffff) throw Unsupported("gpu_slabs: too many queries for one launch");

  detail::SlabEvalParams p{};
  p.g.coeffs = slab.ext;
  p.g.coords = d_coords;
  p.g.out = d_out;
  p.g.n = n;
  p.g.field_values = slab.pitch;
  p.g.mode = static_cast<int>(mode);
  for (int d = 0; d < shape.dims; ++d) {
    p.g.extent[d] = static_cast<int>(shape.extent[d]);
    p.g.period[d] = gpu::detail::axis_period(p.g.mode, p.g.extent[d]);
    p.g.stride[d] = shape.stride(d);
  }
  p.start = slab.start;
  p.len = slab.len;
  // 32-bit offsets whenever one field's extended planes fit.
  const bool narrow = slab.pitch < (std::int64_t{1} << 31);
  const Kernel kernel = narrow ? pick<std::int32_t>(shape.dims, shape.channels)
                               : pick<std::int64_t>(shape.dims, shape.channels);
  if (!kernel) throw Error("gpu_slabs: channels must be 1, 2 or 4, got " + std::to_string(shape.channels));

  const unsigned blocks = static_cast<unsigned>((n + kBlock - 1) / kBlock);
  for (std::int64_t first = 0; first < fields; first += kMaxGridY) {
    p.g.field_offset = first;
    const unsigned chunk = static_cast<unsigned>(std::min(kMaxGridY, fields - first));
    kernel<<<dim3(blocks, chunk), kBlock, 0, stream>>>(p);
    SB_CUDA_CHECK_LAUNCH("slab_evaluate_kernel");
  }
}

}  // namespace splinebench::gpu::slabs
