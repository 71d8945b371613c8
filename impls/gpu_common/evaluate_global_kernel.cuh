// Device side of evaluate_global: one thread per (query, field), 4^D coefficient loads
// from global memory through the read-only cache.
//
// The last K = min(D, 3) axes are summed with fully unrolled loops over register arrays
// (indices are compile-time constants, so nothing spills to local memory); the D - K
// outer axes are looped over (4 taps each), picking their weight and offset with
// selects. The sum is nested axis by axis (4 terms per level), so the rounding error
// grows with D, not with 4^D, like cpu_scalar's.
//
// S is the coefficients' storage type, R the arithmetic (and coordinate and value)
// type: <float, float> for the f32 implementations, <double, double> for gpu_f64,
// <__half or __nv_bfloat16, float> for gpu_half (loads widen to float).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu_common/axis_math.cuh"
#include "gpu_common/device_vec.cuh"

namespace splinebench::gpu::detail {

template <typename S, typename R>
struct GlobalEvalParams {
  const S* coeffs;
  const R* coords;
  R* out;
  std::int64_t n;             // queries
  std::int64_t field_values;  // values (of S) per field
  std::int64_t field_offset;  // field of blockIdx.y == 0 (launches are chunked by 65535 fields)
  int mode;
  int extent[6];
  int period[6];
  std::int64_t stride[6];  // values between neighbours along each axis
};

template <typename T>
__device__ __forceinline__ T select4(const T (&v)[4], int t) {
  return t == 0 ? v[0] : t == 1 ? v[1] : t == 2 ? v[2] : v[3];
}

// Sum over the taps of inner levels [L, K) (unrolled).
template <int K, int L, int C, typename Index, typename S, typename R>
__device__ __forceinline__ Vec<C, R> inner_sum(const S* base, const R (&w)[K][4], const Index (&off)[K][4]) {
  Vec<C, R> acc = Vec<C, R>::zero();
#pragma unroll
  for (int t = 0; t < 4; ++t) {
    if constexpr (L + 1 == K)
      acc.fma(w[L][t], load_ro<C>(base + off[L][t]));
    else
      acc.fma(w[L][t], inner_sum<K, L + 1, C, Index>(base + off[L][t], w, off));
  }
  return acc;
}

// Sum over the taps of outer levels [L, O) (looped), then the inner block.
template <int O, int L, int K, int C, typename Index, typename S, typename R>
__device__ __forceinline__ Vec<C, R> outer_sum(const S* base, const R (&ow)[O > 0 ? O : 1][4],
                                               const Index (&ooff)[O > 0 ? O : 1][4], const R (&w)[K][4],
                                               const Index (&off)[K][4]) {
  if constexpr (L == O) {
    return inner_sum<K, 0, C, Index>(base, w, off);
  } else {
    Vec<C, R> acc = Vec<C, R>::zero();
    // D = 4: unrolled (256 independent loads per thread); deeper nests loop.
#pragma unroll(O == 1 ? 4 : 1)
    for (int t = 0; t < 4; ++t)
      acc.fma(select4(ow[L], t), outer_sum<O, L + 1, K, C, Index>(base + select4(ooff[L], t), ow, ooff, w, off));
    return acc;
  }
}

// Weights and folded offsets of the 4 taps along `axis` for coordinate x.
template <typename Index, typename S, typename R>
__device__ __forceinline__ void axis_taps(const GlobalEvalParams<S, R>& p, int axis, R x, R (&w)[4],
                                          Index (&off)[4]) {
  const AxisPointOf<R> pt = locate(x, p.period[axis]);
  tap_weights(pt.a, w);
  const Index stride = static_cast<Index>(p.stride[axis]);
#pragma unroll
  for (int t = 0; t < 4; ++t)
    off[t] = static_cast<Index>(fold_tap(p.mode, pt.cell + t - 1, p.extent[axis], p.period[axis])) * stride;
}

template <int D, int C, typename Index, typename S, typename R>
__global__ void __launch_bounds__(256) evaluate_global_kernel(const GlobalEvalParams<S, R> p) {
  constexpr int K = D < 3 ? D : 3;  // unrolled inner axes O..D-1
  constexpr int O = D - K;          // looped outer axes 0..O-1
  const std::int64_t q = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= p.n) return;
  const std::int64_t field = p.field_offset + blockIdx.y;
  R* out = p.out + (field * p.n + q) * C;

  R x[D];
  bool finite = true;
#pragma unroll
  for (int d = 0; d < D; ++d) {
    x[d] = __ldg(p.coords + d * p.n + q);
    finite = finite && isfinite(x[d]);
  }
  if (!finite) {
    store<C>(out, Vec<C, R>::nan());
    return;
  }

  R w[K][4];
  Index off[K][4];
#pragma unroll
  for (int k = 0; k < K; ++k) axis_taps<Index>(p, O + k, x[O + k], w[k], off[k]);
  R ow[O > 0 ? O : 1][4];
  Index ooff[O > 0 ? O : 1][4];
#pragma unroll
  for (int d = 0; d < O; ++d) axis_taps<Index>(p, d, x[d], ow[d], ooff[d]);

  const S* base = p.coeffs + field * p.field_values;
  store<C>(out, outer_sum<O, 0, K, C, Index>(base, ow, ooff, w, off));
}

}  // namespace splinebench::gpu::detail
