// Bin-sorting of scattered queries for cache locality (the "bin sort" of non-uniform
// FFT spreaders): queries are grouped by the block of grid cells they fall in, so
// that the 4^D taps of consecutive queries come from a few kilobytes of coefficients
// instead of random lines of the whole grid. On a grid larger than the L2 cache,
// random queries are otherwise bound by cache misses (16 lines per 3-D query).
//
// Blocks are kBinCells cells wide along the leading min(D, 3) axes (the ones with
// the largest strides); the remaining axes are not split. The sort is a stable
// counting sort, parallel over threads.
#pragma once

#include <cstdint>
#include <vector>

#include "aligned_buffer.hpp"
#include "splinebench/types.hpp"

namespace splinebench::cpu {

inline constexpr std::int64_t kBinCells = 8;
inline constexpr std::int64_t kMaxBins = std::int64_t{1} << 16;

struct BinPlan {
  bool enabled = false;
  int binned_axes = 0;
  std::int64_t cells = kBinCells;        // block edge, in cells
  std::int64_t bins_per_axis[3] = {1, 1, 1};
  std::int64_t bins = 1;
};

// Binning pays off when one field's coefficients do not fit in the L2 cache and there
// are enough queries per bin to reuse what a bin brings in.
BinPlan plan_bins(const GridShape& shape, std::int64_t queries);

struct BinnedQueries {
  AlignedFloats coords;              // (D, n) axis-major, in bin order
  std::vector<std::int32_t> rank;    // rank[q] = position of query q in bin order
  // Scratch reused between calls: each query's bin, and the queries as records of
  // 4 or 8 floats (one store per query while sorting, instead of D scattered ones).
  std::vector<std::int32_t> key;
  AlignedFloats records;
  AlignedFloats values;              // sorted-order values, before unpermute()
};

void bin_queries(const BinPlan& plan, const GridShape& shape, const float* coords, std::int64_t n, int threads,
                 BinnedQueries& out);

// out[q * channels + ch] = sorted[rank[q] * channels + ch] for q < n (parallel).
void unpermute(const std::vector<std::int32_t>& rank, std::int64_t n, int channels, const float* sorted, float* out,
               int threads);

}  // namespace splinebench::cpu
