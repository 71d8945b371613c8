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

// (D, n) float32 coordinates, axis-major.
std::vector<float> make_queries(QueryPattern pattern, const GridShape& shape, std::int64_t n, std::uint64_t seed);

}  // namespace splinebench::datasets
