// Header-only helpers every test area may include ("common/accuracy.hpp"; link the
// CMake target splinebench_test_common for the include path):
//   rel_l2(a, ref), max_abs_diff(a, ref), max_abs(v)  error metrics, NaN-aware: a NaN on
//                                          one side only counts as an infinite error, so a
//                                          missing or poisoned value can never pass
//   nan_mismatches(a, ref)                 elements where exactly one side is NaN
//   poison(v), count_nan(v)                fill outputs with NaN before an implementation
//                                          writes them; count what was left unwritten
//   random_values<T>(count, seed)          uniform noise in [-1, 1] of any scalar type
//   to_double(v)                           widen a float buffer for the double oracle
//   unravel(shape, point, index)           C-order point number -> per-axis indices
//   kUnitRoundoff<T>                       u = 2^-p (half an ulp of 1) of float/double
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "splinebench/types.hpp"

namespace splinebench::testing {

template <typename T>
inline constexpr double kUnitRoundoff = std::numeric_limits<T>::epsilon() / 2;

namespace detail {
template <typename A, typename B>
void require_same_size(const A& a, const B& b) {
  if (std::size(a) != std::size(b)) throw std::invalid_argument("accuracy: buffers differ in size");
}
}  // namespace detail

// Elements where exactly one of a, ref is NaN (both NaN is agreement: e.g. a query
// at a NaN coordinate).
template <typename A, typename B>
std::int64_t nan_mismatches(const A& a, const B& ref) {
  detail::require_same_size(a, ref);
  std::int64_t count = 0;
  for (std::size_t i = 0; i < std::size(a); ++i)
    count += std::isnan(static_cast<double>(a[i])) != std::isnan(static_cast<double>(ref[i]));
  return count;
}

// max |a - ref| over elements; +inf when any element is NaN on one side only.
template <typename A, typename B>
double max_abs_diff(const A& a, const B& ref) {
  detail::require_same_size(a, ref);
  double worst = 0;
  for (std::size_t i = 0; i < std::size(a); ++i) {
    const double x = static_cast<double>(a[i]);
    const double y = static_cast<double>(ref[i]);
    if (std::isnan(x) || std::isnan(y)) {
      if (std::isnan(x) != std::isnan(y)) return std::numeric_limits<double>::infinity();
      continue;
    }
    worst = std::max(worst, std::abs(x - y));
  }
  return worst;
}

// ||a - ref||_2 / ||ref||_2 (0 when both are exactly zero); +inf on a one-sided NaN.
template <typename A, typename B>
double rel_l2(const A& a, const B& ref) {
  detail::require_same_size(a, ref);
  long double num = 0, den = 0;
  for (std::size_t i = 0; i < std::size(a); ++i) {
    const double x = static_cast<double>(a[i]);
    const double y = static_cast<double>(ref[i]);
    if (std::isnan(x) || std::isnan(y)) {
      if (std::isnan(x) != std::isnan(y)) return std::numeric_limits<double>::infinity();
      continue;
    }
    const long double d = static_cast<long double>(x) - y;
    num += d * d;
    den += static_cast<long double>(y) * y;
  }
  if (den == 0) return num == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return static_cast<double>(std::sqrt(num / den));
}

// max |v| over the non-NaN elements.
template <typename V>
double max_abs(const V& v) {
  double worst = 0;
  for (std::size_t i = 0; i < std::size(v); ++i) {
    const double x = static_cast<double>(v[i]);
    if (!std::isnan(x)) worst = std::max(worst, std::abs(x));
  }
  return worst;
}

template <typename T>
void poison(std::vector<T>& v) {
  std::fill(v.begin(), v.end(), std::numeric_limits<T>::quiet_NaN());
}

template <typename V>
std::int64_t count_nan(const V& v) {
  std::int64_t count = 0;
  for (std::size_t i = 0; i < std::size(v); ++i) count += std::isnan(static_cast<double>(v[i]));
  return count;
}

// Uniform noise in [-1, 1], deterministic from the seed. Drawn in double and converted,
// so a multiprecision copy of a double field holds exactly the same values.
template <typename T>
std::vector<T> random_values(std::int64_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<T> v(static_cast<std::size_t>(count));
  for (auto& x : v) x = static_cast<T>(dist(rng));
  return v;
}

template <typename T>
std::vector<double> to_double(const std::vector<T>& v) {
  return {v.begin(), v.end()};
}

// Per-axis indices of the point numbered `point` in C order.
inline void unravel(const GridShape& shape, std::int64_t point, std::int64_t* index) {
  for (int d = shape.dims - 1; d >= 0; --d) {
    index[d] = point % shape.extent[d];
    point /= shape.extent[d];
  }
}

}  // namespace splinebench::testing
