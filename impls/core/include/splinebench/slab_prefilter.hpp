// The exact cubic B-spline prefilter of a field split along axis 0 into slabs, as ranks
// that each hold one slab would compute it, simulated in one process with the slabs in
// order: no halo, only one plane per slab boundary and per reduction crosses between
// slabs. Axes 1..D-1 lie inside a plane, so each slab filters them alone (the oracle's
// line recursion); axis 0 runs the steps of slab_steps.hpp. In exact arithmetic this is
// the oracle's prefilter; in Real = float it agrees with it within the f32 prefilter
// bound. slab_ranks.hpp runs the same steps with one slab per rank.
#pragma once

#include <cstdint>
#include <vector>

#include "splinebench/oracle.hpp"
#include "splinebench/slab_plan.hpp"
#include "splinebench/slab_steps.hpp"
#include "splinebench/types.hpp"

namespace splinebench::oracle {

// `slab_starts`: as slab::check_starts (slab_plan.hpp) says.
template <typename Real>
void prefilter_slabs(const GridShape& shape, std::int64_t fields, Real* data, Mode mode,
                     const std::vector<std::int64_t>& slab_starts) {
  const std::int64_t n = shape.extent[0];
  slab::check_starts(slab_starts, n, "prefilter_slabs");
  const std::int64_t field_values = shape.values();
  for (std::int64_t f = 0; f < fields; ++f) slab::filter_inner_axes(shape, n, data + f * field_values, mode);
  if (n == 1 && mode == Mode::mirror) return;  // c = f, as prefilter_line

  // Axis 0: planes of P values, one field at a time.
  const std::int64_t P = shape.stride(0);
  const std::vector<Real> zpow = pole_powers<Real>(2 * n + 1);
  const Real z = zpow[1];
  const std::int64_t depth = slab::correction_depth<Real>();
  const std::size_t S = slab_starts.size();
  const std::vector<slab::SlabSpan> spans = slab::spans_of(slab_starts, n, P);
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
