// Bin-sorting of scattered queries for cache locality (the "bin sort" of non-uniform
// FFT spreaders): queries are grouped by the block of grid cells they fall in, so
// that the 4^D taps of consecutive queries come from a few kilobytes of coefficients
// instead of random lines of the whole grid. On a grid larger than the L2 cache,
// random queries are otherwise bound by cache misses (16 rows, ~19 lines per 3-D query).
//
// Blocks are kBinCells cells wide along the leading min(D, 3) axes (the ones with
// the largest strides); the remaining axes are not split. The sort is a stable
// counting sort, parallel over blocks of queries, into records that carry each query's
// coordinates and its index in the caller's order (eval_grid.hpp: query records), so
// the evaluation kernel writes every value straight to its place: no permutation
// array and no separate pass to put the values back in order.
#pragma once

#include <cstdint>
#include <string>

#include "aligned_buffer.hpp"
#include "splinebench/types.hpp"

namespace splinebench::cpu {

inline constexpr std::int64_t kBinCells = 8;
inline constexpr std::int64_t kMaxBins = std::int64_t{1} << 16;

// auto: plan_bins decides; on/off: forced (environment SPLINEBENCH_QUERY_BINNING, for
// measurements and tests; the name goes into cpu_simd's run facts).
enum class BinPolicy { automatic, on, off };
BinPolicy bin_policy_from_env();
std::string to_string(BinPolicy policy);

struct BinPlan {
  bool enabled = false;
  int binned_axes = 0;
  std::int64_t cells = kBinCells;        // block edge, in cells
  std::int64_t bins_per_axis[3] = {1, 1, 1};
  std::int64_t bins = 1;
};

// Binning pays off when one field's coefficients do not fit in the L2 cache and there
// are enough queries per bin to reuse what a bin brings in (policy automatic).
BinPlan plan_bins(const GridShape& shape, std::int64_t queries, BinPolicy policy = BinPolicy::automatic);

struct BinnedQueries {
  AlignedFloats records;  // query_record_floats(D) floats per query, in bin order
};

void bin_queries(const BinPlan& plan, const GridShape& shape, const float* coords, std::int64_t n, int threads,
                 BinnedQueries& out);

}  // namespace splinebench::cpu
