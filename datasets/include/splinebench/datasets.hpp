// Synthetic inputs for sweeps and tests, deterministic from a seed (never zeros).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "splinebench/types.hpp"

namespace splinebench::datasets {

// Field contents:
//   noise  : white noise, uniform in [-1, 1] (exposes indexing and half-texel bugs)
//   smooth : a few random low-frequency cosines per channel, max|f| about 1
enum class FieldKind { noise, smooth };
std::string_view to_string(FieldKind kind);
FieldKind parse_field_kind(std::string_view text);  // throws splinebench::Error

// Query patterns:
//   uniform : uniform random in [0, N-1] on every axis
//   sorted  : the uniform points ordered by grid cell (coherent, as in resampling)
//   outside : uniform random in [-(N-1)/2 - 2, 3(N-1)/2 + 2] (exercises the extension)
enum class QueryPattern { uniform, sorted, outside };
std::string_view to_string(QueryPattern pattern);
QueryPattern parse_query_pattern(std::string_view text);  // throws splinebench::Error

// `fields` fields of `shape`, layout as in implementation.hpp.
std::vector<float> make_field(FieldKind kind, const GridShape& shape, std::int64_t fields, std::uint64_t seed);

// What a field holds, by the name a suite gives in "data": a synthetic kind (noise,
// smooth; random from the seed), an analytic function (datasets/analytic.hpp; sampled
// on the case's shape, at the positions of the case's mode) or a real dataset
// (datasets/real.hpp; its grid and channels are the data's own).
struct FieldSource {
  enum class Origin { synthetic, analytic, real };
  Origin origin = Origin::synthetic;
  FieldKind kind = FieldKind::noise;  // synthetic only
  std::string name = "noise";

  FieldSource() = default;
  FieldSource(FieldKind synthetic);  // implicit: a FieldKind is a FieldSource
  friend bool operator==(const FieldSource&, const FieldSource&) = default;
};
std::string_view to_string(const FieldSource& source);
// Any synthetic, analytic or real name; throws splinebench::Error listing all of them.
// Only the name is checked: a real dataset's files are looked at when it is used.
FieldSource parse_field_source(std::string_view text);

// The field for `source`: synthetic kinds from `seed` (mode unused); analytic functions
// sampled under `mode` (every channel and field the same samples); real datasets as
// real_field (`shape` must be real_field_shape of the data, else splinebench::Error
// naming both; DatasetUnavailable when the data is not in the cache).
std::vector<float> make_field(const FieldSource& source, const GridShape& shape, std::int64_t fields,
                              std::uint64_t seed, Mode mode);

// (D, n) float32 coordinates, axis-major.
std::vector<float> make_queries(QueryPattern pattern, const GridShape& shape, std::int64_t n, std::uint64_t seed);

}  // namespace splinebench::datasets
