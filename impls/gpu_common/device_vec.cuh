// A sample of C float channels (C = 1, 2, 4) held in registers, with the vector loads
// and stores that match it (float, float2, float4: samples are C-aligned in every
// layout of implementation.hpp, so the wide accesses are aligned).
#pragma once

#include <cuda_runtime.h>

namespace splinebench::gpu::detail {

template <int C>
struct Vec {
  static_assert(C == 1 || C == 2 || C == 4, "channels must be 1, 2 or 4");
  float v[C];

  __device__ __forceinline__ static Vec zero() {
    Vec r;
#pragma unroll
    for (int c = 0; c < C; ++c) r.v[c] = 0.0f;
    return r;
  }
  __device__ __forceinline__ static Vec nan() {
    Vec r;
#pragma unroll
    for (int c = 0; c < C; ++c) r.v[c] = __int_as_float(0x7fc00000);
    return r;
  }
  // this += w * x
  __device__ __forceinline__ void fma(float w, const Vec& x) {
#pragma unroll
    for (int c = 0; c < C; ++c) v[c] = fmaf(w, x.v[c], v[c]);
  }
  __device__ __forceinline__ Vec scaled(float w) const {
    Vec r;
#pragma unroll
    for (int c = 0; c < C; ++c) r.v[c] = w * v[c];
    return r;
  }
};

// Read-only loads (data that no thread of the kernel writes).
template <int C>
__device__ __forceinline__ Vec<C> load_ro(const float* p) {
  Vec<C> r;
  if constexpr (C == 1) {
    r.v[0] = __ldg(p);
  } else if constexpr (C == 2) {
    const float2 t = __ldg(reinterpret_cast<const float2*>(p));
    r.v[0] = t.x, r.v[1] = t.y;
  } else {
    const float4 t = __ldg(reinterpret_cast<const float4*>(p));
    r.v[0] = t.x, r.v[1] = t.y, r.v[2] = t.z, r.v[3] = t.w;
  }
  return r;
}

// Plain loads and stores (in-place filtering reads what it wrote).
template <int C>
__device__ __forceinline__ Vec<C> load(const float* p) {
  Vec<C> r;
  if constexpr (C == 1) {
    r.v[0] = *p;
  } else if constexpr (C == 2) {
    const float2 t = *reinterpret_cast<const float2*>(p);
    r.v[0] = t.x, r.v[1] = t.y;
  } else {
    const float4 t = *reinterpret_cast<const float4*>(p);
    r.v[0] = t.x, r.v[1] = t.y, r.v[2] = t.z, r.v[3] = t.w;
  }
  return r;
}

template <int C>
__device__ __forceinline__ void store(float* p, const Vec<C>& x) {
  if constexpr (C == 1) {
    *p = x.v[0];
  } else if constexpr (C == 2) {
    *reinterpret_cast<float2*>(p) = make_float2(x.v[0], x.v[1]);
  } else {
    *reinterpret_cast<float4*>(p) = make_float4(x.v[0], x.v[1], x.v[2], x.v[3]);
  }
}

}  // namespace splinebench::gpu::detail
