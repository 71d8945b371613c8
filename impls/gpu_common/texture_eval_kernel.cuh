// Device side of TextureField::evaluate: cubic B-spline evaluation with hardware
// linear filtering (Sigg & Hadwiger's trick, as in Ruijters' code and the thesis).
//
// Along one axis the 4 taps i-1..i+2 with weights w0..w3 are two blends:
//   w0 c[i-1] + w1 c[i] = g0 * lerp(c[i-1], c[i], w1/g0),  g0 = w0 + w1,
//   w2 c[i+1] + w3 c[i+2] = g1 * lerp(c[i+1], c[i+2], w3/g1), g1 = w2 + w3,
// and the texture unit does each lerp in one fetch. The taps are indices of the mode's
// extension; each pair is mapped onto two neighbouring texels of the stored slab
// (reversed when the extension reflects between them, one texel when both fold onto
// it, the wrapped copy at index N for periodic), so the texture never needs an
// address mode that matches the extension, and coordinates far outside fold exactly.
// Texel k's centre is at k + 0.5 (the half-texel shift).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "gpu_common/axis_math.cuh"
#include "gpu_common/device_vec.cuh"

namespace splinebench::gpu::detail {

struct TextureEvalParams {
  cudaTextureObject_t texture;
  const float* coords;
  const std::uint32_t* records;  // Records kernels: n records {x_0..x_{D-1}, query index}
  float* out;
  std::int64_t n;             // queries
  std::int64_t field_offset;  // field of blockIdx.y == 0
  int mode;
  int extent[6];
  int period[6];
  int outer_stride[3];  // slabs between neighbours along outer axis d (D >= 4)
  int slabs_per_field;  // product of the outer extents (1 for D <= 3)
  int slab_extent[3];   // padded W, H, depth of one slab
  int tiles[3];         // slabs along width, height, depth of the 3-D array
};

// The two fetch positions (texture coordinates, centre shift included) and weights
// along one axis.
struct AxisFetches {
  float pos[2];
  float g[2];
};

// Texture coordinate at which a linear fetch returns (1 - t) c~[k] + t c~[k+1], c~
// being the mode's extension of the n stored texels.
__device__ __forceinline__ float pair_coordinate(int mode, int k, int n, int period, float t) {
  const int j0 = fold_tap(mode, k, n, period);
  if (mode == 2) return (static_cast<float>(j0) + 0.5f) + t;  // texel n is a copy of texel 0
  const int j1 = fold_tap(mode, k + 1, n, period);
  if (j1 == j0 + 1) return (static_cast<float>(j0) + 0.5f) + t;
  if (j1 + 1 == j0) return (static_cast<float>(j1) + 0.5f) + (1.0f - t);
  return static_cast<float>(j0) + 0.5f;  // both taps on one texel: its centre, blend weight 0
}

__device__ __forceinline__ AxisFetches axis_fetches(float x, int mode, int n, int period) {
  const AxisPoint pt = locate(x, period);
  float w[4];
  tap_weights(pt.a, w);
  AxisFetches f;
  f.g[0] = w[0] + w[1];  // >= 1/6, so the divisions below are safe
  f.g[1] = w[2] + w[3];
  const float t0 = __fdividef(w[1], f.g[0]);
  const float t1 = __fdividef(w[3], f.g[1]);
  const int k = pt.cell - 1;
  if (k >= 0 && k + 3 < n) {  // all four taps inside: no folding
    f.pos[0] = (static_cast<float>(k) + 0.5f) + t0;
    f.pos[1] = (static_cast<float>(k + 2) + 0.5f) + t1;
  } else {
    f.pos[0] = pair_coordinate(mode, k, n, period, t0);
    f.pos[1] = pair_coordinate(mode, k + 2, n, period, t1);
  }
  return f;
}

template <int C>
__device__ __forceinline__ Vec<C> to_vec(float v) {
  Vec<C> r;
  r.v[0] = v;
  return r;
}
template <int C>
__device__ __forceinline__ Vec<C> to_vec(float2 v) {
  Vec<C> r;
  r.v[0] = v.x, r.v[1] = v.y;
  return r;
}
template <int C>
__device__ __forceinline__ Vec<C> to_vec(float4 v) {
  Vec<C> r;
  r.v[0] = v.x, r.v[1] = v.y, r.v[2] = v.z, r.v[3] = v.w;
  return r;
}

template <int C>
using Texel = std::conditional_t<C == 1, float, std::conditional_t<C == 2, float2, float4>>;

template <int C>
__device__ __forceinline__ Vec<C> fetch_2d(cudaTextureObject_t t, float x, float y) {
  return to_vec<C>(tex2D<Texel<C>>(t, x, y));
}
template <int C>
__device__ __forceinline__ Vec<C> fetch_layered(cudaTextureObject_t t, float x, float y, int layer) {
  return to_vec<C>(tex2DLayered<Texel<C>>(t, x, y, layer));
}
template <int C>
__device__ __forceinline__ Vec<C> fetch_3d(cudaTextureObject_t t, float x, float y, float z) {
  return to_vec<C>(tex3D<Texel<C>>(t, x, y, z));
}

// Thread i's query: coordinates and the index its result goes to. Direct: query i
// from the (D, n) coordinates. Records: record i of D + 1 words (the binned order).
template <int D, bool Records>
__device__ __forceinline__ bool load_query(const TextureEvalParams& p, std::int64_t i, std::int64_t& q,
                                           float (&x)[D]) {
  if constexpr (Records) {
    const std::uint32_t* r = p.records + i * (D + 1);
    std::uint32_t w[D + 1];
    if constexpr (D + 1 == 4) {  // 16-byte records: one wide load
      const uint4 v = __ldg(reinterpret_cast<const uint4*>(r));
      w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
    } else if constexpr (D + 1 == 2) {
      const uint2 v = __ldg(reinterpret_cast<const uint2*>(r));
      w[0] = v.x, w[1] = v.y;
    } else {
#pragma unroll
      for (int k = 0; k <= D; ++k) w[k] = __ldg(r + k);
    }
#pragma unroll
    for (int d = 0; d < D; ++d) x[d] = __uint_as_float(w[d]);
    q = static_cast<std::int64_t>(w[D]);
  } else {
    q = i;
#pragma unroll
    for (int d = 0; d < D; ++d) x[d] = __ldg(p.coords + d * p.n + q);
  }
  bool finite = true;
#pragma unroll
  for (int d = 0; d < D; ++d) finite = finite && isfinite(x[d]);
  return finite;
}

// Every kernel takes thread i to query i, or with Records to the query of record i
// (results still land at the query's own index): evaluation in a cache-friendly order.

// D = 1: a 2-D array with one row per field; the row coordinate sits on the texel
// centre, so its blend weight is exactly 0.
template <int C, bool Records>
__global__ void __launch_bounds__(256) texture_eval_1d(const TextureEvalParams p) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= p.n) return;
  const std::int64_t field = p.field_offset + blockIdx.y;
  std::int64_t q;
  float x[1];
  const bool finite = load_query<1, Records>(p, i, q, x);
  float* out = p.out + (field * p.n + q) * C;
  if (!finite) return store<C>(out, Vec<C>::nan());
  const AxisFetches ax = axis_fetches(x[0], p.mode, p.extent[0], p.period[0]);
  const float row = static_cast<float>(field) + 0.5f;
  Vec<C> acc = Vec<C>::zero();
#pragma unroll
  for (int a = 0; a < 2; ++a) acc.fma(ax.g[a], fetch_2d<C>(p.texture, ax.pos[a], row));
  store<C>(out, acc);
}

// D = 2: a layered 2-D array, one layer per field.
template <int C, bool Records>
__global__ void __launch_bounds__(256) texture_eval_2d(const TextureEvalParams p) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= p.n) return;
  const std::int64_t field = p.field_offset + blockIdx.y;
  std::int64_t q;
  float x[2];
  const bool finite = load_query<2, Records>(p, i, q, x);
  float* out = p.out + (field * p.n + q) * C;
  if (!finite) return store<C>(out, Vec<C>::nan());
  const AxisFetches ay = axis_fetches(x[0], p.mode, p.extent[0], p.period[0]);  // rows: height
  const AxisFetches ax = axis_fetches(x[1], p.mode, p.extent[1], p.period[1]);  // last axis: width
  const int layer = static_cast<int>(field);
  Vec<C> acc = Vec<C>::zero();
#pragma unroll
  for (int b = 0; b < 2; ++b) {
    Vec<C> row = Vec<C>::zero();
#pragma unroll
    for (int a = 0; a < 2; ++a) row.fma(ax.g[a], fetch_layered<C>(p.texture, ax.pos[a], ay.pos[b], layer));
    acc.fma(ay.g[b], row);
  }
  store<C>(out, acc);
}

// The 8-fetch tricubic sum over one 3-D slab whose texel origin is (ox, oy, oz).
template <int C>
__device__ __forceinline__ Vec<C> slab_sum(cudaTextureObject_t t, const AxisFetches& ax, const AxisFetches& ay,
                                           const AxisFetches& az, float ox, float oy, float oz) {
  Vec<C> acc = Vec<C>::zero();
#pragma unroll
  for (int c = 0; c < 2; ++c) {
    Vec<C> plane = Vec<C>::zero();
#pragma unroll
    for (int b = 0; b < 2; ++b) {
      Vec<C> row = Vec<C>::zero();
#pragma unroll
      for (int a = 0; a < 2; ++a) row.fma(ax.g[a], fetch_3d<C>(t, ax.pos[a] + ox, ay.pos[b] + oy, az.pos[c] + oz));
      plane.fma(ay.g[b], row);
    }
    acc.fma(az.g[c], plane);
  }
  return acc;
}

// Texel origin of slab s in the 3-D array (slabs tiled along depth, then height, then width).
__device__ __forceinline__ void slab_origin(const TextureEvalParams& p, int s, float& ox, float& oy, float& oz) {
  if (p.tiles[0] == 1 && p.tiles[1] == 1) {
    ox = 0.0f, oy = 0.0f, oz = static_cast<float>(s * p.slab_extent[2]);
    return;
  }
  const int z = s % p.tiles[2];
  const int rest = s / p.tiles[2];
  const int y = rest % p.tiles[1];
  const int x = rest / p.tiles[1];
  ox = static_cast<float>(x * p.slab_extent[0]);
  oy = static_cast<float>(y * p.slab_extent[1]);
  oz = static_cast<float>(z * p.slab_extent[2]);
}

template <typename T>
__device__ __forceinline__ T pick4(const T (&v)[4], int t) {
  return t == 0 ? v[0] : t == 1 ? v[1] : t == 2 ? v[2] : v[3];
}

// Sum over the 4 taps of outer axes [L, O) (looped), each a slab index offset, then
// the 3-D slab. Only the 4^(D-3) slabs the query touches are visited.
template <int O, int L, int C>
__device__ __forceinline__ Vec<C> outer_slabs(const TextureEvalParams& p, const float (&ow)[O > 0 ? O : 1][4],
                                              const int (&oslab)[O > 0 ? O : 1][4], int slab, const AxisFetches& ax,
                                              const AxisFetches& ay, const AxisFetches& az) {
  if constexpr (L == O) {
    float ox, oy, oz;
    slab_origin(p, slab, ox, oy, oz);
    return slab_sum<C>(p.texture, ax, ay, az, ox, oy, oz);
  } else {
    Vec<C> acc = Vec<C>::zero();
    // D = 4: unrolled, so all 32 fetches can be in flight at once; deeper nests loop.
#pragma unroll(O == 1 ? 4 : 1)
    for (int t = 0; t < 4; ++t)
      acc.fma(pick4(ow[L], t), outer_slabs<O, L + 1, C>(p, ow, oslab, slab + pick4(oslab[L], t), ax, ay, az));
    return acc;
  }
}

// D >= 3: one 3-D array holding every slab (last three axes) of every field.
template <int D, int C, bool Records>
__global__ void __launch_bounds__(256) texture_eval_3d(const TextureEvalParams p) {
  constexpr int O = D - 3;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= p.n) return;
  const std::int64_t field = p.field_offset + blockIdx.y;
  std::int64_t q;
  float x[D];
  const bool finite = load_query<D, Records>(p, i, q, x);
  float* out = p.out + (field * p.n + q) * C;
  if (!finite) return store<C>(out, Vec<C>::nan());
  const AxisFetches az = axis_fetches(x[O], p.mode, p.extent[O], p.period[O]);
  const AxisFetches ay = axis_fetches(x[O + 1], p.mode, p.extent[O + 1], p.period[O + 1]);
  const AxisFetches ax = axis_fetches(x[O + 2], p.mode, p.extent[O + 2], p.period[O + 2]);
  float ow[O > 0 ? O : 1][4];
  int oslab[O > 0 ? O : 1][4];
#pragma unroll
  for (int d = 0; d < O; ++d) {
    const AxisPoint pt = locate(x[d], p.period[d]);
    tap_weights(pt.a, ow[d]);
#pragma unroll
    for (int t = 0; t < 4; ++t)
      oslab[d][t] = fold_tap(p.mode, pt.cell + t - 1, p.extent[d], p.period[d]) * p.outer_stride[d];
  }
  const int slab = static_cast<int>(field) * p.slabs_per_field;
  store<C>(out, outer_slabs<O, 0, C>(p, ow, oslab, slab, ax, ay, az));
}

}  // namespace splinebench::gpu::detail
