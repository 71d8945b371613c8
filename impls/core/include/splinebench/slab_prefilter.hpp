// The exact cubic B-spline prefilter of a field split along axis 0 into slabs, as ranks
// that each hold one slab would compute it: no halo, only one plane per slab boundary
// and per reduction crosses between slabs. The ranks' arithmetic, simulated in one
// process (every slab's work touches only its own planes and the exchanged planes):
//   axes 1..D-1   lie inside a plane, so each slab filters them alone (the oracle's
//                 line recursion, as cpu_scalar);
//   axis 0, causal   1. the mode's initial value is a linear functional of the whole
//                    line (oracle.hpp): each slab sums its planes' share, and the shares
//                    are added (an all-reduce of one plane);
//                 2. each slab runs the recursion from zero state (slab 0 from the
//                    initial value);
//                 3. the causal state at each slab's end is carried forward, one plane
//                    per boundary: carry_s = u_s[end] + z^len_s carry_{s-1};
//                 4. each slab adds z^(k - start + 1) carry_{s-1} to its plane k (the
//                    term falls below f32 rounding after ~13 planes; it is added to
//                    every plane, so a slab thinner than that stays exact);
//   axis 0, anti-causal  the same backwards: the initial value at N-1 from the last
//                 planes (mirror: two, which may lie in two slabs; half: one) or, for
//                 periodic, a reduction over the whole line; the recursion from zero
//                 state at each slab's end; carries from the last slab to the first,
//                 c_s[start] = v_s[start] + z^len_s c_{s+1}[start]; each slab adds
//                 z^(end - k) c_{s+1}[start] to plane k.
// In exact arithmetic this is the oracle's prefilter; in Real = float it agrees with it
// within the f32 prefilter bound. The multi-device prefilter runs these steps with the
// slabs on devices and the planes exchanged between them.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "splinebench/oracle.hpp"
#include "splinebench/types.hpp"

namespace splinebench::oracle {

// `slab_starts`: the first plane of each slab along axis 0, strictly increasing from 0,
// each below extent[0]; a slab runs to the next start (the last to extent[0]).
template <typename Real>
void prefilter_slabs(const GridShape& shape, std::int64_t fields, Real* data, Mode mode,
                     const std::vector<std::int64_t>& slab_starts) {
  const std::int64_t n = shape.extent[0];
  if (slab_starts.empty() || slab_starts.front() != 0)
    throw std::invalid_argument("prefilter_slabs: the first slab starts at plane 0");
  for (std::size_t s = 1; s < slab_starts.size(); ++s)
    if (slab_starts[s] <= slab_starts[s - 1] || slab_starts[s] >= n)
      throw std::invalid_argument("prefilter_slabs: slab starts must increase and stay below extent[0]");
  const int C = shape.channels;
  const std::int64_t field_values = shape.values();

  // Axes 1..D-1: inside each plane, so inside each slab.
  for (int axis = 1; axis < shape.dims; ++axis) {
    const std::int64_t na = shape.extent[axis];
    const std::int64_t stride = shape.stride(axis);
    const std::int64_t inner = stride / C;
    const std::int64_t outer = shape.points() / (na * inner);
    const std::vector<Real> zpow = pole_powers<Real>(2 * na + 1);
    for (std::int64_t f = 0; f < fields; ++f)
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < inner; ++i)
          prefilter_line<Real>(data + f * field_values + o * na * stride + i * C, na, stride, C, mode, zpow);
  }
  if (n == 1 && mode == Mode::mirror) return;  // c = f, as prefilter_line

  // Axis 0: planes of P values.
  const std::int64_t P = shape.stride(0);
  const std::vector<Real> zpow = pole_powers<Real>(2 * n + 1);
  const Real z = zpow[1];
  const Real gain = Real(6);
  const std::size_t S = slab_starts.size();
  auto start = [&](std::size_t s) { return slab_starts[s]; };
  auto end = [&](std::size_t s) { return s + 1 < S ? slab_starts[s + 1] : n; };  // exclusive
  // Weight of sample k in the causal initial value (before the division), per mode.
  auto causal_weight = [&](std::int64_t k) -> Real {
    switch (mode) {
      case Mode::mirror:
        if (k == 0) return Real(1);
        if (k == n - 1) return zpow[n - 1];
        return zpow[k] + zpow[2 * n - 2 - k];
      case Mode::half:
        return k == 0 ? Real(1) + zpow[1] : zpow[k + 1] + zpow[2 * n - k];
      case Mode::periodic:
        return k == 0 ? Real(1) : zpow[n - k];
    }
    return Real(0);
  };
  const Real causal_norm = mode == Mode::mirror ? Real(1) - zpow[2 * n - 2]
                           : mode == Mode::half ? Real(1) - zpow[2 * n]
                                                : Real(1) - zpow[n];
  std::vector<Real> plane(static_cast<std::size_t>(P)), carry(static_cast<std::size_t>(P));
  for (std::int64_t fld = 0; fld < fields; ++fld) {
    Real* base = data + fld * field_values;
    auto at = [&](std::int64_t k) { return base + k * P; };

    // 1. The causal initial value: every slab's share, added.
    std::vector<Real> init(static_cast<std::size_t>(P), Real(0));
    for (std::size_t s = 0; s < S; ++s) {
      std::fill(plane.begin(), plane.end(), Real(0));
      for (std::int64_t k = start(s); k < end(s); ++k) {
        const Real w = causal_weight(k);
        for (std::int64_t p = 0; p < P; ++p) plane[p] += w * at(k)[p];
      }
      for (std::int64_t p = 0; p < P; ++p) init[p] += plane[p];
    }
    // 2. Each slab from zero state (slab 0 from the initial value).
    for (std::size_t s = 0; s < S; ++s) {
      const std::int64_t b = start(s);
      for (std::int64_t p = 0; p < P; ++p) at(b)[p] = s == 0 ? gain * (init[p] / causal_norm) : gain * at(b)[p];
      for (std::int64_t k = b + 1; k < end(s); ++k)
        for (std::int64_t p = 0; p < P; ++p) at(k)[p] = gain * at(k)[p] + z * at(k - 1)[p];
    }
    // 3.-4. Carries forward, one plane per boundary, and each slab's correction.
    std::copy(at(end(0) - 1), at(end(0) - 1) + P, carry.begin());
    for (std::size_t s = 1; s < S; ++s) {
      const std::int64_t b = start(s), e = end(s);
      // The carry into this slab, then its own end state, before the correction.
      for (std::int64_t p = 0; p < P; ++p) plane[p] = at(e - 1)[p] + zpow[e - b] * carry[p];
      for (std::int64_t k = b; k < e; ++k)
        for (std::int64_t p = 0; p < P; ++p) at(k)[p] += zpow[k - b + 1] * carry[p];
      std::copy(plane.begin(), plane.end(), carry.begin());
    }

    // 5. The anti-causal initial value at N-1.
    std::vector<Real> last(static_cast<std::size_t>(P), Real(0));
    switch (mode) {
      case Mode::mirror:  // the last two planes (one plane crosses when the last slab is one plane thick)
        for (std::int64_t p = 0; p < P; ++p) last[p] = z / (z * z - Real(1)) * (at(n - 1)[p] + z * at(n - 2)[p]);
        break;
      case Mode::half:
        for (std::int64_t p = 0; p < P; ++p) last[p] = z / (z - Real(1)) * at(n - 1)[p];
        break;
      case Mode::periodic: {  // every slab's share of sum_j z^j c+[(n-1+j) % n], added
        for (std::size_t s = 0; s < S; ++s) {
          std::fill(plane.begin(), plane.end(), Real(0));
          for (std::int64_t k = start(s); k < end(s); ++k) {
            const Real w = zpow[(k + 1) % n];
            for (std::int64_t p = 0; p < P; ++p) plane[p] += w * at(k)[p];
          }
          for (std::int64_t p = 0; p < P; ++p) last[p] += plane[p];
        }
        for (std::int64_t p = 0; p < P; ++p) last[p] = -z * last[p] / (Real(1) - zpow[n]);
        break;
      }
    }
    // 6. Each slab from zero state at its end (the last slab from the initial value).
    for (std::size_t s = 0; s < S; ++s) {
      const std::int64_t b = start(s), e = end(s);
      for (std::int64_t p = 0; p < P; ++p) at(e - 1)[p] = s + 1 == S ? last[p] : z * (Real(0) - at(e - 1)[p]);
      for (std::int64_t k = e - 2; k >= b; --k)
        for (std::int64_t p = 0; p < P; ++p) at(k)[p] = z * (at(k + 1)[p] - at(k)[p]);
    }
    // 7. Carries backward: the true value at the next slab's first plane.
    std::copy(at(start(S - 1)), at(start(S - 1)) + P, carry.begin());
    for (std::size_t s = S - 1; s-- > 0;) {
      const std::int64_t b = start(s), e = end(s);
      for (std::int64_t p = 0; p < P; ++p) plane[p] = at(b)[p] + zpow[e - b] * carry[p];
      for (std::int64_t k = b; k < e; ++k)
        for (std::int64_t p = 0; p < P; ++p) at(k)[p] += zpow[e - k] * carry[p];
      std::copy(plane.begin(), plane.end(), carry.begin());
    }
  }
}

}  // namespace splinebench::oracle
