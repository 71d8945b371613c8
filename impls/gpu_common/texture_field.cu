// Host side of TextureField: choosing the array layout within the device's texture
// limits, copying coefficients into the CUDA array (with the wrapped extra texel for
// the periodic mode), the texture object, and the evaluation launches.
//
// Error bound (interp_error_factor): the texture unit blends two texels with a weight
// kept in 9-bit fixed point with 8 fractional bits (CUDA Programming Guide, "Linear
// Filtering"), so each blend weight is off by less than 2^-8. Along every filtered
// axis the blended texels are neighbours, so a weight error e moves the fetched value
// by at most e * max|c[k+1] - c[k]| (neighbours along that axis); a trilinear fetch
// adds up its axes. The fetches are combined with the non-negative B-spline weights
// g (which sum to 1), so the whole result is off by at most
//     sum over filtered axes of (2^-8 + e_pos) * max|c[k+1] - c[k]|,
// where e_pos bounds the float rounding of the texel coordinate: it is formed with at
// most three roundings of a number below T (the array extent along that axis, slab
// origin included) plus the rounding of the blend fraction itself, below
// 2^-21 (T + 1) in all. Only the last min(D, 3) axes are filtered in hardware; the
// D-3 outer axes are weighted exactly in software and do not add to the bound.
#include <algorithm>
#include <sstream>
#include <string>

#include "gpu_common/cuda_check.hpp"
#include "gpu_common/device_buffer.hpp"
#include "gpu_common/axis_limits.hpp"
#include "gpu_common/axis_math.cuh"
#include "gpu_common/texture_eval_kernel.cuh"
#include "gpu_common/texture_field.hpp"
#include "splinebench/error.hpp"

namespace splinebench::gpu {
namespace {

constexpr int kBlock = 256;
constexpr std::int64_t kMaxGridY = 65535;

struct TextureLimits {
  std::int64_t width_2d = 0, height_2d = 0;
  std::int64_t width_layered = 0, height_layered = 0, layers = 0;
  std::int64_t width_3d = 0, height_3d = 0, depth_3d = 0;
};

// The current device's limits for arrays bound to textures; throws when no device.
TextureLimits device_limits() {
  int dev = 0;
  SB_CUDA_CHECK(cudaGetDevice(&dev));
  auto attr = [dev](cudaDeviceAttr a) {
    int v = 0;
    SB_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, dev));
    return static_cast<std::int64_t>(v);
  };
  TextureLimits l;
  l.width_2d = attr(cudaDevAttrMaxTexture2DWidth);
  l.height_2d = attr(cudaDevAttrMaxTexture2DHeight);
  l.width_layered = attr(cudaDevAttrMaxTexture2DLayeredWidth);
  l.height_layered = attr(cudaDevAttrMaxTexture2DLayeredHeight);
  l.layers = attr(cudaDevAttrMaxTexture2DLayeredLayers);
  l.width_3d = attr(cudaDevAttrMaxTexture3DWidth);
  l.height_3d = attr(cudaDevAttrMaxTexture3DHeight);
  l.depth_3d = attr(cudaDevAttrMaxTexture3DDepth);
  return l;
}

std::string too_big(const char* what, std::int64_t need, std::int64_t limit) {
  std::ostringstream msg;
  msg << what << " would be " << need << " texels; this device allows at most " << limit;
  return msg.str();
}

// Fills `layout` for the batch; returns "" or why the texture path cannot take it.
std::string plan_layout(const GridShape& shape, std::int64_t fields, Mode mode, const TextureLimits& lim,
                        TextureLayout& layout) {
  const int D = shape.dims;
  layout = TextureLayout{};
  layout.dims = D;
  layout.channels = shape.channels;
  layout.mode = static_cast<int>(mode);
  layout.fields = fields;
  layout.pad = mode == Mode::periodic ? 1 : 0;
  for (int d = 0; d < D; ++d) {
    if (shape.extent[d] >= kMaxAxisLength) return "axis longer than 2^30 - 1 samples";
    layout.extent[d] = static_cast<std::int32_t>(shape.extent[d]);
  }
  const std::int64_t pad = layout.pad;
  if (D == 1) {
    const std::int64_t w = shape.extent[0] + pad;
    if (w > lim.width_2d) return too_big("2-D array width (samples per line)", w, lim.width_2d);
    if (fields > lim.height_2d) return too_big("2-D array height (one row per field)", fields, lim.height_2d);
    layout.slabs = fields;
    layout.texels = {w, fields, 0};
    return "";
  }
  if (D == 2) {
    const std::int64_t w = shape.extent[1] + pad, h = shape.extent[0] + pad;
    if (w > lim.width_layered) return too_big("layered 2-D array width", w, lim.width_layered);
    if (h > lim.height_layered) return too_big("layered 2-D array height", h, lim.height_layered);
    if (fields > lim.layers) return too_big("layered 2-D array layer count (one per field)", fields, lim.layers);
    layout.slabs = fields;
    layout.texels = {w, h, fields};
    return "";
  }
  const std::int64_t w = shape.extent[D - 1] + pad, h = shape.extent[D - 2] + pad, dz = shape.extent[D - 3] + pad;
  if (w > lim.width_3d) return too_big("3-D array width", w, lim.width_3d);
  if (h > lim.height_3d) return too_big("3-D array height", h, lim.height_3d);
  if (dz > lim.depth_3d) return too_big("3-D array depth", dz, lim.depth_3d);
  std::int64_t per_field = 1;
  for (int d = 0; d < D - 3; ++d) per_field *= shape.extent[d];
  const std::int64_t slabs = per_field * fields;
  if (slabs >= (std::int64_t{1} << 31) / std::max<std::int64_t>(dz, 1))
    return "too many 3-D slabs (" + std::to_string(slabs) + ") to index";
  const std::int64_t tz = std::min(slabs, lim.depth_3d / dz);
  const std::int64_t columns = (slabs + tz - 1) / tz;
  const std::int64_t ty = std::min(columns, lim.height_3d / h);
  const std::int64_t tx = (columns + ty - 1) / ty;
  if (tx * w > lim.width_3d) {
    std::ostringstream msg;
    msg << slabs << " slabs of " << w << "x" << h << "x" << dz
        << " texels do not fit one 3-D array within this device's limits " << lim.width_3d << "x" << lim.height_3d
        << "x" << lim.depth_3d;
    return msg.str();
  }
  layout.slabs = slabs;
  layout.slab_extent = {static_cast<std::int32_t>(w), static_cast<std::int32_t>(h), static_cast<std::int32_t>(dz)};
  layout.tiles = {static_cast<std::int32_t>(tx), static_cast<std::int32_t>(ty), static_cast<std::int32_t>(tz)};
  layout.texels = {tx * w, ty * h, tz * dz};
  return "";
}

// Slab geometry of the linear (unpadded or padded) coefficient buffer the array is
// filled from: `slabs` blocks of nz x ny x nx samples.
struct SlabShape {
  std::int64_t slabs, nz, ny, nx;
  int pz, py, px;
};

SlabShape slab_shape(const GridShape& shape, const TextureLayout& layout) {
  const int D = shape.dims;
  const int pad = layout.pad;
  if (D == 1) return {layout.fields, 1, 1, shape.extent[0], 0, 0, pad};
  if (D == 2) return {layout.fields, 1, shape.extent[0], shape.extent[1], 0, pad, pad};
  return {layout.slabs, shape.extent[D - 3], shape.extent[D - 2], shape.extent[D - 1], pad, pad, pad};
}

// Periodic mode: copies every slab with one wrapped extra sample per padded axis, so
// the hardware pair (N-1, N) blends c[N-1] with c[0].
__global__ void wrap_pad_kernel(const float* __restrict__ src, float* __restrict__ dst, SlabShape s, int channels) {
  const std::int64_t dx = (s.nx + s.px) * channels, dy = s.ny + s.py, dz = s.nz + s.pz;
  const std::int64_t total = s.slabs * dz * dy * dx;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::int64_t r = i;
    const std::int64_t xf = r % dx;
    r /= dx;
    const std::int64_t y = r % dy;
    r /= dy;
    const std::int64_t z = r % dz;
    const std::int64_t slab = r / dz;
    const std::int64_t x = xf / channels, c = xf % channels;
    const std::int64_t sx = x % s.nx, sy = y % s.ny, sz = z % s.nz;
    dst[i] = src[(((slab * s.nz + sz) * s.ny + sy) * s.nx + sx) * channels + c];
  }
}

cudaChannelFormatDesc channel_desc(int channels) {
  const int b2 = channels >= 2 ? 32 : 0, b4 = channels == 4 ? 32 : 0;
  return cudaCreateChannelDesc(32, b2, b4, b4, cudaChannelFormatKindFloat);
}

using Kernel = void (*)(detail::TextureEvalParams);

template <int C, bool Records>
Kernel pick_kernel(int dims) {
  switch (dims) {
    case 1: return &detail::texture_eval_1d<C, Records>;
    case 2: return &detail::texture_eval_2d<C, Records>;
    case 3: return &detail::texture_eval_3d<3, C, Records>;
    case 4: return &detail::texture_eval_3d<4, C, Records>;
    case 5: return &detail::texture_eval_3d<5, C, Records>;
    case 6: return &detail::texture_eval_3d<6, C, Records>;
  }
  return nullptr;
}

template <bool Records>
Kernel pick_kernel(int dims, int channels) {
  switch (channels) {
    case 1: return pick_kernel<1, Records>(dims);
    case 2: return pick_kernel<2, Records>(dims);
    case 4: return pick_kernel<4, Records>(dims);
  }
  return nullptr;
}

void check_channels(int channels) {
  if (channels != 1 && channels != 2 && channels != 4)
    throw Error("gpu_texture: channels must be 1, 2 or 4, got " + std::to_string(channels));
}

}  // namespace

TextureField::~TextureField() {
  if (texture_) cudaDestroyTextureObject(texture_);
  if (array_) cudaFreeArray(array_);
}

void TextureField::release() {
  if (texture_) SB_CUDA_CHECK(cudaDestroyTextureObject(texture_));
  texture_ = 0;
  if (array_) SB_CUDA_CHECK(cudaFreeArray(array_));
  array_ = nullptr;
  layout_ = TextureLayout{};
}

std::string TextureField::why_not(const GridShape& shape, std::int64_t fields, Mode mode) {
  shape.validate();
  if (shape.channels != 1 && shape.channels != 2 && shape.channels != 4)
    return "channels must be 1, 2 or 4, got " + std::to_string(shape.channels);
  if (fields < 1) return "fields must be >= 1";
  const std::string no_device = cuda_unavailable_reason();
  if (!no_device.empty()) return no_device;
  TextureLayout layout;
  return plan_layout(shape, fields, mode, device_limits(), layout);
}

double TextureField::interp_error_factor(const GridShape& shape, std::int64_t fields, Mode mode) {
  shape.validate();
  TextureLimits lim;
  if (cuda_unavailable_reason().empty()) {
    lim = device_limits();
  } else {  // no device: plan with unbounded limits (larger extents, a looser bound)
    const std::int64_t big = std::int64_t{1} << 40;
    lim = {big, big, big, big, big, big, big, big};
  }
  TextureLayout layout;
  const std::string why = plan_layout(shape, fields, mode, lim, layout);
  if (!why.empty()) throw Unsupported("gpu_texture: " + why);
  const int filtered = std::min(shape.dims, 3);
  double factor = 0;
  for (int a = 0; a < filtered; ++a) factor += 0x1p-8 + 0x1p-21 * (static_cast<double>(layout.texels[a]) + 1.0);
  return factor;
}

void TextureField::bind(const GridShape& shape, std::int64_t fields, Mode mode, const float* d_coeffs,
                        cudaStream_t stream) {
  shape.validate();
  check_channels(shape.channels);
  if (fields < 1) throw Error("gpu_texture: fields must be >= 1");
  release();
  TextureLayout layout;
  const std::string why = plan_layout(shape, fields, mode, device_limits(), layout);
  if (!why.empty()) throw Unsupported("gpu_texture: " + why);

  // Periodic: build the padded copy first (freed at the end of bind, after the copies).
  const SlabShape slab = slab_shape(shape, layout);
  const int C = shape.channels;
  const std::int64_t slab_values = (slab.nz + slab.pz) * (slab.ny + slab.py) * (slab.nx + slab.px) * C;
  DeviceBuffer<float> padded;
  const float* src = d_coeffs;
  if (layout.pad) {
    padded.resize(static_cast<std::size_t>(slab.slabs * slab_values));
    const std::int64_t blocks = std::min<std::int64_t>((slab.slabs * slab_values + 255) / 256, 65536);
    wrap_pad_kernel<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(d_coeffs, padded.data(), slab, C);
    SB_CUDA_CHECK_LAUNCH("wrap_pad_kernel");
    src = padded.data();
  }

  const cudaChannelFormatDesc desc = channel_desc(C);
  const std::size_t elem = sizeof(float) * static_cast<std::size_t>(C);
  const std::size_t w = static_cast<std::size_t>(slab.nx + slab.px);
  const std::size_t h = static_cast<std::size_t>(slab.ny + slab.py);
  if (shape.dims == 1) {
    SB_CUDA_CHECK(cudaMallocArray(&array_, &desc, w, static_cast<std::size_t>(fields)));
    SB_CUDA_CHECK(cudaMemcpy2DToArrayAsync(array_, 0, 0, src, w * elem, w * elem, static_cast<std::size_t>(fields),
                                           cudaMemcpyDeviceToDevice, stream));
  } else if (shape.dims == 2) {
    SB_CUDA_CHECK(cudaMalloc3DArray(&array_, &desc, make_cudaExtent(w, h, static_cast<std::size_t>(fields)),
                                    cudaArrayLayered));
    cudaMemcpy3DParms copy{};
    copy.srcPtr = make_cudaPitchedPtr(const_cast<float*>(src), w * elem, w, h);
    copy.dstArray = array_;
    copy.extent = make_cudaExtent(w, h, static_cast<std::size_t>(fields));
    copy.kind = cudaMemcpyDeviceToDevice;
    SB_CUDA_CHECK(cudaMemcpy3DAsync(&copy, stream));
  } else {
    const auto& t = layout.texels;
    SB_CUDA_CHECK(cudaMalloc3DArray(&array_, &desc,
                                    make_cudaExtent(static_cast<std::size_t>(t[0]), static_cast<std::size_t>(t[1]),
                                                    static_cast<std::size_t>(t[2])),
                                    0));
    // One copy per column of slabs stacked along depth (one copy in total unless the
    // slabs overflow the depth limit).
    const std::int64_t tz = layout.tiles[2], ty = layout.tiles[1];
    const std::int64_t dz = slab.nz + slab.pz;
    for (std::int64_t column = 0; column * tz < layout.slabs; ++column) {
      const std::int64_t first = column * tz;
      const std::int64_t count = std::min(tz, layout.slabs - first);
      cudaMemcpy3DParms copy{};
      copy.srcPtr = make_cudaPitchedPtr(const_cast<float*>(src + first * slab_values), w * elem, w, h);
      copy.dstArray = array_;
      copy.dstPos = make_cudaPos(static_cast<std::size_t>((column / ty) * static_cast<std::int64_t>(w)),
                                 static_cast<std::size_t>((column % ty) * static_cast<std::int64_t>(h)), 0);
      copy.extent = make_cudaExtent(w, h, static_cast<std::size_t>(count * dz));
      copy.kind = cudaMemcpyDeviceToDevice;
      SB_CUDA_CHECK(cudaMemcpy3DAsync(&copy, stream));
    }
  }

  cudaResourceDesc res{};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array_;
  cudaTextureDesc tex{};
  tex.addressMode[0] = tex.addressMode[1] = tex.addressMode[2] = cudaAddressModeClamp;
  tex.filterMode = cudaFilterModeLinear;
  tex.readMode = cudaReadModeElementType;
  tex.normalizedCoords = 0;
  SB_CUDA_CHECK(cudaCreateTextureObject(&texture_, &res, &tex, nullptr));
  if (layout.pad) SB_CUDA_CHECK(cudaStreamSynchronize(stream));  // the padded copy is freed below
  layout_ = layout;
}

void TextureField::evaluate(const float* d_coords, std::int64_t n, float* d_out, cudaStream_t stream) const {
  launch(d_coords, nullptr, n, d_out, stream);
}

void TextureField::evaluate_records(const std::uint32_t* d_records, std::int64_t n, float* d_out,
                                    cudaStream_t stream) const {
  if (!d_records) throw Error("gpu_texture: evaluate_records needs records");
  if (n > (std::int64_t{1} << 32)) throw Unsupported("gpu_texture: records index at most 2^32 queries");
  launch(nullptr, d_records, n, d_out, stream);
}

void TextureField::launch(const float* d_coords, const std::uint32_t* d_records, std::int64_t n, float* d_out,
                          cudaStream_t stream) const {
  if (!bound()) throw Error("gpu_texture: evaluate before bind");
  if (n < 0) throw Error("gpu_texture: negative query count");
  if (n == 0) return;
  if ((n + kBlock - 1) / kBlock > 0x7fffffff) throw Unsupported("gpu_texture: too many queries for one launch");
  const TextureLayout& L = layout_;
  detail::TextureEvalParams p{};
  p.texture = texture_;
  p.coords = d_coords;
  p.records = d_records;
  p.out = d_out;
  p.n = n;
  p.mode = L.mode;
  for (int d = 0; d < L.dims; ++d) {
    p.extent[d] = L.extent[d];
    p.period[d] = detail::axis_period(L.mode, L.extent[d]);
  }
  p.slabs_per_field = 1;
  for (int d = L.dims - 4; d >= 0; --d) {  // outer axes 0..D-4, row-major slab index
    p.outer_stride[d] = p.slabs_per_field;
    p.slabs_per_field *= L.extent[d];
  }
  for (int a = 0; a < 3; ++a) {
    p.slab_extent[a] = L.slab_extent[a];
    p.tiles[a] = L.tiles[a];
  }
  const Kernel kernel = d_records ? pick_kernel<true>(L.dims, L.channels) : pick_kernel<false>(L.dims, L.channels);
  const unsigned blocks = static_cast<unsigned>((n + kBlock - 1) / kBlock);
  for (std::int64_t first = 0; first < L.fields; first += kMaxGridY) {
    p.field_offset = first;
    const unsigned chunk = static_cast<unsigned>(std::min(kMaxGridY, L.fields - first));
    kernel<<<dim3(blocks, chunk), kBlock, 0, stream>>>(p);
    SB_CUDA_CHECK_LAUNCH("texture_eval kernel");
  }
}

}  // namespace splinebench::gpu
