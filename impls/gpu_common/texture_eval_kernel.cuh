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
//
// Two kernel families: the direct ones for the plain layouts (one row / layer per
// field, slabs along depth), and the Bricked ones for folded or stacked layouts
// (texture_layout.hpp), where each fetch first finds the brick holding its pair of
// texels (fold_segment per axis) and adds that brick's origin.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "gpu_common/axis_math.cuh"
#include "gpu_common/device_vec.cuh"
#include "gpu_common/texture_layout.hpp"

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
  int slab_extent[3];   // texels of one brick (plain layouts: one padded slab) along x, y, z
  int tiles[3];         // bricks along x, y, z of the array
  int segments[3];      // Bricked: segments per filtered axis (x, y, z), 1 where not folded
  int seg_stride[3];    // Bricked: padded texels between segment starts
};

// The two fetch positions (texture coordinates, centre shift included) and weights
// along one axis.
struct AxisFetches {
  float pos[2];
  float g[2];
};

// One blended pair as stored texels: the fetch returns (1 - u) tex[j] + u tex[j + 1].
struct TexelPair {
  int j;
  float u;
};

// The stored pair and blend weight at which a linear fetch returns
// (1 - t) c~[k] + t c~[k+1], c~ being the mode's extension of the n stored texels.
__device__ __forceinline__ TexelPair pair_texels(int mode, int k, int n, int period, float t) {
  const int j0 = fold_tap(mode, k, n, period);
  if (mode == 2) return {j0, t};  // texel n is a copy of texel 0
  const int j1 = fold_tap(mode, k + 1, n, period);
  if (j1 == j0 + 1) return {j0, t};
  if (j1 + 1 == j0) return {j1, 1.0f - t};
  return {j0, 0.0f};  // both taps on one texel: its centre, blend weight 0
}

// Both pairs of one axis, with the weights g that multiply their fetches.
struct AxisPairs {
  TexelPair p[2];
  float g[2];
};

__device__ __forceinline__ AxisPairs axis_pairs(float x, int mode, int n, int period) {
  const AxisPoint pt = locate(x, period);
  float w[4];
  tap_weights(pt.a, w);
  AxisPairs f;
  f.g[0] = w[0] + w[1];  // >= 1/6, so the divisions below are safe
  f.g[1] = w[2] + w[3];
  const float t0 = __fdividef(w[1], f.g[0]);
  const float t1 = __fdividef(w[3], f.g[1]);
  const int k = pt.cell - 1;
  if (k >= 0 && k + 3 < n) {  // all four taps inside: no folding
    f.p[0] = {k, t0};
    f.p[1] = {k + 2, t1};
  } else {
    f.p[0] = pair_texels(mode, k, n, period, t0);
    f.p[1] = pair_texels(mode, k + 2, n, period, t1);
  }
  return f;
}

__device__ __forceinline__ AxisFetches axis_fetches(float x, int mode, int n, int period) {
  const AxisPairs q = axis_pairs(x, mode, n, period);
  AxisFetches f;
#pragma unroll
  for (int a = 0; a < 2; ++a) {
    f.pos[a] = (static_cast<float>(q.p[a].j) + 0.5f) + q.p[a].u;
    f.g[a] = q.g[a];
  }
  return f;
}

// Bricked layouts: fetch positions inside the pair's segment, and the segments.
struct BrickedAxisFetches {
  float pos[2];
  float g[2];
  int seg[2];
};

__device__ __forceinline__ BrickedAxisFetches bricked_axis_fetches(float x, int mode, int n, int period,
                                                                   int stride, int segments) {
  const AxisPairs q = axis_pairs(x, mode, n, period);
  BrickedAxisFetches f;
#pragma unroll
  for (int a = 0; a < 2; ++a) {
    f.seg[a] = fold_segment(q.p[a].j, stride, segments);
    f.pos[a] = (static_cast<float>(q.p[a].j - f.seg[a] * stride) + 0.5f) + q.p[a].u;
    f.g[a] = q.g[a];
  }
  return f;
}

// Texel origin of brick b (texture_layout.hpp's brick_origin, as floats).
__device__ __forceinline__ void brick_origin_f(const TextureEvalParams& p, int b, float& ox, float& oy,
                                               float& oz) {
  int x, y, z;
  brick_origin(b, p.tiles, p.slab_extent, x, y, z);
  ox = static_cast<float>(x), oy = static_cast<float>(y), oz = static_cast<float>(z);
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

// D = 1: a 2-D array with one row per field (Bricked: one row per segment of a field,
// rows stacked along height, then columns along width); the row coordinate sits on
// the texel centre, so its blend weight is exactly 0.
template <int C, bool Records, bool Bricked>
__global__ void __launch_bounds__(256) texture_eval_1d(const TextureEvalParams p) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= p.n) return;
  const std::int64_t field = p.field_offset + blockIdx.y;
  std::int64_t q;
  float x[1];
  const bool finite = load_query<1, Records>(p, i, q, x);
  float* out = p.out + (field * p.n + q) * C;
  if (!finite) return store<C>(out, Vec<C>::nan());
  Vec<C> acc = Vec<C>::zero();
  if constexpr (Bricked) {
    const BrickedAxisFetches ax =
        bricked_axis_fetches(x[0], p.mode, p.extent[0], p.period[0], p.seg_stride[0], p.segments[0]);
    const int first = static_cast<int>(field) * p.segments[0];
#pragma unroll
    for (int a = 0; a < 2; ++a) {
      float ox, oy, oz;
      brick_origin_f(p, first + ax.seg[a], ox, oy, oz);
      acc.fma(ax.g[a], fetch_2d<C>(p.texture, ax.pos[a] + ox, oy + 0.5f));
    }
  } else {
    const AxisFetches ax = axis_fetches(x[0], p.mode, p.extent[0], p.period[0]);
    const float row = static_cast<float>(field) + 0.5f;
#pragma unroll
    for (int a = 0; a < 2; ++a) acc.fma(ax.g[a], fetch_2d<C>(p.texture, ax.pos[a], row));
  }
  store<C>(out, acc);
}

// D = 2: a layered 2-D array, one layer per field (Bricked: one layer per brick of
// segments, layers first, then bricks stacked along height and width).
template <int C, bool Records, bool Bricked>
__global__ void __launch_bounds__(256) texture_eval_2d(const TextureEvalParams p) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= p.n) return;
  const std::int64_t field = p.field_offset + blockIdx.y;
  std::int64_t q;
  float x[2];
  const bool finite = load_query<2, Records>(p, i, q, x);
  float* out = p.out + (field * p.n + q) * C;
  if (!finite) return store<C>(out, Vec<C>::nan());
  Vec<C> acc = Vec<C>::zero();
  if constexpr (Bricked) {
    const BrickedAxisFetches ay =  // rows: height
        bricked_axis_fetches(x[0], p.mode, p.extent[0], p.period[0], p.seg_stride[1], p.segments[1]);
    const BrickedAxisFetches ax =  // last axis: width
        bricked_axis_fetches(x[1], p.mode, p.extent[1], p.period[1], p.seg_stride[0], p.segments[0]);
    const int first = static_cast<int>(field) * p.segments[1];
#pragma unroll
    for (int b = 0; b < 2; ++b) {
      Vec<C> row = Vec<C>::zero();
#pragma unroll
      for (int a = 0; a < 2; ++a) {
        float ox, oy, oz;
        brick_origin_f(p, (first + ay.seg[b]) * p.segments[0] + ax.seg[a], ox, oy, oz);
        row.fma(ax.g[a], fetch_layered<C>(p.texture, ax.pos[a] + ox, ay.pos[b] + oy, static_cast<int>(oz)));
      }
      acc.fma(ay.g[b], row);
    }
  } else {
    const AxisFetches ay = axis_fetches(x[0], p.mode, p.extent[0], p.period[0]);  // rows: height
    const AxisFetches ax = axis_fetches(x[1], p.mode, p.extent[1], p.period[1]);  // last axis: width
    const int layer = static_cast<int>(field);
#pragma unroll
    for (int b = 0; b < 2; ++b) {
      Vec<C> row = Vec<C>::zero();
#pragma unroll
      for (int a = 0; a < 2; ++a) row.fma(ax.g[a], fetch_layered<C>(p.texture, ax.pos[a], ay.pos[b], layer));
      acc.fma(ay.g[b], row);
    }
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
  brick_origin_f(p, s, ox, oy, oz);
}

// The same sum over a folded slab: each fetch finds the brick of its three pairs.
template <int C>
__device__ __forceinline__ Vec<C> bricked_slab_sum(const TextureEvalParams& p, const BrickedAxisFetches& ax,
                                                   const BrickedAxisFetches& ay, const BrickedAxisFetches& az,
                                                   int slab) {
  Vec<C> acc = Vec<C>::zero();
#pragma unroll
  for (int c = 0; c < 2; ++c) {
    Vec<C> plane = Vec<C>::zero();
    const int bz = slab * p.segments[2] + az.seg[c];
#pragma unroll
    for (int b = 0; b < 2; ++b) {
      Vec<C> row = Vec<C>::zero();
      const int by = bz * p.segments[1] + ay.seg[b];
#pragma unroll
      for (int a = 0; a < 2; ++a) {
        float ox, oy, oz;
        brick_origin_f(p, by * p.segments[0] + ax.seg[a], ox, oy, oz);
        row.fma(ax.g[a], fetch_3d<C>(p.texture, ax.pos[a] + ox, ay.pos[b] + oy, az.pos[c] + oz));
      }
      plane.fma(ay.g[b], row);
    }
    acc.fma(az.g[c], plane);
  }
  return acc;
}

template <typename T>
__device__ __forceinline__ T pick4(const T (&v)[4], int t) {
  return t == 0 ? v[0] : t == 1 ? v[1] : t == 2 ? v[2] : v[3];
}

// Sum over the 4 taps of outer axes [L, O) (looped), each a slab index offset, then
// the 3-D slab. Only the 4^(D-3) slabs the query touches are visited.
template <int O, int L, int C, typename Fetches>
__device__ __forceinline__ Vec<C> outer_slabs(const TextureEvalParams& p, const float (&ow)[O > 0 ? O : 1][4],
                                              const int (&oslab)[O > 0 ? O : 1][4], int slab, const Fetches& ax,
                                              const Fetches& ay, const Fetches& az) {
  if constexpr (L == O) {
    if constexpr (std::is_same_v<Fetches, BrickedAxisFetches>) {
      return bricked_slab_sum<C>(p, ax, ay, az, slab);
    } else {
      float ox, oy, oz;
      slab_origin(p, slab, ox, oy, oz);
      return slab_sum<C>(p.texture, ax, ay, az, ox, oy, oz);
    }
  } else {
    Vec<C> acc = Vec<C>::zero();
    // D = 4: unrolled, so all 32 fetches can be in flight at once; deeper nests loop.
#pragma unroll(O == 1 ? 4 : 1)
    for (int t = 0; t < 4; ++t)
      acc.fma(pick4(ow[L], t), outer_slabs<O, L + 1, C>(p, ow, oslab, slab + pick4(oslab[L], t), ax, ay, az));
    return acc;
  }
}

// The three filtered axes' fetches of a query (last axis = x).
template <int D>
__device__ __forceinline__ void inner_fetches(const TextureEvalParams& p, const float (&x)[D], AxisFetches& ax,
                                              AxisFetches& ay, AxisFetches& az) {
  constexpr int O = D - 3;
  az = axis_fetches(x[O], p.mode, p.extent[O], p.period[O]);
  ay = axis_fetches(x[O + 1], p.mode, p.extent[O + 1], p.period[O + 1]);
  ax = axis_fetches(x[O + 2], p.mode, p.extent[O + 2], p.period[O + 2]);
}
template <int D>
__device__ __forceinline__ void inner_fetches(const TextureEvalParams& p, const float (&x)[D],
                                              BrickedAxisFetches& ax, BrickedAxisFetches& ay,
                                              BrickedAxisFetches& az) {
  constexpr int O = D - 3;
  az = bricked_axis_fetches(x[O], p.mode, p.extent[O], p.period[O], p.seg_stride[2], p.segments[2]);
  ay = bricked_axis_fetches(x[O + 1], p.mode, p.extent[O + 1], p.period[O + 1], p.seg_stride[1], p.segments[1]);
  ax = bricked_axis_fetches(x[O + 2], p.mode, p.extent[O + 2], p.period[O + 2], p.seg_stride[0], p.segments[0]);
}

// D >= 3: one 3-D array holding every slab (last three axes) of every field (Bricked:
// every brick of segments of every slab).
template <int D, int C, bool Records, bool Bricked>
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
  using Fetches = std::conditional_t<Bricked, BrickedAxisFetches, AxisFetches>;
  Fetches ax, ay, az;
  inner_fetches<D>(p, x, ax, ay, az);
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
  store<C>(out, outer_slabs<O, 0, C, Fetches>(p, ow, oslab, slab, ax, ay, az));
}

}  // namespace splinebench::gpu::detail
