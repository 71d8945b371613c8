// Cubic B-spline evaluation straight from global memory: 4^D coefficient loads per
// query (the classic "naive" GPU design). Public so other GPU implementations can pair
// their own prefilter with this kernel.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "splinebench/types.hpp"

namespace splinebench::gpu {

// Evaluates `fields` prefiltered fields of `shape` (coefficients at `d_coeffs`, layout
// as in splinebench/implementation.hpp) at `n` points. All pointers are device
// pointers: d_coords is (D, n) axis-major, d_out is [fields][n][channels]. Non-finite
// coordinates give NaN; finite ones outside [0, N-1] are evaluated on the mode's
// extension. Enqueued on `stream` and checked at launch; the caller synchronises.
// Throws Unsupported for shapes it cannot index (an axis longer than 2^30 samples)
// and Error for channel counts other than 1, 2, 4.
void evaluate_global(const GridShape& shape, std::int64_t fields, Mode mode, const float* d_coeffs,
                     const float* d_coords, std::int64_t n, float* d_out, cudaStream_t stream);

// The same in double throughout: coefficients, coordinates, tap weights, sums, values.
void evaluate_global(const GridShape& shape, std::int64_t fields, Mode mode, const double* d_coeffs,
                     const double* d_coords, std::int64_t n, double* d_out, cudaStream_t stream);

// Coefficients stored as f16 / bf16, widened to float on load; float arithmetic.
void evaluate_global(const GridShape& shape, std::int64_t fields, Mode mode, const __half* d_coeffs,
                     const float* d_coords, std::int64_t n, float* d_out, cudaStream_t stream);
void evaluate_global(const GridShape& shape, std::int64_t fields, Mode mode, const __nv_bfloat16* d_coeffs,
                     const float* d_coords, std::int64_t n, float* d_out, cudaStream_t stream);

}  // namespace splinebench::gpu
