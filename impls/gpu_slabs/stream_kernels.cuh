// Device side of stream_kernels.hpp, in plane_walk.cuh's layout (one thread per float of
// a plane, walking it through the slab's planes).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu_slabs/plane_walk.cuh"
#include "gpu_slabs/stream_kernels.hpp"

namespace splinebench::gpu::slabs::stream_detail {

using walk::first_index;
using walk::grid_step;

__global__ void causal_state_kernel(PlaneGeometry g, float* slab, std::int64_t pitch, std::int64_t len,
                                    const float* previous, float z, float gain) {
  const std::int64_t P = g.P;
  for (std::int64_t i = first_index(); i < g.fields * P; i += grid_step()) {
    const std::int64_t f = i / P;
    float* d = slab + f * pitch + (i - f * P);
    const float first = gain * d[0] + z * previous[i];
    d[0] = first;
    walk::causal_walk(d, P, len, first, z, gain);
  }
}

__global__ void add_weighted_sum_kernel(PlaneGeometry g, PlaneTerms terms, const float* slab, std::int64_t pitch,
                                        float* out, bool accumulate) {
  for (std::int64_t i = first_index(); i < g.fields * g.P; i += grid_step()) {
    const std::int64_t f = i / g.P;
    const float* d = slab + f * pitch + (i - f * g.P);
    float share = 0.0f;
    for (int t = 0; t < terms.count; ++t) share += terms.weight[t] * d[terms.plane[t] * g.P];
    out[i] = accumulate ? out[i] + share : share;
  }
}

}  // namespace splinebench::gpu::slabs::stream_detail
