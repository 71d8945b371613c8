// evaluate_global with an explicit kernel choice, for benchmarks that compare the
// designs; evaluate_global itself always takes `best`.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "splinebench/types.hpp"

namespace splinebench::gpu {

enum class GlobalEvalVariant {
  best,      // two lanes per query for one channel on 16-byte aligned data, else one lane
  one_lane,  // one thread per query, 4^D scalar (or C-wide) loads
};

void evaluate_global_variant(const GridShape& shape, std::int64_t fields, Mode mode, const float* d_coeffs,
                             const float* d_coords, std::int64_t n, float* d_out, cudaStream_t stream,
                             GlobalEvalVariant variant);

}  // namespace splinebench::gpu
