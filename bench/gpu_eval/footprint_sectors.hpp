// Cache-sector traffic of a 4^D-tap gather from a C-order float grid (gpu_naive's
// layout): for each query, the number of distinct 32-byte sectors its taps touch.
// Random queries share no sectors, so this is the L1 -> L2 traffic per query.
#pragma once

#include <cstdint>
#include <vector>

#include "splinebench/types.hpp"

namespace splinebench::bench {

// Mean distinct 32-byte sectors per query over `sample` queries of `coords` (D, n),
// taps folded by `mode` (the field is assumed to start on a sector boundary).
double mean_sectors_per_query(const GridShape& shape, Mode mode, const std::vector<float>& coords, std::int64_t n,
                              std::int64_t sample);

}  // namespace splinebench::bench
