// A sample of C channels (C = 1, 2, 4) held in registers as T (float or double), with
// the vector loads and stores that match it (float/float2/float4, double/double2;
// samples are C-aligned in every layout of implementation.hpp, so the wide accesses
// are aligned). Reduced-precision storage (__half, __nv_bfloat16) loads widen to float:
// the arithmetic stays float32, only the stored coefficients are narrow.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <type_traits>

namespace splinebench::gpu::detail {

template <int C, typename T = float>
struct Vec {
  static_assert(C == 1 || C == 2 || C == 4, "channels must be 1, 2 or 4");
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "float or double arithmetic");
  T v[C];

  __device__ __forceinline__ static Vec zero() {
    Vec r;
#pragma unroll
    for (int c = 0; c < C; ++c) r.v[c] = T(0);
    return r;
  }
  __device__ __forceinline__ static Vec nan() {
    Vec r;
#pragma unroll
    for (int c = 0; c < C; ++c) {
      if constexpr (std::is_same_v<T, float>)
        r.v[c] = __int_as_float(0x7fc00000);
      else
        r.v[c] = __longlong_as_double(0x7ff8000000000000LL);
    }
    return r;
  }
  // this += w * x
  __device__ __forceinline__ void fma(T w, const Vec& x) {
#pragma unroll
    for (int c = 0; c < C; ++c) {
      if constexpr (std::is_same_v<T, float>)
        v[c] = fmaf(w, x.v[c], v[c]);
      else
        v[c] = ::fma(w, x.v[c], v[c]);
    }
  }
  __device__ __forceinline__ Vec scaled(T w) const {
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

template <int C>
__device__ __forceinline__ Vec<C, double> load_ro(const double* p) {
  Vec<C, double> r;
  if constexpr (C == 1) {
    r.v[0] = __ldg(p);
  } else {
#pragma unroll
    for (int h = 0; h < C / 2; ++h) {
      const double2 t = __ldg(reinterpret_cast<const double2*>(p) + h);
      r.v[2 * h] = t.x, r.v[2 * h + 1] = t.y;
    }
  }
  return r;
}

// __half / __nv_bfloat16 storage, widened to float. C = 4 is one 8-byte load.
template <int C, typename Half, typename Half2>
__device__ __forceinline__ Vec<C> load_ro_reduced(const Half* p) {
  Vec<C> r;
  const auto widen = [](Half h) { return static_cast<float>(h); };
  if constexpr (C == 1) {
    r.v[0] = widen(__ldg(p));
  } else if constexpr (C == 2) {
    const Half2 t = __ldg(reinterpret_cast<const Half2*>(p));
    r.v[0] = widen(t.x), r.v[1] = widen(t.y);
  } else {
    const uint2 bits = __ldg(reinterpret_cast<const uint2*>(p));
    const Half2 lo = *reinterpret_cast<const Half2*>(&bits.x);
    const Half2 hi = *reinterpret_cast<const Half2*>(&bits.y);
    r.v[0] = widen(lo.x), r.v[1] = widen(lo.y), r.v[2] = widen(hi.x), r.v[3] = widen(hi.y);
  }
  return r;
}

template <int C>
__device__ __forceinline__ Vec<C> load_ro(const __half* p) {
  return load_ro_reduced<C, __half, __half2>(p);
}

template <int C>
__device__ __forceinline__ Vec<C> load_ro(const __nv_bfloat16* p) {
  return load_ro_reduced<C, __nv_bfloat16, __nv_bfloat162>(p);
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
__device__ __forceinline__ Vec<C, double> load(const double* p) {
  Vec<C, double> r;
  if constexpr (C == 1) {
    r.v[0] = *p;
  } else {
#pragma unroll
    for (int h = 0; h < C / 2; ++h) {
      const double2 t = reinterpret_cast<const double2*>(p)[h];
      r.v[2 * h] = t.x, r.v[2 * h + 1] = t.y;
    }
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

template <int C>
__device__ __forceinline__ void store(double* p, const Vec<C, double>& x) {
  if constexpr (C == 1) {
    *p = x.v[0];
  } else {
#pragma unroll
    for (int h = 0; h < C / 2; ++h) reinterpret_cast<double2*>(p)[h] = make_double2(x.v[2 * h], x.v[2 * h + 1]);
  }
}

}  // namespace splinebench::gpu::detail
