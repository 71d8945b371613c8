// The steps of the exact cubic B-spline prefilter along axis 0 of a field split into
// slabs of planes, each step touching one slab's planes and at most one exchanged plane.
// Drivers put them together: oracle::prefilter_slabs (every slab in one process, in
// order), slab::prefilter_rank (one slab per rank, planes exchanged through a
// SlabComm: threads or MPI processes), and the multi-GPU prefilter (one slab per device).
//
// Axis 0 of a line of n planes, slab s = planes [start, start + len):
//   causal        1. the mode's initial value is a linear functional of the whole line:
//                    each slab's share causal_share(), summed over the slabs, divided by
//                    causal_norm();
//                 2. causal_from_zero(): the recursion from zero state (slab 0 from the
//                    initial value);
//                 3. causal_carry(): the true causal state at the slab's last plane,
//                    u[end-1] + z^len carry_in, passed to the next slab;
//                 4. add_causal_correction(): z^(k+1) carry_in added to local plane k,
//                    for the planes it still changes (correction_depth());
//   anti-causal   5. the initial value at plane n-1: mirror from planes n-1 and n-2 (which
//                    may lie in two slabs), half from plane n-1, periodic a sum over the
//                    line (periodic_anticausal_share(), summed, then anticausal_periodic());
//                 6. anticausal_from_zero() at each slab's last plane (the last slab from
//                    the initial value);
//                 7. anticausal_carry(): the true value at the slab's first plane,
//                    v[0] + z^len carry_in, passed to the previous slab;
//                 8. add_anticausal_correction(): z^(len-k) carry_in added to local plane k.
// The carries make a slab of any thickness exact; a correction is truncated only where
// |z|^m is below the arithmetic's rounding, so a slab thinner than the depth is
// corrected on every plane.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "splinebench/types.hpp"

namespace splinebench::slab {

// Planes [start, start + len) of a line of n planes, each plane P values.
struct SlabSpan {
  std::int64_t n = 0;
  std::int64_t start = 0;
  std::int64_t len = 0;
  std::int64_t P = 0;
};

// Planes a correction z^m carry changes: the smallest m with |z|^m below the rounding of
// Real (over 16, as the carry can exceed the planes' values by the recursion's gain).
template <typename Real>
std::int64_t correction_depth() {
  const double z = std::abs(std::sqrt(3.0) - 2.0);
  const double eps = static_cast<double>(std::numeric_limits<Real>::epsilon()) / 16.0;
  return static_cast<std::int64_t>(std::ceil(std::log(eps) / std::log(z)));
}

// Weight of plane k (global) in the causal initial value before causal_norm(); `zpow`
// holds z^0 .. z^(2n) at least.
template <typename Real>
Real causal_weight(Mode mode, std::int64_t n, std::int64_t k, const std::vector<Real>& zpow) {
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
}

template <typename Real>
Real causal_norm(Mode mode, std::int64_t n, const std::vector<Real>& zpow) {
  return mode == Mode::mirror ? Real(1) - zpow[2 * n - 2]
         : mode == Mode::half ? Real(1) - zpow[2 * n]
                              : Real(1) - zpow[n];
}

// Step 1: out = sum over the slab's planes of causal_weight(k) * plane k.
template <typename Real>
void causal_share(const Real* d, const SlabSpan& s, Mode mode, const std::vector<Real>& zpow, Real* out) {
  for (std::int64_t p = 0; p < s.P; ++p) out[p] = Real(0);
  for (std::int64_t j = 0; j < s.len; ++j) {
    const Real w = causal_weight(mode, s.n, s.start + j, zpow);
    for (std::int64_t p = 0; p < s.P; ++p) out[p] += w * d[j * s.P + p];
  }
}

// Step 2: the causal recursion over the slab from zero state, or, with `init` (the summed
// shares already divided by causal_norm), from the line's initial value.
template <typename Real>
void causal_from_zero(Real* d, const SlabSpan& s, const Real* init, Real z) {
  const Real gain = Real(6);
  for (std::int64_t p = 0; p < s.P; ++p) d[p] = gain * (init ? init[p] : d[p]);
  for (std::int64_t j = 1; j < s.len; ++j)
    for (std::int64_t p = 0; p < s.P; ++p) d[j * s.P + p] = gain * d[j * s.P + p] + z * d[(j - 1) * s.P + p];
}

// Step 2, slabs taken in order (one device streaming them): the recursion continued from
// the previous slab's last causal value `previous`, so no correction follows.
template <typename Real>
void causal_from_state(Real* d, const SlabSpan& s, const Real* previous, Real z) {
  const Real gain = Real(6);
  for (std::int64_t p = 0; p < s.P; ++p) d[p] = gain * d[p] + z * previous[p];
  for (std::int64_t j = 1; j < s.len; ++j)
    for (std::int64_t p = 0; p < s.P; ++p) d[j * s.P + p] = gain * d[j * s.P + p] + z * d[(j - 1) * s.P + p];
}

// Step 3: the true causal state at the slab's last plane (before step 4 changes it).
template <typename Real>
void causal_carry(const Real* d, const SlabSpan& s, const Real* carry_in, const std::vector<Real>& zpow,
                  Real* carry_out) {
  const Real* last = d + (s.len - 1) * s.P;
  for (std::int64_t p = 0; p < s.P; ++p) carry_out[p] = last[p] + (carry_in ? zpow[s.len] * carry_in[p] : Real(0));
}

// Step 4: plane j gains z^(j+1) carry_in, for the first `depth` planes.
template <typename Real>
void add_causal_correction(Real* d, const SlabSpan& s, const Real* carry_in, const std::vector<Real>& zpow,
                           std::int64_t depth) {
  const std::int64_t planes = s.len < depth ? s.len : depth;
  for (std::int64_t j = 0; j < planes; ++j)
    for (std::int64_t p = 0; p < s.P; ++p) d[j * s.P + p] += zpow[j + 1] * carry_in[p];
}

// Step 5 (mirror, half): the anti-causal initial value from the corrected causal planes
// n-1 and (mirror) n-2.
template <typename Real>
void anticausal_last(Mode mode, Real z, const Real* plane_n1, const Real* plane_n2, std::int64_t P, Real* out) {
  if (mode == Mode::mirror)
    for (std::int64_t p = 0; p < P; ++p) out[p] = z / (z * z - Real(1)) * (plane_n1[p] + z * plane_n2[p]);
  else
    for (std::int64_t p = 0; p < P; ++p) out[p] = z / (z - Real(1)) * plane_n1[p];
}

// Step 5 (periodic): the slab's share of sum_j z^j c+[(n-1+j) % n], i.e. plane k weighted
// by z^((k+1) % n); anticausal_periodic() turns the summed shares into the value.
template <typename Real>
void periodic_anticausal_share(const Real* d, const SlabSpan& s, const std::vector<Real>& zpow, Real* out) {
  for (std::int64_t p = 0; p < s.P; ++p) out[p] = Real(0);
  for (std::int64_t j = 0; j < s.len; ++j) {
    const Real w = zpow[(s.start + j + 1) % s.n];
    for (std::int64_t p = 0; p < s.P; ++p) out[p] += w * d[j * s.P + p];
  }
}

template <typename Real>
void anticausal_periodic(Real* sum, std::int64_t n, std::int64_t P, const std::vector<Real>& zpow) {
  const Real z = zpow[1];
  for (std::int64_t p = 0; p < P; ++p) sum[p] = -z * sum[p] / (Real(1) - zpow[n]);
}

// Step 6: the anti-causal recursion from zero state at the slab's last plane, or from the
// line's initial value `last`.
template <typename Real>
void anticausal_from_zero(Real* d, const SlabSpan& s, const Real* last, Real z) {
  Real* end = d + (s.len - 1) * s.P;
  for (std::int64_t p = 0; p < s.P; ++p) end[p] = last ? last[p] : z * (Real(0) - end[p]);
  for (std::int64_t j = s.len - 2; j >= 0; --j)
    for (std::int64_t p = 0; p < s.P; ++p) d[j * s.P + p] = z * (d[(j + 1) * s.P + p] - d[j * s.P + p]);
}

// Step 7: the true value at the slab's first plane (before step 8 changes it).
template <typename Real>
void anticausal_carry(const Real* d, const SlabSpan& s, const Real* carry_in, const std::vector<Real>& zpow,
                      Real* carry_out) {
  for (std::int64_t p = 0; p < s.P; ++p) carry_out[p] = d[p] + (carry_in ? zpow[s.len] * carry_in[p] : Real(0));
}

// Step 8: plane j gains z^(len-j) carry_in, for the last `depth` planes.
template <typename Real>
void add_anticausal_correction(Real* d, const SlabSpan& s, const Real* carry_in, const std::vector<Real>& zpow,
                               std::int64_t depth) {
  const std::int64_t first = s.len > depth ? s.len - depth : 0;
  for (std::int64_t j = first; j < s.len; ++j)
    for (std::int64_t p = 0; p < s.P; ++p) d[j * s.P + p] += zpow[s.len - j] * carry_in[p];
}

}  // namespace splinebench::slab
