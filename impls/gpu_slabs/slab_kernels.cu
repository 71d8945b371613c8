// Host side of slab_kernels.hpp: launch shapes (one thread per float of a plane set,
// grid-stride) and checked launches.
#include <algorithm>
#include <string>

#include "gpu_slabs/slab_kernels.cuh"
#include "gpu_slabs/slab_kernels.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/error.hpp"

namespace splinebench::gpu::slabs {

unsigned plane_blocks(const PlaneGeometry& g, const char* who) {
  if (g.P < 1 || g.fields < 1) throw Error(std::string(who) + ": empty plane set");
  const std::int64_t blocks = (g.fields * g.P + kPlaneBlock - 1) / kPlaneBlock;
  return static_cast<unsigned>(std::min<std::int64_t>(blocks, 0x7fffffff));
}

namespace {

constexpr int kBlock = kPlaneBlock;
unsigned blocks_for(const PlaneGeometry& g) { return plane_blocks(g, "gpu_slabs"); }

void check_terms(const PlaneTerms& terms) {
  if (terms.count < 0 || terms.count > kMaxTerms)
    throw Error("gpu_slabs: " + std::to_string(terms.count) + " plane terms, at most " + std::to_string(kMaxTerms));
}

}  // namespace

void weighted_sum(const PlaneGeometry& g, const PlaneTerms& terms, const float* slab, std::int64_t pitch,
                  float* out, cudaStream_t stream) {
  check_terms(terms);
  detail::weighted_sum_kernel<<<blocks_for(g), kBlock, 0, stream>>>(g, terms, slab, pitch, out);
  SB_CUDA_CHECK_LAUNCH("weighted_sum_kernel");
}

void add_weighted(const PlaneGeometry& g, const PlaneTerms& terms, float* slab, std::int64_t pitch,
                  const float* carry, cudaStream_t stream) {
  check_terms(terms);
  if (terms.count == 0) return;
  detail::add_weighted_kernel<<<blocks_for(g), kBlock, 0, stream>>>(g, terms, slab, pitch, carry);
  SB_CUDA_CHECK_LAUNCH("add_weighted_kernel");
}

void causal_from_zero(const PlaneGeometry& g, float* slab, std::int64_t pitch, std::int64_t len, const float* init,
                      float z, float gain, cudaStream_t stream) {
  detail::causal_kernel<<<blocks_for(g), kBlock, 0, stream>>>(g, slab, pitch, len, init, z, gain);
  SB_CUDA_CHECK_LAUNCH("causal_kernel");
}

void anticausal_from_zero(const PlaneGeometry& g, float* slab, std::int64_t pitch, std::int64_t len,
                          const float* last, float z, cudaStream_t stream) {
  detail::anticausal_kernel<<<blocks_for(g), kBlock, 0, stream>>>(g, slab, pitch, len, last, z);
  SB_CUDA_CHECK_LAUNCH("anticausal_kernel");
}

void plane_carry(const PlaneGeometry& g, const float* plane, std::int64_t pitch, const float* carry_in, float zlen,
                 float* out, cudaStream_t stream) {
  detail::plane_carry_kernel<<<blocks_for(g), kBlock, 0, stream>>>(g, plane, pitch, carry_in, zlen, out);
  SB_CUDA_CHECK_LAUNCH("plane_carry_kernel");
}

void sum_shares(const PlaneGeometry& g, const float* gathered, int count, float mul, float div, float* out,
                cudaStream_t stream) {
  detail::sum_shares_kernel<<<blocks_for(g), kBlock, 0, stream>>>(g, gathered, count, mul, div, out);
  SB_CUDA_CHECK_LAUNCH("sum_shares_kernel");
}

void anticausal_last(const PlaneGeometry& g, const float* n1, std::int64_t pitch1, const float* n2,
                     std::int64_t pitch2, float z, float scale, float* out, cudaStream_t stream) {
  detail::anticausal_last_kernel<<<blocks_for(g), kBlock, 0, stream>>>(g, n1, pitch1, n2, pitch2, z, scale, out);
  SB_CUDA_CHECK_LAUNCH("anticausal_last_kernel");
}

void copy_planes(const PlaneGeometry& g, const float* src, std::int64_t src_pitch, float* dst,
                 std::int64_t dst_pitch, cudaStream_t stream) {
  detail::copy_planes_kernel<<<blocks_for(g), kBlock, 0, stream>>>(g, src, src_pitch, dst, dst_pitch);
  SB_CUDA_CHECK_LAUNCH("copy_planes_kernel");
}

}  // namespace splinebench::gpu::slabs
