// The split prefilter and evaluation as one rank of S runs them: rank r holds planes
// [starts[r], starts[r+1]) of every field along axis 0 and talks to the others only
// through a SlabComm (slab_comm.hpp): threads of one process or MPI processes.
//   prefilter_rank   samples -> coefficients of the rank's slab (slab_steps.hpp's steps;
//                    per field: two all-reduces of one plane at most, one plane to each
//                    neighbour and back, mirror's plane n-2 when the last slab is one
//                    plane thick);
//   extend_rank      the slab's len + 3 extended planes (slab_route.hpp), the three halo
//                    planes from their owners;
//   evaluate_ranks   rank 0's queries sent to the ranks holding their footprints, the
//                    values returned in rank 0's order.
// Local layout: [field][plane][P values], P = shape.stride(0) of the whole field.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "splinebench/bspline_math.hpp"
#include "splinebench/oracle.hpp"
#include "splinebench/slab_comm.hpp"
#include "splinebench/slab_plan.hpp"
#include "splinebench/slab_route.hpp"
#include "splinebench/slab_steps.hpp"
#include "splinebench/types.hpp"

namespace splinebench::slab {

enum Tag : int { kCausalCarry = 1, kAntiCausalCarry, kMirrorPlane, kHalo, kQueryCount, kQueries, kValues };

template <typename Real>
void prefilter_rank(SlabComm& comm, const GridShape& shape, std::int64_t fields, Real* slab, Mode mode,
                    const std::vector<std::int64_t>& starts) {
  const int r = comm.rank(), S = comm.size();
  if (static_cast<int>(starts.size()) != S) throw std::invalid_argument("prefilter_rank: one slab per rank");
  const std::int64_t n = shape.extent[0], P = shape.stride(0);
  const SlabSpan span = span_of(starts, r, n, P);
  const GridShape local = with_planes(shape, span.len);
  for (std::int64_t f = 0; f < fields; ++f) filter_inner_axes(shape, span.len, slab + f * local.values(), mode);
  if (n == 1 && mode == Mode::mirror) return;  // c = f along axis 0

  const std::vector<Real> zpow = oracle::rounded_pole_powers<Real>(2 * n + 1);
  const Real z = zpow[1];
  const std::int64_t depth = correction_depth<Real>();
  std::vector<Real> plane(P), carry_in(P), carry_out(P), other(P);
  for (std::int64_t f = 0; f < fields; ++f) {
    Real* d = slab + f * local.values();
    // Causal.
    causal_share(d, span, mode, zpow, plane.data());
    comm.allreduce_sum(plane.data(), P);
    const Real norm = causal_norm(mode, n, zpow);
    for (auto& v : plane) v /= norm;
    causal_from_zero(d, span, r == 0 ? plane.data() : nullptr, z);
    if (r > 0) recv_values(comm, r - 1, kCausalCarry, carry_in.data(), P);
    causal_carry(d, span, r > 0 ? carry_in.data() : nullptr, zpow, carry_out.data());
    if (r + 1 < S) send_values(comm, r + 1, kCausalCarry, carry_out.data(), P);
    if (r > 0) add_causal_correction(d, span, carry_in.data(), zpow, depth);

    // The anti-causal initial value, on the last rank.
    if (mode == Mode::periodic) {
      periodic_anticausal_share(d, span, zpow, plane.data());
      comm.allreduce_sum(plane.data(), P);
      anticausal_periodic(plane.data(), n, P, zpow);
    } else if (mode == Mode::mirror && S > 1 && span_of(starts, S - 1, n, P).len == 1) {
      if (r == S - 2) send_values(comm, S - 1, kMirrorPlane, d + (span.len - 1) * P, P);
      if (r == S - 1) recv_values(comm, S - 2, kMirrorPlane, other.data(), P);
    }
    if (r == S - 1 && mode != Mode::periodic) {
      const Real* n1 = d + (span.len - 1) * P;
      const Real* n2 = span.len >= 2 ? d + (span.len - 2) * P : (S > 1 ? other.data() : n1);
      anticausal_last(mode, z, n1, n2, P, plane.data());
    }
    // Anti-causal.
    anticausal_from_zero(d, span, r == S - 1 ? plane.data() : nullptr, z);
    if (r + 1 < S) recv_values(comm, r + 1, kAntiCausalCarry, carry_in.data(), P);
    anticausal_carry(d, span, r + 1 < S ? carry_in.data() : nullptr, zpow, carry_out.data());
    if (r > 0) send_values(comm, r - 1, kAntiCausalCarry, carry_out.data(), P);
    if (r + 1 < S) add_anticausal_correction(d, span, carry_in.data(), zpow, depth);
  }
}

// `extended`: [field][len + 3][P]; local plane j holds the line's plane
// extended_plane(mode, start, j, n), from this rank's slab or from its owner.
template <typename Real>
void extend_rank(SlabComm& comm, const GridShape& shape, std::int64_t fields, const Real* slab, Mode mode,
                 const std::vector<std::int64_t>& starts, Real* extended) {
  const int r = comm.rank(), S = comm.size();
  const std::int64_t n = shape.extent[0], P = shape.stride(0);
  const int m = static_cast<int>(mode);
  const SlabSpan mine = span_of(starts, r, n, P);
  // What every other rank needs from this one: the same rule on every rank, so sends
  // and receives match without asking.
  for (int q = 0; q < S; ++q) {
    if (q == r) continue;
    const SlabSpan theirs = span_of(starts, q, n, P);
    for (std::int64_t j = 0; j < theirs.len + 3; ++j) {
      const std::int64_t g = extended_plane(m, theirs.start, j, n);
      if (slab_of(starts.data(), S, g) != r) continue;
      for (std::int64_t f = 0; f < fields; ++f)
        send_values(comm, q, kHalo, slab + (f * mine.len + (g - mine.start)) * P, P);
    }
  }
  for (std::int64_t j = 0; j < mine.len + 3; ++j) {
    const std::int64_t g = extended_plane(m, mine.start, j, n);
    const int owner = slab_of(starts.data(), S, g);
    for (std::int64_t f = 0; f < fields; ++f) {
      Real* to = extended + (f * (mine.len + 3) + j) * P;
      if (owner == r) std::copy_n(slab + (f * mine.len + (g - mine.start)) * P, P, to);
      else recv_values(comm, owner, kHalo, to, P);
    }
  }
}

// One query on a slab's extended planes (axis 0 through slab_route.hpp, the other axes
// folded as usual); `values` gets `channels` values per field, fields apart by `field_stride`.
// The 4^D tap products and their sum are formed in double whatever Real is, so the
// rounding of a float field's value does not grow with 4^D.
template <typename Real>
void evaluate_on_extended(const GridShape& shape, std::int64_t fields, const Real* extended, Mode mode,
                          std::int64_t start, std::int64_t len, const Real* x, Real* values, std::int64_t field_stride) {
  const int D = shape.dims, C = shape.channels, m = static_cast<int>(mode);
  const GridShape local = with_planes(shape, len + 3);
  std::int64_t index[kMaxDims][4];
  double weight[kMaxDims][4];
  for (int d = 0; d < D; ++d) {
    if (!std::isfinite(static_cast<double>(x[d]))) {
      for (std::int64_t f = 0; f < fields; ++f)
        for (int c = 0; c < C; ++c) values[f * field_stride + c] = std::numeric_limits<Real>::quiet_NaN();
      return;
    }
    const double fl = std::floor(static_cast<double>(x[d]));
    bspline::weights<double>(static_cast<double>(x[d]) - fl, weight[d]);
    const std::int64_t nd = shape.extent[d];
    const auto cell = static_cast<std::int64_t>(std::fmod(fl, static_cast<double>(bspline::mode_period(m, nd))));
    if (d == 0) {
      const TapHome home = tap_home(m, cell, nd);
      for (int t = 0; t < 4; ++t) index[0][t] = local.stride(0) * local_tap(m, home, cell, t, start, nd);
    } else {
      for (int t = 0; t < 4; ++t) index[d][t] = local.stride(d) * bspline::fold_index(m, cell + t - 1, nd);
    }
  }
  std::vector<double> sum(static_cast<std::size_t>(C));
  for (std::int64_t f = 0; f < fields; ++f) {
    const Real* coeffs = extended + f * local.values();
    std::fill(sum.begin(), sum.end(), 0.0);
    int tap[kMaxDims] = {0, 0, 0, 0, 0, 0};
    while (true) {
      double w = 1;
      std::int64_t offset = 0;
      for (int d = 0; d < D; ++d) {
        w *= weight[d][tap[d]];
        offset += index[d][tap[d]];
      }
      for (int c = 0; c < C; ++c) sum[c] += w * static_cast<double>(coeffs[offset + c]);
      int d = D - 1;
      while (d >= 0 && ++tap[d] == 4) tap[d--] = 0;
      if (d < 0) break;
    }
    for (int c = 0; c < C; ++c) values[f * field_stride + c] = static_cast<Real>(sum[c]);
  }
}

// The rank whose slab holds a query's footprint, or -1 for a non-finite coordinate.
template <typename Real>
int home_rank(const GridShape& shape, Mode mode, const std::vector<std::int64_t>& starts, const Real* x) {
  for (int d = 0; d < shape.dims; ++d)
    if (!std::isfinite(static_cast<double>(x[d]))) return -1;
  const int m = static_cast<int>(mode);
  const std::int64_t n = shape.extent[0];
  const auto cell = static_cast<std::int64_t>(std::fmod(static_cast<double>(std::floor(x[0])),
                                                        static_cast<double>(bspline::mode_period(m, n))));
  return slab_of(starts.data(), static_cast<int>(starts.size()), tap_home(m, cell, n).home);
}

// Rank 0 holds `coords` (D x count, axis-major) and receives `out` ([field][count][C]);
// the other ranks pass nullptr and 0. Every rank calls it.
template <typename Real>
void evaluate_ranks(SlabComm& comm, const GridShape& shape, std::int64_t fields, const Real* extended, Mode mode,
                    const std::vector<std::int64_t>& starts, const Real* coords, std::int64_t count, Real* out) {
  const int r = comm.rank(), S = comm.size(), D = shape.dims, C = shape.channels;
  const SlabSpan mine = span_of(starts, r, shape.extent[0], shape.stride(0));
  auto evaluate_list = [&](const std::vector<Real>& xs, std::vector<Real>& values) {  // xs: [q][D]
    const std::int64_t k = static_cast<std::int64_t>(xs.size()) / D;
    values.assign(static_cast<std::size_t>(fields * k * C), Real(0));
    for (std::int64_t q = 0; q < k; ++q)
      evaluate_on_extended(shape, fields, extended, mode, mine.start, mine.len, xs.data() + q * D,
                           values.data() + q * C, k * C);
  };
  std::vector<Real> xs, values;
  if (r != 0) {
    std::int64_t k = 0;
    recv_values(comm, 0, kQueryCount, &k, 1);
    xs.resize(static_cast<std::size_t>(k * D));
    if (k) recv_values(comm, 0, kQueries, xs.data(), k * D);
    evaluate_list(xs, values);
    if (k) send_values(comm, 0, kValues, values.data(), fields * k * C);
    return;
  }
  std::vector<std::vector<std::int64_t>> routed(static_cast<std::size_t>(S));
  std::vector<Real> x(static_cast<std::size_t>(D));
  for (std::int64_t q = 0; q < count; ++q) {
    for (int d = 0; d < D; ++d) x[d] = coords[d * count + q];
    const int home = home_rank(shape, mode, starts, x.data());
    if (home >= 0) {
      routed[home].push_back(q);
    } else {
      for (std::int64_t f = 0; f < fields; ++f)
        for (int c = 0; c < C; ++c) out[(f * count + q) * C + c] = std::numeric_limits<Real>::quiet_NaN();
    }
  }
  auto gather_coords = [&](const std::vector<std::int64_t>& list) {
    std::vector<Real> g(list.size() * static_cast<std::size_t>(D));
    for (std::size_t i = 0; i < list.size(); ++i)
      for (int d = 0; d < D; ++d) g[i * D + d] = coords[d * count + list[i]];
    return g;
  };
  for (int q = 1; q < S; ++q) {
    const auto k = static_cast<std::int64_t>(routed[q].size());
    send_values(comm, q, kQueryCount, &k, 1);
    if (k) {
      const std::vector<Real> g = gather_coords(routed[q]);
      send_values(comm, q, kQueries, g.data(), k * D);
    }
  }
  auto scatter = [&](const std::vector<std::int64_t>& list, const std::vector<Real>& vals) {
    const auto k = static_cast<std::int64_t>(list.size());
    for (std::int64_t f = 0; f < fields; ++f)
      for (std::int64_t i = 0; i < k; ++i)
        for (int c = 0; c < C; ++c) out[(f * count + list[i]) * C + c] = vals[(f * k + i) * C + c];
  };
  evaluate_list(gather_coords(routed[0]), values);
  scatter(routed[0], values);
  for (int q = 1; q < S; ++q) {
    const auto k = static_cast<std::int64_t>(routed[q].size());
    if (!k) continue;
    values.resize(static_cast<std::size_t>(fields * k * C));
    recv_values(comm, q, kValues, values.data(), fields * k * C);
    scatter(routed[q], values);
  }
}

}  // namespace splinebench::slab
