// The "step" GPU prefilter (Ruijters & Thevenaz; what CuPy does): one thread per line,
// walking the line in place with the axis stride, one launch per axis. Public so other
// GPU implementations and benchmarks can reuse or time it axis by axis.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "splinebench/types.hpp"

namespace splinebench::gpu {

// Filters every line along `axis` of `fields` fields of `shape` in place (d_data is a
// device pointer, layout as in splinebench/implementation.hpp). Enqueued on `stream`,
// checked at launch; the caller synchronises. Float data is filtered in float, double
// data in double (the same recursion; prefilter_step_kernel.cuh).
void prefilter_axis_step(const GridShape& shape, std::int64_t fields, Mode mode, float* d_data, int axis,
                         cudaStream_t stream);
void prefilter_axis_step(const GridShape& shape, std::int64_t fields, Mode mode, double* d_data, int axis,
                         cudaStream_t stream);

// All axes in order 0..D-1 (samples -> coefficients), one launch per axis.
void prefilter_step(const GridShape& shape, std::int64_t fields, Mode mode, float* d_data, cudaStream_t stream);
void prefilter_step(const GridShape& shape, std::int64_t fields, Mode mode, double* d_data, cudaStream_t stream);

}  // namespace splinebench::gpu
