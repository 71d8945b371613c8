// Device helpers of gpu_half: per-field magnitudes of a float batch, and the
// conversion of float coefficients to f16 / bf16 storage and back.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

namespace splinebench::gpu {

// Per field: max|v| and sum of v^2 (double). Synchronises `stream`.
struct FieldMagnitudes {
  std::vector<double> max_abs;
  std::vector<double> sum_squares;
};

// `fields` fields of `field_values` floats each at d_data. A NaN makes that field's
// max_abs NaN (NaN orders above every finite value), so a bound built on it is NaN.
FieldMagnitudes field_magnitudes(const float* d_data, std::int64_t fields, std::int64_t field_values,
                                 cudaStream_t stream);

// d_out[i] = round-to-nearest-even of d_in[i] (enqueued on `stream`, checked at launch).
void store_reduced(const float* d_in, __half* d_out, std::int64_t count, cudaStream_t stream);
void store_reduced(const float* d_in, __nv_bfloat16* d_out, std::int64_t count, cudaStream_t stream);

// d_out[i] = d_in[i] widened to float (exact).
void widen(const __half* d_in, float* d_out, std::int64_t count, cudaStream_t stream);
void widen(const __nv_bfloat16* d_in, float* d_out, std::int64_t count, cudaStream_t stream);

}  // namespace splinebench::gpu
