// Device side of evaluate_global: one thread per (query, field), 4^D coefficient loads
// from global memory through the read-only cache.
//
// The last K = min(D, 3) axes are summed with fully unrolled loops over register arrays
// (indices are compile-time constants, so nothing spills to local memory); the D - K
// outer axes are looped over (4 taps each), picking their weight and offset with
// selects. The sum is nested axis by axis (4 terms per level), so the rounding error
// grows with D, not with 4^D, like cpu_scalar's.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu_naive/axis_math.cuh"
#include "gpu_naive/device_vec.cuh"

namespace splinebench::gpu::detail {

struct GlobalEvalParams {
  const float* coeffs;
  const float* coords;
  float* out;
  std::int64_t n;             // queries
  std::int64_t field_values;  // floats per field
  std::int64_t field_offset;  // field of blockIdx.y == 0 (launches are chunked by 65535 fields)
  int mode;
  int extent[6];
  int period[6];
  std::int64_t stride[6];  // floats between neighbours along each axis
  const float* end;        // one past the last coefficient of the whole batch
};

template <typename T>
__device__ __forceinline__ T select4(const T (&v)[4], int t) {
  return t == 0 ? v[0] : t == 1 ? v[1] : t == 2 ? v[2] : v[3];
}

// Sum over the taps of inner levels [L, K) (unrolled).
template <int K, int L, int C, typename Index>
__device__ __forceinline__ Vec<C> inner_sum(const float* base, const float (&w)[K][4], const Index (&off)[K][4]) {
  Vec<C> acc = Vec<C>::zero();
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
template <int O, int L, int K, int C, typename Index>
__device__ __forceinline__ Vec<C> outer_sum(const float* base, const float (&ow)[O > 0 ? O : 1][4],
                                            const Index (&ooff)[O > 0 ? O : 1][4], const float (&w)[K][4],
                                            const Index (&off)[K][4]) {
  if constexpr (L == O) {
    return inner_sum<K, 0, C, Index>(base, w, off);
  } else {
    Vec<C> acc = Vec<C>::zero();
    // D = 4: unrolled (256 independent loads per thread); deeper nests loop.
#pragma unroll(O == 1 ? 4 : 1)
    for (int t = 0; t < 4; ++t)
      acc.fma(select4(ow[L], t), outer_sum<O, L + 1, K, C, Index>(base + select4(ooff[L], t), ow, ooff, w, off));
    return acc;
  }
}

// Weights and folded offsets of the 4 taps along `axis` for coordinate x.
template <typename Index>
__device__ __forceinline__ void axis_taps(const GlobalEvalParams& p, int axis, float x, float (&w)[4],
                                          Index (&off)[4]) {
  const AxisPoint pt = locate(x, p.period[axis]);
  tap_weights(pt.a, w);
  const Index stride = static_cast<Index>(p.stride[axis]);
#pragma unroll
  for (int t = 0; t < 4; ++t)
    off[t] = static_cast<Index>(fold_tap(p.mode, pt.cell + t - 1, p.extent[axis], p.period[axis])) * stride;
}

template <int D, int C, typename Index>
__global__ void __launch_bounds__(256) evaluate_global_kernel(const GlobalEvalParams p) {
  constexpr int K = D < 3 ? D : 3;  // unrolled inner axes O..D-1
  constexpr int O = D - K;          // looped outer axes 0..O-1
  const std::int64_t q = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= p.n) return;
  const std::int64_t field = p.field_offset + blockIdx.y;
  float* out = p.out + (field * p.n + q) * C;

  float x[D];
  bool finite = true;
#pragma unroll
  for (int d = 0; d < D; ++d) {
    x[d] = __ldg(p.coords + d * p.n + q);
    finite = finite && isfinite(x[d]);
  }
  if (!finite) {
    store<C>(out, Vec<C>::nan());
    return;
  }

  float w[K][4];
  Index off[K][4];
#pragma unroll
  for (int k = 0; k < K; ++k) axis_taps<Index>(p, O + k, x[O + k], w[k], off[k]);
  float ow[O > 0 ? O : 1][4];
  Index ooff[O > 0 ? O : 1][4];
#pragma unroll
  for (int d = 0; d < O; ++d) axis_taps<Index>(p, d, x[d], ow[d], ooff[d]);

  const float* base = p.coeffs + field * p.field_values;
  store<C>(out, outer_sum<O, 0, K, C, Index>(base, ow, ooff, w, off));
}

// ---------------------------------------------------------------------------------
// C = 1, two lanes per query. Random queries make every warp-wide load touch 32
// different cache lines, so the one-lane kernel above is bound by the L1's line
// lookups (64 loads x 32 lines per warp of queries), not by bytes. Here the 4 taps
// along the last axis are read as the 16-byte-aligned 8-float window that holds them:
// lane h of the pair loads float4 number h of the window in every row, weights the
// elements that are taps (the others get 0) and the two partial sums meet in one
// shuffle. The pair's two float4 sit in one line (mostly one 32-byte sector pair), so
// a row costs one lookup instead of four; the coefficients read are the same 4^D taps.
// Queries whose last-axis taps need folding (within 1 sample of either end) take the
// one-lane path in lane 0.

struct RowWindow {
  float w[4];        // last-axis tap weights
  int first;         // last-axis index of tap 0 (cell - 1, unfolded, inside the line)
  int half;          // which float4 of the window this lane loads
  const float* end;  // loads stay below this
};

// This lane's share of sum_j w[j] row[first + j].
__device__ __forceinline__ float row_share(const float* row, const RowWindow& rw) {
  const float* tap0 = row + rw.first;
  const auto addr = reinterpret_cast<std::uintptr_t>(tap0);
  const float* window = reinterpret_cast<const float*>(addr & ~std::uintptr_t{15});
  const int shift = static_cast<int>((addr & 15) >> 2);  // tap 0's place in the window's first float4
  const float* chunk = window + 4 * rw.half;
  float v[4];
  if (chunk + 4 <= rw.end) {
    const float4 t = __ldg(reinterpret_cast<const float4*>(chunk));
    v[0] = t.x, v[1] = t.y, v[2] = t.z, v[3] = t.w;
  } else {  // the window runs past the batch's last coefficient: only in-range elements
#pragma unroll
    for (int e = 0; e < 4; ++e) v[e] = chunk + e < rw.end ? __ldg(chunk + e) : 0.0f;
  }
  float acc = 0.0f;
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const int j = 4 * rw.half + e - shift;  // tap number of element e, if in [0, 4)
    const float w = j == 0 ? rw.w[0] : j == 1 ? rw.w[1] : j == 2 ? rw.w[2] : j == 3 ? rw.w[3] : 0.0f;
    acc = fmaf(w, v[e], acc);
  }
  return acc;
}

// Rows over the unrolled row axes [L, R).
template <int R, int L, typename Index>
__device__ __forceinline__ float rows_inner(const float* base, const float (&w)[R > 0 ? R : 1][4],
                                            const Index (&off)[R > 0 ? R : 1][4], const RowWindow& rw) {
  if constexpr (L == R) {
    return row_share(base, rw);
  } else {
    float acc = 0.0f;
#pragma unroll
    for (int t = 0; t < 4; ++t) acc = fmaf(w[L][t], rows_inner<R, L + 1, Index>(base + off[L][t], w, off, rw), acc);
    return acc;
  }
}

// Rows over the looped row axes [L, O), then the unrolled ones.
template <int O, int L, int R, typename Index>
__device__ __forceinline__ float rows_outer(const float* base, const float (&ow)[O > 0 ? O : 1][4],
                                            const Index (&ooff)[O > 0 ? O : 1][4], const float (&w)[R > 0 ? R : 1][4],
                                            const Index (&off)[R > 0 ? R : 1][4], const RowWindow& rw) {
  if constexpr (L == O) {
    return rows_inner<R, 0, Index>(base, w, off, rw);
  } else {
    float acc = 0.0f;
#pragma unroll(O == 1 ? 4 : 1)
    for (int t = 0; t < 4; ++t)
      acc = fmaf(select4(ow[L], t), rows_outer<O, L + 1, R, Index>(base + select4(ooff[L], t), ow, ooff, w, off, rw),
                 acc);
    return acc;
  }
}

template <int D, typename Index>
__global__ void __launch_bounds__(256) evaluate_global_pairs_kernel(const GlobalEvalParams p) {
  constexpr int K = D < 3 ? D : 3;  // one-lane fallback: unrolled inner axes
  constexpr int O = D - K;
  constexpr int R = D - 1 < 2 ? D - 1 : 2;  // row axes (all but the last): unrolled ones
  constexpr int RO = D - 1 - R;             // looped row axes
  const std::int64_t thread = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t q = thread >> 1;
  const int half = static_cast<int>(threadIdx.x & 1);
  const bool active = q < p.n;
  const std::int64_t field = p.field_offset + blockIdx.y;
  float partial = 0.0f;
  bool finite = true;
  if (active) {
    float x[D];
#pragma unroll
    for (int d = 0; d < D; ++d) {
      x[d] = __ldg(p.coords + d * p.n + q);
      finite = finite && isfinite(x[d]);
    }
    if (finite) {
      const float* base = p.coeffs + field * p.field_values;
      const int last_n = p.extent[D - 1];
      const AxisPoint last = locate(x[D - 1], p.period[D - 1]);
      if (last.cell >= 1 && last.cell + 2 < last_n) {
        RowWindow rw;
        tap_weights(last.a, rw.w);
        rw.first = last.cell - 1;
        rw.half = half;
        rw.end = p.end;
        float w[R > 0 ? R : 1][4];
        Index off[R > 0 ? R : 1][4];
#pragma unroll
        for (int k = 0; k < R; ++k) axis_taps<Index>(p, RO + k, x[RO + k], w[k], off[k]);
        float ow[RO > 0 ? RO : 1][4];
        Index ooff[RO > 0 ? RO : 1][4];
#pragma unroll
        for (int d = 0; d < RO; ++d) axis_taps<Index>(p, d, x[d], ow[d], ooff[d]);
        partial = rows_outer<RO, 0, R, Index>(base, ow, ooff, w, off, rw);
      } else if (half == 0) {  // folded taps along the last axis: one lane, as in the kernel above
        float w[K][4];
        Index off[K][4];
#pragma unroll
        for (int k = 0; k < K; ++k) axis_taps<Index>(p, O + k, x[O + k], w[k], off[k]);
        float ow[O > 0 ? O : 1][4];
        Index ooff[O > 0 ? O : 1][4];
#pragma unroll
        for (int d = 0; d < O; ++d) axis_taps<Index>(p, d, x[d], ow[d], ooff[d]);
        partial = outer_sum<O, 0, K, 1, Index>(base, ow, ooff, w, off).v[0];
      }
    }
  }
  partial += __shfl_xor_sync(0xffffffffu, partial, 1);
  if (active && half == 0) p.out[field * p.n + q] = finite ? partial : __int_as_float(0x7fc00000);
}

}  // namespace splinebench::gpu::detail
