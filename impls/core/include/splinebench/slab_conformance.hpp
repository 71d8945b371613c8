// The split prefilter's conformance on any set of ranks (threads or MPI processes):
// every rank makes the same random field, filters its slab with prefilter_rank in
// double and in float, builds its extended planes and evaluates rank 0's queries with
// evaluate_ranks; the errors against the oracle's whole-field result are summed over the
// ranks. Shapes: D = 1..4, every mode, two channels, two fields, axis 0 as thin as the
// rank count allows (one plane per slab) and thicker than the carry depth.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "splinebench/f32_accuracy.hpp"
#include "splinebench/oracle.hpp"
#include "splinebench/slab_ranks.hpp"

namespace splinebench::slab {

struct SlabCheckCase {
  Mode mode = Mode::mirror;
  std::vector<std::int64_t> extents;
};

struct SlabCheckResult {
  double prefilter_rel_l2_f64 = 0;
  double prefilter_rel_l2_f32 = 0;
  double prefilter_f32_bound = 0;
  double interp_max_rel_f64 = 0;  // max |s - s_oracle| / max |f|
  bool nan_ok = true;             // non-finite coordinates gave NaN
  bool pass() const {
    return prefilter_rel_l2_f64 < 1e-13 && prefilter_rel_l2_f32 <= prefilter_f32_bound && interp_max_rel_f64 < 1e-13 &&
           nan_ok;
  }
};

// Cases for `ranks` ranks: axis 0 of ranks (one plane each), ranks + 3 and 40 planes.
inline std::vector<SlabCheckCase> slab_check_cases(int ranks) {
  std::vector<SlabCheckCase> out;
  for (Mode m : {Mode::mirror, Mode::half, Mode::periodic})
    for (std::int64_t n : {std::int64_t(ranks), std::int64_t(ranks) + 3, std::int64_t(40)})
      for (const auto& rest : std::vector<std::vector<std::int64_t>>{{}, {5}, {4, 3}, {3, 2, 3}}) {
        SlabCheckCase c{m, {n}};
        c.extents.insert(c.extents.end(), rest.begin(), rest.end());
        out.push_back(c);
      }
  return out;
}

// Slab starts for `ranks` slabs of n planes, unequal (random cuts from `seed`, the same
// on every rank), so slabs of one plane and slabs thinner than the carry depth occur.
inline std::vector<std::int64_t> random_starts(std::int64_t n, int ranks, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> cuts;
  for (std::int64_t k = 1; k < n; ++k) cuts.push_back(k);
  std::shuffle(cuts.begin(), cuts.end(), rng);
  cuts.resize(static_cast<std::size_t>(ranks - 1));
  std::sort(cuts.begin(), cuts.end());
  cuts.insert(cuts.begin(), 0);
  return cuts;
}

// Every rank calls it with the same arguments; the result is the same on every rank.
inline SlabCheckResult check_slab_case(SlabComm& comm, const SlabCheckCase& c, const std::vector<std::int64_t>& starts,
                                       std::uint64_t seed) {
  const GridShape shape = GridShape::make(c.extents, 2);
  const std::int64_t fields = 2, P = shape.stride(0), n = shape.extent[0];
  const SlabSpan mine = span_of(starts, comm.rank(), n, P);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<double> input(static_cast<std::size_t>(shape.values() * fields));
  for (double& v : input) v = uniform(rng);
  std::vector<double> whole = input;
  oracle::prefilter(shape, fields, whole.data(), c.mode);

  // This rank's planes of every field, and the sums of the error norm's parts.
  auto slab_of_field = [&](const std::vector<double>& all) {
    std::vector<double> mine_only;
    for (std::int64_t f = 0; f < fields; ++f) {
      const double* from = all.data() + f * shape.values() + mine.start * P;
      mine_only.insert(mine_only.end(), from, from + mine.len * P);
    }
    return mine_only;
  };
  const std::vector<double> expected = slab_of_field(whole);
  auto rel_l2 = [&](const auto& got) {
    double parts[2] = {0, 0};
    for (std::size_t i = 0; i < expected.size(); ++i) {
      const double e = static_cast<double>(got[i]) - expected[i];
      parts[0] += e * e;
      parts[1] += expected[i] * expected[i];
    }
    comm.allreduce_sum(parts, 2);
    return std::sqrt(parts[0] / parts[1]);
  };

  SlabCheckResult result;
  std::vector<double> d = slab_of_field(input);
  prefilter_rank(comm, shape, fields, d.data(), c.mode, starts);
  result.prefilter_rel_l2_f64 = rel_l2(d);
  const std::vector<double> samples = slab_of_field(input);
  std::vector<float> s(samples.begin(), samples.end());
  prefilter_rank(comm, shape, fields, s.data(), c.mode, starts);
  result.prefilter_rel_l2_f32 = rel_l2(s);
  result.prefilter_f32_bound = f32_accuracy::prefilter_rel_l2_bound(shape);

  // Evaluation: rank 0's queries over the extension (outside [0, n-1] too), a far one and
  // non-finite ones.
  std::vector<double> extended(static_cast<std::size_t>(fields * (mine.len + 3) * P));
  extend_rank(comm, shape, fields, d.data(), c.mode, starts, extended.data());
  const int D = shape.dims, C = shape.channels;
  const std::int64_t count = comm.rank() == 0 ? 203 : 0;
  std::vector<double> coords(static_cast<std::size_t>(D * count));
  for (std::int64_t q = 0; q < count; ++q)
    for (int a = 0; a < D; ++a) {
      const double e = static_cast<double>(shape.extent[a]);
      double x = -3.0 + (e + 5.0) * (uniform(rng) + 1.0) / 2.0;
      if (q == 200) x = 1e6 + 0.25;
      if (q == 201 && a == D - 1) x = std::numeric_limits<double>::quiet_NaN();
      if (q == 202 && a == 0) x = std::numeric_limits<double>::infinity();
      coords[a * count + q] = x;
    }
  std::vector<double> values(static_cast<std::size_t>(fields * count * C));
  evaluate_ranks(comm, shape, fields, extended.data(), c.mode, starts, coords.data(), count, values.data());
  if (comm.rank() == 0) {
    double max_f = 0, max_err = 0;
    for (double v : input) max_f = std::max(max_f, std::abs(v));
    std::vector<double> x(static_cast<std::size_t>(D)), ref(static_cast<std::size_t>(C));
    for (std::int64_t q = 0; q < count; ++q) {
      bool finite = true;
      for (int a = 0; a < D; ++a) {
        x[a] = coords[a * count + q];
        finite = finite && std::isfinite(x[a]);
      }
      for (std::int64_t f = 0; f < fields; ++f) {
        oracle::evaluate_point(shape, whole.data() + f * shape.values(), c.mode, x.data(), ref.data());
        for (int ch = 0; ch < C; ++ch) {
          const double got = values[(f * count + q) * C + ch];
          if (!finite) result.nan_ok = result.nan_ok && std::isnan(got);
          else max_err = std::max(max_err, std::isfinite(got) ? std::abs(got - ref[ch]) : HUGE_VAL);
        }
      }
    }
    result.interp_max_rel_f64 = max_err / max_f;
  }
  // Rank 0's verdict to every rank.
  double verdict[2] = {result.interp_max_rel_f64, result.nan_ok ? 0.0 : 1.0};
  comm.allreduce_sum(verdict, 2);
  result.interp_max_rel_f64 = verdict[0];
  result.nan_ok = verdict[1] == 0.0;
  return result;
}

}  // namespace splinebench::slab
