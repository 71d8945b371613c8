// The exact cubic B-spline prefilter of a field split along axis 0 into slabs, as ranks
// that each hold one slab would compute it, simulated in one process with the slabs in
// order: no halo, only one plane per slab boundary and per reduction crosses between
// slabs. Axes 1..D-1 lie inside a plane, so each slab filters them alone (the oracle's
// line recursion); axis 0 runs the steps of slab_steps.hpp. In exact arithmetic this is
// the oracle's prefilter; in Real = float it agrees with it within the f32 prefilter
// bound. slab_ranks.hpp runs the same steps with one slab per rank.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "splinebench/oracle.hpp"
#include "splinebench/slab_steps.hpp"
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

  // Axis 0: planes of P values, one field at a time.
  const std::int64_t P = shape.stride(0);
  const std::vector<Real> zpow = pole_powers<Real>(2 * n + 1);
  const Real z = zpow[1];
  const std::int64_t depth = slab::correction_depth<Real>();
  const std::size_t S = slab_starts.size();
  std::vector<slab::SlabSpan> spans(S);
  for (std::size_t s = 0; s < S; ++s)
    spans[s] = {n, slab_starts[s], (s + 1 < S ? slab_starts[s + 1] : n) - slab_starts[s], P};
  std::vector<Real> share(static_cast<std::size_t>(P)), sum(static_cast<std::size_t>(P)),
      carry(static_cast<std::size_t>(P)), next(static_cast<std::size_t>(P));
  auto add = [&](std::vector<Real>& into, const std::vector<Real>& from) {
    for (std::int64_t p = 0; p < P; ++p) into[p] += from[p];
  };
  for (std::int64_t fld = 0; fld < fields; ++fld) {
    Real* base = data + fld * field_values;
    auto planes = [&](std::size_t s) { return base + spans[s].start * P; };

    // Causal: the shares of the initial value summed, each slab from zero state, then
    // the carries forward and each slab's correction.
    std::fill(sum.begin(), sum.end(), Real(0));
    for (std::size_t s = 0; s < S; ++s) {
      slab::causal_share(planes(s), spans[s], mode, zpow, share.data());
      add(sum, share);
    }
    const Real norm = slab::causal_norm(mode, n, zpow);
    for (auto& v : sum) v /= norm;
    for (std::size_t s = 0; s < S; ++s) slab::causal_from_zero(planes(s), spans[s], s == 0 ? sum.data() : nullptr, z);
    slab::causal_carry(planes(0), spans[0], static_cast<const Real*>(nullptr), zpow, carry.data());
    for (std::size_t s = 1; s < S; ++s) {
      slab::causal_carry(planes(s), spans[s], carry.data(), zpow, next.data());
      slab::add_causal_correction(planes(s), spans[s], carry.data(), zpow, depth);
      carry.swap(next);
    }

    // Anti-causal: the initial value at n-1, each slab from zero state at its end, then
    // the carries backward and each slab's correction.
    if (mode == Mode::periodic) {
      std::fill(sum.begin(), sum.end(), Real(0));
      for (std::size_t s = 0; s < S; ++s) {
        slab::periodic_anticausal_share(planes(s), spans[s], zpow, share.data());
        add(sum, share);
      }
      slab::anticausal_periodic(sum.data(), n, P, zpow);
    } else {
      slab::anticausal_last(mode, z, base + (n - 1) * P, base + (n >= 2 ? n - 2 : 0) * P, P, sum.data());
    }
    for (std::size_t s = 0; s < S; ++s)
      slab::anticausal_from_zero(planes(s), spans[s], s + 1 == S ? sum.data() : nullptr, z);
    slab::anticausal_carry(planes(S - 1), spans[S - 1], static_cast<const Real*>(nullptr), zpow, carry.data());
    for (std::size_t s = S - 1; s-- > 0;) {
      slab::anticausal_carry(planes(s), spans[s], carry.data(), zpow, next.data());
      slab::add_anticausal_correction(planes(s), spans[s], carry.data(), zpow, depth);
      carry.swap(next);
    }
  }
}

}  // namespace splinebench::oracle
