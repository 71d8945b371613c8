#include "stream_hold.hpp"

#include <cstdint>

#include "gpu_common/cuda_check.hpp"

namespace splinebench::bench {
namespace {

__device__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin_for(std::uint64_t ns) {
  const std::uint64_t start = global_ns();
  while (global_ns() - start < ns) __nanosleep(1000);
}

}  // namespace

void hold_stream(cudaStream_t stream, double microseconds) {
  if (microseconds <= 0) return;
  spin_for<<<1, 1, 0, stream>>>(static_cast<std::uint64_t>(microseconds * 1e3));
  SB_CUDA_CHECK_LAUNCH("bench hold_stream");
}

}  // namespace splinebench::bench
