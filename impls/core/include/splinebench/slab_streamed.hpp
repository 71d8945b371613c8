// The exact prefilter of a field larger than a device, streamed through it slab by slab
// along axis 0 in one sweep, so each value crosses the host link once each way: the
// arithmetic of that schedule, in one process (the slab buffer stands for the device).
//   before the sweep  the causal initial value from the planes whose weight is not zero in
//                     Real (in float about 80 at each end of the line; their inner axes
//                     filtered first, as the sweep will);
//   slab s, in order  upload; axes 1..D-1; the causal recursion continued from slab s-1's
//                     last plane (exact, nothing to correct); the anti-causal recursion
//                     from zero state at the slab's end (the last slab from the line's
//                     initial value: periodic's sum of shares gathered during the sweep,
//                     mirror's plane n-2 kept from the slab before); keep the slab's first
//                     plane; download;
//   after the sweep   the anti-causal carries backwards, one plane per slab, and each slab's
//                     last planes corrected in host memory (correction_depth of them).
// Only the edge planes of the pre-pass and the corrected planes cross the link a second
// time. In exact arithmetic this is the oracle's prefilter.
#pragma once

#include <cstdint>
#include <vector>

#include "splinebench/oracle.hpp"
#include "splinebench/slab_plan.hpp"
#include "splinebench/slab_steps.hpp"
#include "splinebench/types.hpp"

namespace splinebench::oracle {

template <typename Real>
void prefilter_streamed(const GridShape& shape, std::int64_t fields, Real* data, Mode mode,
                        const std::vector<std::int64_t>& slab_starts) {
  const std::int64_t n = shape.extent[0];
  slab::check_starts(slab_starts, n, "prefilter_streamed");
  const std::int64_t P = shape.stride(0);
  const std::size_t S = slab_starts.size();
  const std::vector<slab::SlabSpan> spans = slab::spans_of(slab_starts, n, P);
  auto filter_inner = [&](Real* d, std::int64_t planes) { slab::filter_inner_axes(shape, planes, d, mode); };

  const std::vector<Real> zpow = pole_powers<Real>(2 * n + 1);
  const Real z = zpow[1];
  const std::int64_t depth = slab::correction_depth<Real>();
  std::vector<Real> buffer, plane(P), init(P), anti_sum(P), previous(P), carry(P), next(P);
  std::vector<std::vector<Real>> first_planes(S, std::vector<Real>(P));
  for (std::int64_t fld = 0; fld < fields; ++fld) {
    Real* host = data + fld * shape.values();
    if (n == 1 && mode == Mode::mirror) {  // c = f along axis 0
      filter_inner(host, 1);
      continue;
    }
    // Before the sweep: the causal initial value from the planes that weigh.
    std::fill(init.begin(), init.end(), Real(0));
    for (std::int64_t k = 0; k < n; ++k) {
      const Real w = slab::causal_weight(mode, n, k, zpow);
      if (w == Real(0)) continue;
      std::copy(host + k * P, host + (k + 1) * P, plane.begin());
      filter_inner(plane.data(), 1);
      for (std::int64_t p = 0; p < P; ++p) init[p] += w * plane[p];
    }
    const Real norm = slab::causal_norm(mode, n, zpow);
    for (auto& v : init) v /= norm;

    // The sweep.
    std::fill(anti_sum.begin(), anti_sum.end(), Real(0));
    for (std::size_t s = 0; s < S; ++s) {
      const slab::SlabSpan& span = spans[s];
      buffer.assign(host + span.start * P, host + (span.start + span.len) * P);  // upload
      filter_inner(buffer.data(), span.len);
      if (s == 0) slab::causal_from_zero(buffer.data(), span, init.data(), z);
      else slab::causal_from_state(buffer.data(), span, previous.data(), z);
      if (mode == Mode::periodic) {  // this slab's share of the anti-causal initial value
        slab::periodic_anticausal_share(buffer.data(), span, zpow, plane.data());
        for (std::int64_t p = 0; p < P; ++p) anti_sum[p] += plane[p];
      }
      if (s + 1 == S) {
        if (mode == Mode::periodic) {
          slab::anticausal_periodic(anti_sum.data(), n, P, zpow);
        } else {
          const Real* n1 = buffer.data() + (span.len - 1) * P;
          const Real* n2 = span.len >= 2 ? buffer.data() + (span.len - 2) * P : previous.data();
          slab::anticausal_last(mode, z, n1, n2, P, anti_sum.data());
        }
      }
      std::copy(buffer.end() - P, buffer.end(), previous.begin());  // the next slab's causal state
      slab::anticausal_from_zero(buffer.data(), span, s + 1 == S ? anti_sum.data() : nullptr, z);
      std::copy(buffer.begin(), buffer.begin() + P, first_planes[s].begin());
      std::copy(buffer.begin(), buffer.end(), host + span.start * P);  // download
    }

    // After the sweep: the carries backwards and the corrections, in host memory.
    carry = first_planes[S - 1];
    for (std::size_t s = S - 1; s-- > 0;) {
      slab::anticausal_carry(first_planes[s].data(), spans[s], carry.data(), zpow, next.data());
      slab::add_anticausal_correction(host + spans[s].start * P, spans[s], carry.data(), zpow, depth);
      carry.swap(next);
    }
  }
}

}  // namespace splinebench::oracle
