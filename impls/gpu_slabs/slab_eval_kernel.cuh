// Device side of evaluate_slab: evaluate_global_kernel (gpu_common) with the axis-0 taps
// of a slab. The inner/outer sums, tap weights and the other axes' folding are
// gpu_common's own functions, so a value is formed exactly as evaluate_global forms it
// from the same coefficients.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu_common/evaluate_global_kernel.cuh"
#include "splinebench/slab_route.hpp"

namespace splinebench::gpu::slabs::detail {

using gpu::detail::GlobalEvalParams;
using gpu::detail::Vec;

struct SlabEvalParams {
  GlobalEvalParams<float, float> g;  // coeffs = the slab's extended planes, field_values = its pitch
  std::int64_t start;                // the slab's first plane on the line
  std::int64_t len;                  // its planes (extended planes 0 .. len + 2)
};

// Axis-0 weights and offsets into the slab's extended planes; false when a tap falls
// outside them (the query was routed to the wrong slab).
template <typename Index>
__device__ __forceinline__ bool slab_axis0_taps(const SlabEvalParams& p, float x, float (&w)[4], Index (&off)[4]) {
  const gpu::detail::AxisPoint pt = gpu::detail::locate(x, p.g.period[0]);
  gpu::detail::tap_weights(pt.a, w);
  const std::int64_t n = p.g.extent[0];
  const slab::TapHome h = slab::tap_home(p.g.mode, pt.cell, n);
  const Index stride = static_cast<Index>(p.g.stride[0]);
  bool inside = true;
#pragma unroll
  for (int t = 0; t < 4; ++t) {
    const std::int64_t j = slab::local_tap(p.g.mode, h, pt.cell, t, p.start, n);
    inside = inside && j >= 0 && j <= p.len + 2;
    off[t] = static_cast<Index>(j >= 0 && j <= p.len + 2 ? j : 0) * stride;
  }
  return inside;
}

template <int D, int C, typename Index>
__global__ void __launch_bounds__(256) slab_evaluate_kernel(const SlabEvalParams p) {
  constexpr int K = D < 3 ? D : 3;  // unrolled inner axes O..D-1
  constexpr int O = D - K;          // looped outer axes 0..O-1
  const std::int64_t q = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= p.g.n) return;
  const std::int64_t field = p.g.field_offset + blockIdx.y;
  float* out = p.g.out + (field * p.g.n + q) * C;

  float x[D];
  bool finite = true;
#pragma unroll
  for (int d = 0; d < D; ++d) {
    x[d] = __ldg(p.g.coords + d * p.g.n + q);
    finite = finite && isfinite(x[d]);
  }
  if (!finite) {
    gpu::detail::store<C>(out, Vec<C>::nan());
    return;
  }

  float w[K][4];
  Index off[K][4];
  float ow[O > 0 ? O : 1][4];
  Index ooff[O > 0 ? O : 1][4];
  bool inside;
  if constexpr (O == 0) {
    inside = slab_axis0_taps<Index>(p, x[0], w[0], off[0]);
#pragma unroll
    for (int k = 1; k < K; ++k) gpu::detail::axis_taps<Index>(p.g, k, x[k], w[k], off[k]);
  } else {
#pragma unroll
    for (int k = 0; k < K; ++k) gpu::detail::axis_taps<Index>(p.g, O + k, x[O + k], w[k], off[k]);
    inside = slab_axis0_taps<Index>(p, x[0], ow[0], ooff[0]);
#pragma unroll
    for (int d = 1; d < O; ++d) gpu::detail::axis_taps<Index>(p.g, d, x[d], ow[d], ooff[d]);
  }
  if (!inside) {
    gpu::detail::store<C>(out, Vec<C>::nan());
    return;
  }

  const float* base = p.g.coeffs + field * p.g.field_values;
  gpu::detail::store<C>(out, gpu::detail::outer_sum<O, 0, K, C, Index>(base, ow, ooff, w, off));
}

}  // namespace splinebench::gpu::slabs::detail
