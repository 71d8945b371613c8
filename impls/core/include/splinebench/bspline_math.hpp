// Cubic B-spline constants and the small pieces of arithmetic every implementation
// (CPU or CUDA) needs: tap weights and folding an integer index into [0, N-1] by a
// boundary mode. Header-only and usable from device code.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define SPLINEBENCH_HD __host__ __device__ __forceinline__
#else
#define SPLINEBENCH_HD inline
#endif

namespace splinebench::bspline {

// Pole of the cubic B-spline prefilter, z = sqrt(3) - 2, and its gain lambda = 6
// ((1 - z)(1 - 1/z) = 6).
inline constexpr double kPole = -0.267949192431122706472553658494127633;
inline constexpr double kGain = 6.0;

// Weights of taps i-1, i, i+1, i+2 for fraction a = x - floor(x) in [0, 1).
// Written without branches (thesis form) so SIMD and GPU code can use it as is.
template <typename T>
SPLINEBENCH_HD void weights(T a, T w[4]) {
  const T one = T(1);
  const T b = one - a;
  w[0] = b * b * b / T(6);
  w[1] = T(2) / T(3) - a * a * (T(2) - a) / T(2);
  w[2] = T(2) / T(3) - b * b * (one + a) / T(2);
  w[3] = a * a * a / T(6);
}

// Period of the extension of a length-n line (n >= 1). mirror of n == 1 is constant.
SPLINEBENCH_HD std::int64_t mode_period(int mode, std::int64_t n) {
  // mode: 0 = mirror, 1 = half, 2 = periodic (Mode's order).
  if (mode == 0) return n == 1 ? 1 : 2 * n - 2;
  if (mode == 1) return 2 * n;
  return n;
}

// Folds any integer index k into [0, n-1] by the extension rule of `mode`.
SPLINEBENCH_HD std::int64_t fold_index(int mode, std::int64_t k, std::int64_t n) {
  if (k >= 0 && k < n) return k;  // inside the line every mode is the identity; spares the division
  const std::int64_t p = mode_period(mode, n);
  std::int64_t r = k % p;
  if (r < 0) r += p;
  if (mode == 0 && r >= n) return p - r;     // mirror: reflect about n-1
  if (mode == 1 && r >= n) return p - 1 - r;  // half: reflect about n-1/2
  return r;
}

}  // namespace splinebench::bspline
