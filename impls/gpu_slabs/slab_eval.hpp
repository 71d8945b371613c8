// Evaluation of the queries routed to one slab, from that slab's extended planes
// (slab_route.hpp): gpu_common's evaluate_global arithmetic (the same tap weights and
// nested 4-term sums, 4^D loads from global memory), with the axis-0 taps taken from the
// slab's len + 3 extended planes through local_tap() instead of the folded line.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "splinebench/types.hpp"

namespace splinebench::gpu::slabs {

struct SlabView {
  const float* ext = nullptr;  // field 0's extended plane 0
  std::int64_t pitch = 0;      // floats between fields: (len + 3) * P
  std::int64_t start = 0;      // first plane of the slab on the line
  std::int64_t len = 0;        // planes of the slab
};

// Evaluates `fields` fields at the slab's `n` queries (d_coords: (D, n) axis-major, on the
// slab's device) into d_out ([fields][n][channels]). Non-finite coordinates give NaN; a
// query whose taps are not all in the slab's extended planes (a routing error) gives NaN
// too, never a read outside the slab. Enqueued on `stream` (the current device's).
void evaluate_slab(const GridShape& shape, std::int64_t fields, Mode mode, const SlabView& slab,
                   const float* d_coords, std::int64_t n, float* d_out, cudaStream_t stream);

}  // namespace splinebench::gpu::slabs
