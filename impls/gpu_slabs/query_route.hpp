// Host routing of evaluation queries to slabs: each query goes to the slab whose extended
// planes hold its four axis-0 taps (slab_route.hpp's tap_home and slab_of), and the
// coordinates are gathered into one contiguous axis-major block per slab. Plain C++.
//
// The cell is computed exactly as the device kernels compute it (floorf of the float
// coordinate, reduced modulo the mode's period in double, which is exact), so the slab
// chosen here is the slab whose kernel finds every tap in its extended planes. Queries
// with a non-finite axis-0 coordinate go to slab 0, whose kernel writes NaN for them.
#pragma once

#include <cstdint>
#include <vector>

#include "gpu_slabs/slab_layout.hpp"

namespace splinebench::gpu::slabs {

struct QueryRoute {
  std::vector<std::int64_t> offset;  // slab s's queries are positions [offset[s], offset[s+1])
  std::vector<std::int64_t> order;   // order[position] = the caller's query index
  std::vector<std::uint16_t> slab;   // scratch: each query's slab

  std::int64_t count(int s) const { return offset[s + 1] - offset[s]; }
};

// floor(x) reduced into [0, period) as the GPU kernels do (gpu_common/axis_math.cuh).
std::int64_t host_cell(float x, std::int64_t period);

// Routes `n` queries (coords axis-major, `dims` axes) to the slabs of `layout`, and writes
// slab s's coordinates, axis-major over its own queries, to
// staged[dims * offset[s] .. dims * offset[s+1]).
void route_queries(const float* coords, std::int64_t n, int dims, int mode, const SlabLayout& layout,
                   QueryRoute& route, float* staged);

// out[f][order[pos]][c] = staged[f-major block of slab s][pos - offset[s]][c]: slab s's
// values sit at staged + fields * offset[s] * channels as [fields][count(s)][channels].
void scatter_values(const QueryRoute& route, int slabs, std::int64_t fields, std::int64_t n, int channels,
                    const float* staged, float* out);

}  // namespace splinebench::gpu::slabs
