// The axis-0 steps of slab_steps.hpp on one slab's device, for all fields at once, and
// the plane copies of the exchanges. Host declarations; kernels in slab_kernels.cuh.
//
// A "plane set" is `fields` planes of P floats, field f's at base + f * pitch: a slab's
// plane j is the set (interior + j * P, slab pitch); exchanged planes (shares, carries,
// initial values, halo staging) are contiguous sets (pitch P). Every kernel has one
// thread per float of a plane (fields * P threads, grid-stride), so consecutive threads
// touch consecutive addresses of every plane they walk. All calls enqueue on `stream`,
// which must belong to the current device, and check the launch.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu_slabs/slab_terms.hpp"

namespace splinebench::gpu::slabs {

struct PlaneGeometry {
  std::int64_t P = 0;       // floats per plane
  std::int64_t fields = 0;  // planes per set
};

// The launch shape of every plane-set kernel (here and stream_kernels.hpp): kPlaneBlock
// threads per block, one thread per float of the set, grid-stride past 2^31 - 1 blocks.
// Throws naming `who` on an empty set.
inline constexpr int kPlaneBlock = 256;
unsigned plane_blocks(const PlaneGeometry& g, const char* who);

// Steps 1 and 5 (periodic): out (contiguous) = sum over the terms of weight * plane,
// summed from zero in the terms' order.
void weighted_sum(const PlaneGeometry& g, const PlaneTerms& terms, const float* slab, std::int64_t pitch,
                  float* out, cudaStream_t stream);

// Steps 4 and 8: plane += weight * carry (carry contiguous) for every term.
void add_weighted(const PlaneGeometry& g, const PlaneTerms& terms, float* slab, std::int64_t pitch,
                  const float* carry, cudaStream_t stream);

// Step 2: the causal recursion over `len` planes from zero state, or from `init`
// (contiguous, the initial value already divided by the norm) when not null.
void causal_from_zero(const PlaneGeometry& g, float* slab, std::int64_t pitch, std::int64_t len, const float* init,
                      float z, float gain, cudaStream_t stream);

// Step 6: the anti-causal recursion from zero state at the last of `len` planes, or from
// `last` (contiguous) when not null.
void anticausal_from_zero(const PlaneGeometry& g, float* slab, std::int64_t pitch, std::int64_t len,
                          const float* last, float z, cudaStream_t stream);

// Steps 3 and 7: out (contiguous) = plane + zlen * carry_in, or the plane alone when
// carry_in is null.
void plane_carry(const PlaneGeometry& g, const float* plane, std::int64_t pitch, const float* carry_in, float zlen,
                 float* out, cudaStream_t stream);

// The summed shares: out = (mul * (sum over `count` contiguous sets of `gathered`)) / div,
// the sets added in order from zero.
void sum_shares(const PlaneGeometry& g, const float* gathered, int count, float mul, float div, float* out,
                cudaStream_t stream);

// Step 5 (mirror, half): out = scale * (n1 + z * n2), or scale * n1 when n2 is null.
void anticausal_last(const PlaneGeometry& g, const float* n1, std::int64_t pitch1, const float* n2,
                     std::int64_t pitch2, float z, float scale, float* out, cudaStream_t stream);

// dst plane set = src plane set (pack and unpack of the halo exchange).
void copy_planes(const PlaneGeometry& g, const float* src, std::int64_t src_pitch, float* dst,
                 std::int64_t dst_pitch, cudaStream_t stream);

}  // namespace splinebench::gpu::slabs
