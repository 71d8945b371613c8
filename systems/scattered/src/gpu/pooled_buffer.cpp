#include "pooled_buffer.hpp"

#include <array>
#include <mutex>
#include <string>

#include "splinebench/error.hpp"

namespace splinebench::scattered::gpu::detail {

cudaMemPool_t scattered_pool() {
  constexpr int kMaxDevices = 64;
  static std::mutex mutex;
  static std::array<cudaMemPool_t, kMaxDevices> pools{};
  int device = 0;
  SB_CUDA_CHECK(cudaGetDevice(&device));
  if (device < 0 || device >= kMaxDevices) fail("scattered GPU: device index " + std::to_string(device) + " past the pool table");
  const std::lock_guard<std::mutex> lock(mutex);
  cudaMemPool_t& pool = pools[static_cast<std::size_t>(device)];
  if (!pool) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    SB_CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
    std::uint64_t kept = kPoolKeptBytes;
    SB_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &kept));
  }
  return pool;
}

}  // namespace splinebench::scattered::gpu::detail
