// Host side of TextureField: the array layout for the device's texture limits
// (planned in texture_layout.cpp), copying coefficients into the CUDA array (packed
// into bricks first when the periodic mode adds its wrapped texel or an axis is
// folded), the texture object, and the evaluation launches.
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
#include <string>

#include "gpu_common/axis_limits.hpp"
#include "gpu_common/axis_math.cuh"
#include "gpu_common/texture_eval_kernel.cuh"
#include "gpu_common/texture_field.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/cuda/device_buffer.hpp"
#include "splinebench/error.hpp"

namespace splinebench::gpu {
namespace {

constexpr int kBlock = 256;
constexpr std::int64_t kMaxGridY = 65535;

// Periodic mode or a folded layout: the coefficients rearranged brick by brick, each
// brick x-fastest, exactly as the array stores them (texture_layout.hpp), so one copy
// per column of bricks fills the array. Texel (x, y, z) of a brick holds padded texel
// folded_texel(segment, local) along each axis; the padded index N (periodic) is the
// wrapped copy of index 0.
struct PackParams {
  int channels;
  int brick[3];     // brick extent along x, y, z
  int segments[3];  // per axis
  int stride[3];
  int line[3];      // padded line length
  int n[3];         // unpadded extent (1 where the grid has no such axis)
  std::int64_t bricks;
};

PackParams pack_params(const TextureLayout& L) {
  PackParams p{};
  p.channels = L.channels;
  p.bricks = L.bricks;
  const int D = L.dims;
  for (int a = 0; a < 3; ++a) {
    p.brick[a] = L.brick_extent[a];
    p.segments[a] = L.segments[a];
    p.stride[a] = L.stride[a];
    p.line[a] = L.line[a];
    p.n[a] = a < D ? L.extent[D - 1 - a] : 1;
  }
  return p;
}

__global__ void pack_bricks_kernel(const float* __restrict__ src, float* __restrict__ dst, const PackParams P) {
  const int C = P.channels;
  const std::int64_t bx = P.brick[0], by = P.brick[1], bz = P.brick[2];
  const std::int64_t nx = P.n[0], ny = P.n[1], nz = P.n[2];
  const std::int64_t total = P.bricks * bz * by * bx * C;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::int64_t r = i;
    const int c = static_cast<int>(r % C);
    r /= C;
    const int x = static_cast<int>(r % bx);
    r /= bx;
    const int y = static_cast<int>(r % by);
    r /= by;
    const int z = static_cast<int>(r % bz);
    std::int64_t brick = r / bz;
    const int rx = static_cast<int>(brick % P.segments[0]);
    brick /= P.segments[0];
    const int ry = static_cast<int>(brick % P.segments[1]);
    brick /= P.segments[1];
    const int rz = static_cast<int>(brick % P.segments[2]);
    const std::int64_t slab = brick / P.segments[2];
    std::int64_t sx = folded_texel(rx, x, P.stride[0], P.line[0]);
    std::int64_t sy = folded_texel(ry, y, P.stride[1], P.line[1]);
    std::int64_t sz = folded_texel(rz, z, P.stride[2], P.line[2]);
    if (sx >= nx) sx -= nx;  // the wrapped copy (periodic pad)
    if (sy >= ny) sy -= ny;
    if (sz >= nz) sz -= nz;
    dst[i] = src[(((slab * nz + sz) * ny + sy) * nx + sx) * C + c];
  }
}

cudaChannelFormatDesc channel_desc(int channels) {
  const int b2 = channels >= 2 ? 32 : 0, b4 = channels == 4 ? 32 : 0;
  return cudaCreateChannelDesc(32, b2, b4, b4, cudaChannelFormatKindFloat);
}

using Kernel = void (*)(detail::TextureEvalParams);

template <int C, bool Records, bool Bricked>
Kernel pick_kernel(int dims) {
  switch (dims) {
    case 1: return &detail::texture_eval_1d<C, Records, Bricked>;
    case 2: return &detail::texture_eval_2d<C, Records, Bricked>;
    case 3: return &detail::texture_eval_3d<3, C, Records, Bricked>;
    case 4: return &detail::texture_eval_3d<4, C, Records, Bricked>;
    case 5: return &detail::texture_eval_3d<5, C, Records, Bricked>;
    case 6: return &detail::texture_eval_3d<6, C, Records, Bricked>;
  }
  return nullptr;
}

template <bool Records, bool Bricked>
Kernel pick_kernel(int dims, int channels) {
  switch (channels) {
    case 1: return pick_kernel<1, Records, Bricked>(dims);
    case 2: return pick_kernel<2, Records, Bricked>(dims);
    case 4: return pick_kernel<4, Records, Bricked>(dims);
  }
  return nullptr;
}

Kernel pick_kernel(int dims, int channels, bool records, bool bricked) {
  if (records) return bricked ? pick_kernel<true, true>(dims, channels) : pick_kernel<true, false>(dims, channels);
  return bricked ? pick_kernel<false, true>(dims, channels) : pick_kernel<false, false>(dims, channels);
}

// Without a device: plan as if the limits were unbounded (no folding, larger
// extents than any device would give, so a looser error bound).
TextureLimits limits_or_unbounded() {
  if (cuda_unavailable_reason().empty()) return TextureField::device_limits();
  const std::int64_t big = std::int64_t{1} << 40;
  return {big, big, big, big, big, big, big, big};
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

TextureLimits TextureField::device_limits() {
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

std::string TextureField::why_not(const GridShape& shape, std::int64_t fields, Mode mode) {
  shape.validate();
  if (shape.channels != 1 && shape.channels != 2 && shape.channels != 4)
    return "channels must be 1, 2 or 4, got " + std::to_string(shape.channels);
  if (fields < 1) return "fields must be >= 1";
  const std::string no_device = cuda_unavailable_reason();
  if (!no_device.empty()) return no_device;
  TextureLayout layout;
  return plan_texture_layout(shape, fields, mode, device_limits(), layout);
}

TextureLayout TextureField::plan(const GridShape& shape, std::int64_t fields, Mode mode) {
  shape.validate();
  if (fields < 1) throw Error("gpu_texture: fields must be >= 1");
  TextureLayout layout;
  const std::string why = plan_texture_layout(shape, fields, mode, limits_or_unbounded(), layout);
  if (!why.empty()) throw Unsupported("gpu_texture: " + why);
  return layout;
}

double TextureField::interp_error_factor(const GridShape& shape, std::int64_t fields, Mode mode) {
  return gpu::interp_error_factor(plan(shape, fields, mode));
}

void TextureField::bind(const GridShape& shape, std::int64_t fields, Mode mode, const float* d_coeffs,
                        cudaStream_t stream) {
  shape.validate();
  check_channels(shape.channels);
  if (fields < 1) throw Error("gpu_texture: fields must be >= 1");
  release();
  TextureLayout layout;
  const std::string why = plan_texture_layout(shape, fields, mode, device_limits(), layout);
  if (!why.empty()) throw Unsupported("gpu_texture: " + why);

  // The coefficients are already a sequence of bricks unless a wrapped copy or folding
  // changes them; otherwise pack them first (freed at the end of bind, after the copies).
  const int C = shape.channels;
  const std::int64_t bx = layout.brick_extent[0], by = layout.brick_extent[1], bz = layout.brick_extent[2];
  const std::int64_t brick_values = bx * by * bz * C;
  const bool packed = layout.pad || layout.folded;
  DeviceBuffer<float> staging;
  const float* src = d_coeffs;
  if (packed) {
    const std::int64_t total = layout.bricks * brick_values;
    staging.resize(static_cast<std::size_t>(total));
    const std::int64_t blocks = std::min<std::int64_t>((total + 255) / 256, 65536);
    pack_bricks_kernel<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(d_coeffs, staging.data(),
                                                                        pack_params(layout));
    SB_CUDA_CHECK_LAUNCH("pack_bricks_kernel");
    src = staging.data();
  }

  const cudaChannelFormatDesc desc = channel_desc(C);
  const std::size_t elem = sizeof(float) * static_cast<std::size_t>(C);
  const auto& t = layout.texels;
  const std::int64_t tx = layout.tiles[0], ty = layout.tiles[1], tz = layout.tiles[2];
  if (shape.dims == 1) {
    // Bricks are rows, stacked down a column of ty rows, columns side by side.
    SB_CUDA_CHECK(cudaMallocArray(&array_, &desc, static_cast<std::size_t>(t[0]), static_cast<std::size_t>(t[1])));
    for (std::int64_t column = 0; column < tx; ++column) {
      const std::int64_t first = column * ty;
      const std::int64_t count = std::min(ty, layout.bricks - first);
      SB_CUDA_CHECK(cudaMemcpy2DToArrayAsync(array_, static_cast<std::size_t>(column * bx) * elem, 0,
                                             src + first * brick_values, bx * elem, bx * elem,
                                             static_cast<std::size_t>(count), cudaMemcpyDeviceToDevice, stream));
    }
  } else {
    SB_CUDA_CHECK(cudaMalloc3DArray(&array_, &desc,
                                    make_cudaExtent(static_cast<std::size_t>(t[0]), static_cast<std::size_t>(t[1]),
                                                    static_cast<std::size_t>(t[2])),
                                    shape.dims == 2 ? cudaArrayLayered : 0));
    // One copy per column of bricks stacked along depth / layers (one copy in total
    // unless the bricks overflow the depth or layer limit).
    for (std::int64_t column = 0; column * tz < layout.bricks; ++column) {
      const std::int64_t first = column * tz;
      const std::int64_t count = std::min(tz, layout.bricks - first);
      cudaMemcpy3DParms copy{};
      copy.srcPtr = make_cudaPitchedPtr(const_cast<float*>(src + first * brick_values), bx * elem,
                                        static_cast<std::size_t>(bx), static_cast<std::size_t>(by));
      copy.dstArray = array_;
      copy.dstPos = make_cudaPos(static_cast<std::size_t>((column / ty) * bx),
                                 static_cast<std::size_t>((column % ty) * by), 0);
      copy.extent = make_cudaExtent(static_cast<std::size_t>(bx), static_cast<std::size_t>(by),
                                    static_cast<std::size_t>(count * bz));
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
  if (packed) SB_CUDA_CHECK(cudaStreamSynchronize(stream));  // the staging copy is freed below
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
    p.slab_extent[a] = L.brick_extent[a];
    p.tiles[a] = L.tiles[a];
    p.segments[a] = L.segments[a];
    p.seg_stride[a] = L.stride[a];
  }
  const Kernel kernel = pick_kernel(L.dims, L.channels, d_records != nullptr, L.bricked);
  const unsigned blocks = static_cast<unsigned>((n + kBlock - 1) / kBlock);
  for (std::int64_t first = 0; first < L.fields; first += kMaxGridY) {
    p.field_offset = first;
    const unsigned chunk = static_cast<unsigned>(std::min(kMaxGridY, L.fields - first));
    kernel<<<dim3(blocks, chunk), kBlock, 0, stream>>>(p);
    SB_CUDA_CHECK_LAUNCH("texture_eval kernel");
  }
}

}  // namespace splinebench::gpu
