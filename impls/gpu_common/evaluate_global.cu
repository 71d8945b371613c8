// Host side of evaluate_global: parameter packing, kernel choice (D, C, index width,
// storage and arithmetic type) and launches chunked by the 65535-block limit of grid.y
// over fields.
#include <algorithm>
#include <string>

#include "gpu_common/evaluate_global.hpp"
#include "gpu_common/evaluate_global_kernel.cuh"
#include "splinebench/cuda/check.hpp"
#include "splinebench/error.hpp"

namespace splinebench::gpu {
namespace {

constexpr int kBlock = 256;
constexpr std::int64_t kMaxGridY = 65535;

template <typename S, typename R>
using Kernel = void (*)(detail::GlobalEvalParams<S, R>);

template <int D, typename Index, typename S, typename R>
Kernel<S, R> pick_channels(int channels) {
  switch (channels) {
    case 1: return &detail::evaluate_global_kernel<D, 1, Index, S, R>;
    case 2: return &detail::evaluate_global_kernel<D, 2, Index, S, R>;
    case 4: return &detail::evaluate_global_kernel<D, 4, Index, S, R>;
  }
  return nullptr;
}

template <typename Index, typename S, typename R>
Kernel<S, R> pick(int dims, int channels) {
  switch (dims) {
    case 1: return pick_channels<1, Index, S, R>(channels);
    case 2: return pick_channels<2, Index, S, R>(channels);
    case 3: return pick_channels<3, Index, S, R>(channels);
    case 4: return pick_channels<4, Index, S, R>(channels);
    case 5: return pick_channels<5, Index, S, R>(channels);
    case 6: return pick_channels<6, Index, S, R>(channels);
  }
  return nullptr;
}

template <typename S, typename R>
void launch(const GridShape& shape, std::int64_t fields, Mode mode, const S* d_coeffs, const R* d_coords,
            std::int64_t n, R* d_out, cudaStream_t stream) {
  shape.validate();
  if (fields < 1) throw Error("evaluate_global: fields must be >= 1");
  if (n < 0) throw Error("evaluate_global: negative query count");
  if (n == 0) return;
  for (int d = 0; d < shape.dims; ++d)
    if (shape.extent[d] >= detail::kMaxAxisLength)
      throw Unsupported("evaluate_global: axis " + std::to_string(d) + " has " + std::to_string(shape.extent[d]) +
                        " samples; at most 2^30 - 1 supported");
  if ((n + kBlock - 1) / kBlock > 0x7fffffff) throw Unsupported("evaluate_global: too many queries for one launch");

  detail::GlobalEvalParams<S, R> p{};
  p.coeffs = d_coeffs;
  p.coords = d_coords;
  p.out = d_out;
  p.n = n;
  p.field_values = shape.values();
  p.mode = static_cast<int>(mode);
  for (int d = 0; d < shape.dims; ++d) {
    p.extent[d] = static_cast<int>(shape.extent[d]);
    p.period[d] = detail::axis_period(p.mode, p.extent[d]);
    p.stride[d] = shape.stride(d);
  }
  // 32-bit offsets whenever one field's offsets fit: cheaper address arithmetic.
  const bool narrow = shape.values() < (std::int64_t{1} << 31);
  const Kernel<S, R> kernel = narrow ? pick<std::int32_t, S, R>(shape.dims, shape.channels)
                                     : pick<std::int64_t, S, R>(shape.dims, shape.channels);
  if (!kernel) throw Error("evaluate_global: channels must be 1, 2 or 4, got " + std::to_string(shape.channels));

  const unsigned blocks = static_cast<unsigned>((n + kBlock - 1) / kBlock);
  for (std::int64_t first = 0; first < fields; first += kMaxGridY) {
    p.field_offset = first;
    const unsigned chunk = static_cast<unsigned>(std::min(kMaxGridY, fields - first));
    kernel<<<dim3(blocks, chunk), kBlock, 0, stream>>>(p);
    SB_CUDA_CHECK_LAUNCH("evaluate_global_kernel");
  }
}

}  // namespace

void evaluate_global(const GridShape& shape, std::int64_t fields, Mode mode, const float* d_coeffs,
                     const float* d_coords, std::int64_t n, float* d_out, cudaStream_t stream) {
  launch(shape, fields, mode, d_coeffs, d_coords, n, d_out, stream);
}

void evaluate_global(const GridShape& shape, std::int64_t fields, Mode mode, const double* d_coeffs,
                     const double* d_coords, std::int64_t n, double* d_out, cudaStream_t stream) {
  launch(shape, fields, mode, d_coeffs, d_coords, n, d_out, stream);
}

void evaluate_global(const GridShape& shape, std::int64_t fields, Mode mode, const __half* d_coeffs,
                     const float* d_coords, std::int64_t n, float* d_out, cudaStream_t stream) {
  launch(shape, fields, mode, d_coeffs, d_coords, n, d_out, stream);
}

void evaluate_global(const GridShape& shape, std::int64_t fields, Mode mode, const __nv_bfloat16* d_coeffs,
                     const float* d_coords, std::int64_t n, float* d_out, cudaStream_t stream) {
  launch(shape, fields, mode, d_coeffs, d_coords, n, d_out, stream);
}

}  // namespace splinebench::gpu
