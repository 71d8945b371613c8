// Per-axis arithmetic shared by the GPU kernels: tap weights, reducing a cell index
// modulo the extension period and folding a tap index into [0, N-1]. 32-bit indices:
// the GPU implementations refuse axes longer than kMaxAxisLength.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu_common/axis_limits.hpp"

namespace splinebench::gpu::detail {

using gpu::kMaxAxisLength;

// Weights of taps i-1..i+2 for fraction a in [0, 1] (same polynomials as
// bspline::weights, with the divisions turned into multiplications by rounded
// reciprocals: each weight is within 2 ulp of the divided form). R: float or double.
template <typename R>
__device__ __forceinline__ void tap_weights(R a, R (&w)[4]) {
  constexpr R kSixth = R(1) / R(6);
  constexpr R kTwoThirds = R(2) / R(3);
  const R b = R(1) - a;
  w[0] = b * b * b * kSixth;
  w[1] = kTwoThirds - R(0.5) * a * a * (R(2) - a);
  w[2] = kTwoThirds - R(0.5) * b * b * (R(1) + a);
  w[3] = a * a * a * kSixth;
}

// Period of the extension of a length-n axis (mode as static_cast<int>(Mode)).
__host__ __device__ __forceinline__ int axis_period(int mode, int n) {
  if (mode == 0) return n == 1 ? 1 : 2 * n - 2;  // mirror
  if (mode == 1) return 2 * n;                   // half
  return n;                                      // periodic
}

// floor(x) (an integer-valued float or double) reduced into [0, period). Exact for
// every finite input: fmod of doubles is exact and the result is an integer < 2^31.
template <typename R>
__device__ __forceinline__ int reduce_cell(R fl, int period) {
  const double d = static_cast<double>(fl);
  if (d >= 0.0 && d < static_cast<double>(period)) return static_cast<int>(fl);
  double r = fmod(d, static_cast<double>(period));
  if (r < 0.0) r += static_cast<double>(period);
  return static_cast<int>(r);
}

// Folds any tap index k into [0, n-1] by the extension rule of `mode`.
__device__ __forceinline__ int fold_tap(int mode, int k, int n, int period) {
  if (k >= 0 && k < n) return k;
  int r = k % period;
  if (r < 0) r += period;
  if (r >= n) r = (mode == 0) ? period - r : period - 1 - r;  // mirror / half reflection
  return r;
}

// Everything a kernel needs about one coordinate along one axis: the cell index
// reduced into the base period and the fraction inside the cell.
template <typename R>
struct AxisPointOf {
  int cell;  // in [0, period)
  R a;       // in [0, 1]
};
using AxisPoint = AxisPointOf<float>;

template <typename R>
__device__ __forceinline__ AxisPointOf<R> locate(R x, int period) {
  R fl;
  if constexpr (sizeof(R) == sizeof(float))
    fl = floorf(x);  // never a double floor on the float path
  else
    fl = floor(x);
  return {reduce_cell(fl, period), x - fl};
}

}  // namespace splinebench::gpu::detail
