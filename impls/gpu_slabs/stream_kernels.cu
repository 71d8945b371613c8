// Host side of stream_kernels.hpp: launch shapes (one thread per float of a plane set,
// grid-stride: slab_kernels.hpp's plane_blocks) and checked launches.
#include <string>

#include "gpu_slabs/stream_kernels.cuh"
#include "gpu_slabs/stream_kernels.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/error.hpp"

namespace splinebench::gpu::slabs {
namespace {

constexpr int kBlock = kPlaneBlock;
unsigned blocks_for(const PlaneGeometry& g) { return plane_blocks(g, "gpu_slabs streamed"); }

}  // namespace

void causal_from_state(const PlaneGeometry& g, float* slab, std::int64_t pitch, std::int64_t len,
                       const float* previous, float z, float gain, cudaStream_t stream) {
  if (!previous) throw Error("gpu_slabs streamed: causal_from_state without the previous plane");
  stream_detail::causal_state_kernel<<<blocks_for(g), kBlock, 0, stream>>>(g, slab, pitch, len, previous, z, gain);
  SB_CUDA_CHECK_LAUNCH("causal_state_kernel");
}

void add_weighted_sum(const PlaneGeometry& g, const PlaneTerms& terms, const float* slab, std::int64_t pitch,
                      float* out, bool accumulate, cudaStream_t stream) {
  if (terms.count < 0 || terms.count > kMaxTerms)
    throw Error("gpu_slabs streamed: " + std::to_string(terms.count) + " plane terms, at most " +
                std::to_string(kMaxTerms));
  stream_detail::add_weighted_sum_kernel<<<blocks_for(g), kBlock, 0, stream>>>(g, terms, slab, pitch, out,
                                                                               accumulate);
  SB_CUDA_CHECK_LAUNCH("add_weighted_sum_kernel");
}

}  // namespace splinebench::gpu::slabs
