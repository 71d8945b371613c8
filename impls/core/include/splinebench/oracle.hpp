// The double-precision oracle: exact cubic B-spline prefilter (exact boundary
// initialisation for every length N >= 1, no truncated sums) and 4^D-tap evaluation
// on the mode's extension. Templated on the scalar so the same algorithm runs in
// Boost.Multiprecision to measure the double version's own error.
//
// Layout as in splinebench/implementation.hpp: C order, channels innermost.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "splinebench/bspline_math.hpp"
#include "splinebench/types.hpp"

namespace splinebench::oracle {

template <typename Real>
Real pole() {
  using std::sqrt;
  return sqrt(Real(3)) - Real(2);
}

// Filters one line of `n` samples in place; sample k's channel c is
// line[k * stride + c]. `zpow` holds z^0 .. z^(2n) at least. Shared by the oracle
// (Real = double or multiprecision, on a gathered copy) and cpu_scalar (Real = float,
// in place with the axis stride).
template <typename Real>
void prefilter_line(Real* line, std::int64_t n, std::int64_t stride, int channels, Mode mode,
                    const std::vector<Real>& zpow) {
  if (n == 1 && mode == Mode::mirror) return;  // c = f (the extension is constant)
  const Real z = zpow[1];
  const Real gain = Real(6);
  const int C = channels;
  auto f = [&](std::int64_t k, int c) -> Real& { return line[k * stride + c]; };

  for (int c = 0; c < C; ++c) {
    // Causal initialisation c+[0] = lambda * sum_{k>=0} z^k f~[-k] over the extension,
    // summed over one period in closed form.
    Real init = 0;
    switch (mode) {
      case Mode::mirror: {
        init = f(0, c) + zpow[n - 1] * f(n - 1, c);
        for (std::int64_t k = 1; k <= n - 2; ++k) init += (zpow[k] + zpow[2 * n - 2 - k]) * f(k, c);
        init /= Real(1) - zpow[2 * n - 2];
        break;
      }
      case Mode::half: {
        init = f(0, c);
        for (std::int64_t k = 0; k < n; ++k) init += zpow[k + 1] * f(k, c);
        for (std::int64_t k = 1; k < n; ++k) init += zpow[2 * n - k] * f(k, c);
        init /= Real(1) - zpow[2 * n];
        break;
      }
      case Mode::periodic: {
        init = f(0, c);
        for (std::int64_t k = 1; k < n; ++k) init += zpow[k] * f(n - k, c);
        init /= Real(1) - zpow[n];
        break;
      }
    }
    f(0, c) = gain * init;
    for (std::int64_t k = 1; k < n; ++k) f(k, c) = gain * f(k, c) + z * f(k - 1, c);

    // Anti-causal initialisation c[N-1] from the causal output.
    Real last = 0;
    switch (mode) {
      case Mode::mirror:
        last = z / (z * z - Real(1)) * (f(n - 1, c) + z * f(n - 2, c));
        break;
      case Mode::half:
        last = z / (z - Real(1)) * f(n - 1, c);
        break;
      case Mode::periodic: {
        Real s = 0;
        for (std::int64_t j = 0; j < n; ++j) s += zpow[j] * f((n - 1 + j) % n, c);
        last = -z * s / (Real(1) - zpow[n]);
        break;
      }
    }
    f(n - 1, c) = last;
    for (std::int64_t k = n - 2; k >= 0; --k) f(k, c) = z * (f(k + 1, c) - f(k, c));
  }
}

// Powers z^0 .. z^count by repeated multiplication: term k carries a relative error
// of about k ulps on a magnitude |z|^k, so the absolute error stays below ~2 ulps.
template <typename Real>
std::vector<Real> pole_powers(std::int64_t count) {
  std::vector<Real> zpow(static_cast<std::size_t>(count + 1));
  zpow[0] = Real(1);
  const Real z = pole<Real>();
  for (std::int64_t k = 1; k <= count; ++k) zpow[k] = zpow[k - 1] * z;
  return zpow;
}

// The same powers computed in double and rounded once to Real, so a float recursion's
// initial values carry no accumulated power error.
template <typename Real>
std::vector<Real> rounded_pole_powers(std::int64_t count) {
  const std::vector<double> zd = pole_powers<double>(count);
  return std::vector<Real>(zd.begin(), zd.end());
}

// Prefilters `fields` fields of `shape` in place, axis by axis.
template <typename Real>
void prefilter(const GridShape& shape, std::int64_t fields, Real* data, Mode mode) {
  const int C = shape.channels;
  const std::int64_t field_values = shape.values();
  for (int axis = 0; axis < shape.dims; ++axis) {
    const std::int64_t n = shape.extent[axis];
    const std::int64_t stride = shape.stride(axis);      // values between neighbours
    const std::int64_t inner = stride / C;               // samples after this axis
    const std::int64_t outer = shape.points() / (n * inner);
    const std::vector<Real> zpow = pole_powers<Real>(2 * n + 1);
    std::vector<Real> line(static_cast<std::size_t>(n * C));
    for (std::int64_t fld = 0; fld < fields; ++fld) {
      Real* base = data + fld * field_values;
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < inner; ++i) {
          Real* start = base + o * n * stride + i * C;
          for (std::int64_t k = 0; k < n; ++k)
            for (int c = 0; c < C; ++c) line[k * C + c] = start[k * stride + c];
          prefilter_line(line.data(), n, C, C, mode, zpow);
          for (std::int64_t k = 0; k < n; ++k)
            for (int c = 0; c < C; ++c) start[k * stride + c] = line[k * C + c];
        }
    }
  }
}

// Evaluates the spline of one field's coefficients at point x[0..D-1]; writes
// `channels` values. Non-finite coordinates give NaN.
template <typename Real>
void evaluate_point(const GridShape& shape, const Real* coeffs, Mode mode, const Real* x, Real* out) {
  using std::floor;
  const int D = shape.dims;
  const int C = shape.channels;
  std::int64_t index[kMaxDims][4];
  Real weight[kMaxDims][4];
  for (int d = 0; d < D; ++d) {
    const double xd = static_cast<double>(x[d]);
    if (!std::isfinite(xd)) {
      for (int c = 0; c < C; ++c) out[c] = std::numeric_limits<Real>::quiet_NaN();
      return;
    }
    const Real fl = floor(x[d]);
    bspline::weights<Real>(x[d] - fl, weight[d]);
    // Reduce the cell index modulo the extension's period before converting it to
    // an integer, so any finite coordinate folds without overflow (exact: fl is an
    // integer and fmod of doubles is exact).
    const std::int64_t n = shape.extent[d];
    const double period = static_cast<double>(bspline::mode_period(static_cast<int>(mode), n));
    const auto cell = static_cast<std::int64_t>(std::fmod(static_cast<double>(fl), period));
    for (int t = 0; t < 4; ++t)
      index[d][t] = shape.stride(d) * bspline::fold_index(static_cast<int>(mode), cell + t - 1, n);
  }
  for (int c = 0; c < C; ++c) out[c] = Real(0);
  // Odometer over the 4^D taps.
  int tap[kMaxDims] = {0, 0, 0, 0, 0, 0};
  while (true) {
    Real w = Real(1);
    std::int64_t offset = 0;
    for (int d = 0; d < D; ++d) {
      w *= weight[d][tap[d]];
      offset += index[d][tap[d]];
    }
    for (int c = 0; c < C; ++c) out[c] += w * coeffs[offset + c];
    int d = D - 1;
    while (d >= 0 && ++tap[d] == 4) tap[d--] = 0;
    if (d < 0) break;
  }
}

}  // namespace splinebench::oracle
