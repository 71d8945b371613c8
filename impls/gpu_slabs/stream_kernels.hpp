// The device steps the streamed sweep (stream_prefilter.hpp) needs beyond slab_kernels.hpp's:
// the causal recursion continued from the previous slab's last plane (slab_steps.hpp's
// causal_from_state), and a weighted sum of planes added into a running plane set (the
// pre-pass's causal initial value over chunks of planes, periodic's anti-causal sum over
// the slabs). Same conventions as slab_kernels.hpp: plane sets of `fields` planes of P
// floats, one thread per float of a plane, enqueued on `stream`, launch checked.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu_slabs/slab_kernels.hpp"
#include "gpu_slabs/slab_terms.hpp"

namespace splinebench::gpu::slabs {

// c+[0] = gain * f[0] + z * previous, c+[j] = gain * f[j] + z * c+[j-1] over `len`
// planes; `previous` (contiguous) is the previous slab's last causal plane.
void causal_from_state(const PlaneGeometry& g, float* slab, std::int64_t pitch, std::int64_t len,
                       const float* previous, float z, float gain, cudaStream_t stream);

// out (contiguous) = (accumulate ? out : 0) + the terms' weighted sum of planes, the sum
// formed from zero in the terms' order and then added (as the oracle adds a slab's share).
void add_weighted_sum(const PlaneGeometry& g, const PlaneTerms& terms, const float* slab, std::int64_t pitch,
                      float* out, bool accumulate, cudaStream_t stream);

}  // namespace splinebench::gpu::slabs
