// Device buffers of the scattered system from one stream-ordered memory pool per device,
// allocated and freed on the calling thread's default stream (the system is built with
// per-thread default streams). A solver's preparation allocates and frees tens of buffers,
// some of a hundred megabytes: cudaMalloc maps fresh pages each time and cudaFree waits
// for the whole device, where a pool's free only queues behind the stream's work and the
// next allocation reuses the memory. The pool keeps up to kPoolKeptBytes between
// synchronisations, so a second reconstruction of a similar size maps nothing new.
// An allocation failure is Unsupported, as with every DeviceBuffer.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "splinebench/cuda/check.hpp"
#include "splinebench/cuda/device_buffer.hpp"

namespace splinebench::scattered::gpu::detail {

// Bytes a pool holds on to when the streams using it synchronise (freed memory above it
// goes back to the device): enough for every buffer of a 512^2 multigrid hierarchy, small
// beside what a volume's solve or another system later in the process may need.
inline constexpr std::uint64_t kPoolKeptBytes = 2ull << 30;

// The current device's pool, created on first use (thread-safe).
cudaMemPool_t scattered_pool();

// DeviceBuffer's allocation policy: the pool, on the per-thread default stream. A free
// returns the memory once the stream's work queued so far has run; a copy is ordered on
// the stream, and both return with the host memory free to reuse (the download waits for
// the stream).
struct PoolAllocation {
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    SB_CUDA_CHECK(cudaMallocFromPoolAsync(&p, bytes, scattered_pool(), cudaStreamPerThread));
    return p;
  }
  static void release(void* p) { cudaFreeAsync(p, cudaStreamPerThread); }
  static void upload(void* device, const void* host, std::size_t bytes) {
    SB_CUDA_CHECK(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, cudaStreamPerThread));
  }
  static void download(void* host, const void* device, std::size_t bytes) {
    SB_CUDA_CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, cudaStreamPerThread));
    SB_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  }
};

template <typename T>
using PooledBuffer = ::splinebench::gpu::DeviceBuffer<T, PoolAllocation>;

}  // namespace splinebench::scattered::gpu::detail
