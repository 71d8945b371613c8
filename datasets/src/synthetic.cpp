#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "splinebench/datasets.hpp"
#include "splinebench/error.hpp"

namespace splinebench::datasets {

std::string_view to_string(FieldKind kind) { return kind == FieldKind::noise ? "noise" : "smooth"; }

FieldKind parse_field_kind(std::string_view text) {
  if (text == "noise") return FieldKind::noise;
  if (text == "smooth") return FieldKind::smooth;
  throw Error("unknown field kind '" + std::string(text) + "' (known: noise, smooth)");
}

std::string_view to_string(QueryPattern pattern) {
  switch (pattern) {
    case QueryPattern::uniform: return "uniform";
    case QueryPattern::sorted: return "sorted";
    case QueryPattern::outside: return "outside";
  }
  return "?";
}

QueryPattern parse_query_pattern(std::string_view text) {
  if (text == "uniform") return QueryPattern::uniform;
  if (text == "sorted") return QueryPattern::sorted;
  if (text == "outside") return QueryPattern::outside;
  throw Error("unknown query pattern '" + std::string(text) + "' (known: uniform, sorted, outside)");
}

std::vector<float> make_field(FieldKind kind, const GridShape& shape, std::int64_t fields, std::uint64_t seed) {
  shape.validate();
  const std::int64_t points = shape.points();
  const int C = shape.channels;
  std::vector<float> data(static_cast<std::size_t>(points * C * fields));
  std::mt19937_64 rng(seed);
  if (kind == FieldKind::noise) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (auto& v : data) v = dist(rng);
    return data;
  }
  // smooth: sum of 3 separable-phase cosines with wavelengths >= 8 samples per axis.
  constexpr int kTerms = 3;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (std::int64_t fld = 0; fld < fields; ++fld)
    for (int c = 0; c < C; ++c) {
      double freq[kTerms][kMaxDims], phase[kTerms], amp[kTerms];
      for (int t = 0; t < kTerms; ++t) {
        for (int d = 0; d < shape.dims; ++d) freq[t][d] = 2.0 * M_PI * unit(rng) / 8.0;
        phase[t] = 2.0 * M_PI * unit(rng);
        amp[t] = (0.5 + 0.5 * unit(rng)) / kTerms;
      }
      std::int64_t idx[kMaxDims] = {};
      for (std::int64_t p = 0; p < points; ++p) {
        std::int64_t rem = p;
        for (int d = shape.dims - 1; d >= 0; --d) {
          idx[d] = rem % shape.extent[d];
          rem /= shape.extent[d];
        }
        double v = 0;
        for (int t = 0; t < kTerms; ++t) {
          double arg = phase[t];
          for (int d = 0; d < shape.dims; ++d) arg += freq[t][d] * static_cast<double>(idx[d]);
          v += amp[t] * std::cos(arg);
        }
        data[(fld * points + p) * C + c] = static_cast<float>(v);
      }
    }
  return data;
}

std::vector<float> make_queries(QueryPattern pattern, const GridShape& shape, std::int64_t n, std::uint64_t seed) {
  shape.validate();
  if (n < 0) throw Error("number of queries must be >= 0");
  const int D = shape.dims;
  std::vector<float> coords(static_cast<std::size_t>(D * n));
  std::mt19937_64 rng(seed);
  for (int d = 0; d < D; ++d) {
    const double hi = static_cast<double>(shape.extent[d] - 1);
    double lo_r = 0.0, hi_r = hi;
    if (pattern == QueryPattern::outside) {
      lo_r = -hi / 2 - 2;
      hi_r = 1.5 * hi + 2;
    }
    std::uniform_real_distribution<double> dist(lo_r, hi_r);
    for (std::int64_t q = 0; q < n; ++q) coords[d * n + q] = static_cast<float>(std::min(dist(rng), hi_r));
  }
  if (pattern == QueryPattern::sorted) {
    // Order by linear cell index (C order), so consecutive queries share taps.
    std::vector<std::int64_t> cell(static_cast<std::size_t>(n));
    for (std::int64_t q = 0; q < n; ++q) {
      std::int64_t c = 0;
      for (int d = 0; d < D; ++d) c = c * shape.extent[d] + static_cast<std::int64_t>(coords[d * n + q]);
      cell[q] = c;
    }
    std::vector<std::int64_t> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), std::int64_t{0});
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return cell[a] < cell[b]; });
    std::vector<float> sorted(coords.size());
    for (int d = 0; d < D; ++d)
      for (std::int64_t q = 0; q < n; ++q) sorted[d * n + q] = coords[d * n + order[q]];
    coords.swap(sorted);
  }
  return coords;
}

}  // namespace splinebench::datasets
