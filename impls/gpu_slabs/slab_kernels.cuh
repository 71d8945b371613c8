// Device side of slab_kernels.hpp, in plane_walk.cuh's layout (one thread per float of a
// plane, walking it through the slab's planes).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu_slabs/plane_walk.cuh"
#include "gpu_slabs/slab_kernels.hpp"

namespace splinebench::gpu::slabs::detail {

using walk::first_index;
using walk::grid_step;
using walk::kBatch;
using walk::split;
using walk::ValueIndex;

__global__ void weighted_sum_kernel(PlaneGeometry g, PlaneTerms terms, const float* slab, std::int64_t pitch,
                                    float* out) {
  for (std::int64_t i = first_index(); i < g.fields * g.P; i += grid_step()) {
    const ValueIndex v = split(i, g.P);
    const float* d = slab + v.f * pitch + v.p;
    float acc = 0.0f;
    for (int t = 0; t < terms.count; ++t) acc += terms.weight[t] * d[terms.plane[t] * g.P];
    out[i] = acc;
  }
}

__global__ void add_weighted_kernel(PlaneGeometry g, PlaneTerms terms, float* slab, std::int64_t pitch,
                                    const float* carry) {
  for (std::int64_t i = first_index(); i < g.fields * g.P; i += grid_step()) {
    const ValueIndex v = split(i, g.P);
    float* d = slab + v.f * pitch + v.p;
    const float c = carry[i];
    for (int t = 0; t < terms.count; ++t) d[terms.plane[t] * g.P] += terms.weight[t] * c;
  }
}

// c+[j] = gain * f[j] + z * c+[j-1], c+[0] = gain * (init or f[0]).
__global__ void causal_kernel(PlaneGeometry g, float* slab, std::int64_t pitch, std::int64_t len, const float* init,
                              float z, float gain) {
  const std::int64_t P = g.P;
  for (std::int64_t i = first_index(); i < g.fields * P; i += grid_step()) {
    const ValueIndex v = split(i, P);
    float* d = slab + v.f * pitch + v.p;
    const float first = gain * (init ? init[i] : d[0]);
    d[0] = first;
    walk::causal_walk(d, P, len, first, z, gain);
  }
}

// c[len-1] = last or z * (0 - c+[len-1]); c[j] = z * (c[j+1] - c+[j]).
__global__ void anticausal_kernel(PlaneGeometry g, float* slab, std::int64_t pitch, std::int64_t len,
                                  const float* last, float z) {
  const std::int64_t P = g.P;
  for (std::int64_t i = first_index(); i < g.fields * P; i += grid_step()) {
    const ValueIndex v = split(i, P);
    float* d = slab + v.f * pitch + v.p;
    float next = last ? last[i] : z * (0.0f - d[(len - 1) * P]);
    d[(len - 1) * P] = next;
    for (std::int64_t j0 = len - 2; j0 >= 0; j0 -= kBatch) {
      float x[kBatch];
#pragma unroll
      for (int b = 0; b < kBatch; ++b)
        if (j0 - b >= 0) x[b] = d[(j0 - b) * P];
#pragma unroll
      for (int b = 0; b < kBatch; ++b)
        if (j0 - b >= 0) {
          next = z * (next - x[b]);
          d[(j0 - b) * P] = next;
        }
    }
  }
}

__global__ void plane_carry_kernel(PlaneGeometry g, const float* plane, std::int64_t pitch, const float* carry_in,
                                   float zlen, float* out) {
  for (std::int64_t i = first_index(); i < g.fields * g.P; i += grid_step()) {
    const ValueIndex v = split(i, g.P);
    const float x = plane[v.f * pitch + v.p];
    out[i] = x + (carry_in ? zlen * carry_in[i] : 0.0f);
  }
}

__global__ void sum_shares_kernel(PlaneGeometry g, const float* gathered, int count, float mul, float div,
                                  float* out) {
  const std::int64_t values = g.fields * g.P;
  for (std::int64_t i = first_index(); i < values; i += grid_step()) {
    float sum = 0.0f;
    for (int s = 0; s < count; ++s) sum += gathered[s * values + i];
    out[i] = mul * sum / div;
  }
}

__global__ void anticausal_last_kernel(PlaneGeometry g, const float* n1, std::int64_t pitch1, const float* n2,
                                       std::int64_t pitch2, float z, float scale, float* out) {
  for (std::int64_t i = first_index(); i < g.fields * g.P; i += grid_step()) {
    const ValueIndex v = split(i, g.P);
    const float a = n1[v.f * pitch1 + v.p];
    out[i] = n2 ? scale * (a + z * n2[v.f * pitch2 + v.p]) : scale * a;
  }
}

__global__ void copy_planes_kernel(PlaneGeometry g, const float* src, std::int64_t src_pitch, float* dst,
                                   std::int64_t dst_pitch) {
  for (std::int64_t i = first_index(); i < g.fields * g.P; i += grid_step()) {
    const ValueIndex v = split(i, g.P);
    dst[v.f * dst_pitch + v.p] = src[v.f * src_pitch + v.p];
  }
}

}  // namespace splinebench::gpu::slabs::detail
