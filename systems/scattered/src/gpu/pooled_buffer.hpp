// Device buffers of the scattered system from one stream-ordered memory pool per device,
// allocated and freed on the calling thread's default stream (the system is built with
// per-thread default streams). A solver's preparation allocates and frees tens of buffers,
// some of a hundred megabytes: cudaMalloc maps fresh pages each time and cudaFree waits
// for the whole device, where a pool's free only queues behind the stream's work and the
// next allocation reuses the memory. The pool keeps up to kPoolKeptBytes between
// synchronisations, so a second reconstruction of a similar size maps nothing new.
// Same interface as splinebench::gpu::DeviceBuffer; an allocation failure is Unsupported.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "splinebench/cuda/check.hpp"

namespace splinebench::scattered::gpu::detail {

// Bytes a pool holds on to when the streams using it synchronise (freed memory above it
// goes back to the device): enough for every buffer of a 512^2 multigrid hierarchy, small
// beside what a volume's solve or another system later in the process may need.
inline constexpr std::uint64_t kPoolKeptBytes = 2ull << 30;

// The current device's pool, created on first use (thread-safe).
cudaMemPool_t scattered_pool();

template <typename T>
class PooledBuffer {
 public:
  PooledBuffer() = default;
  explicit PooledBuffer(std::size_t count) { resize(count); }
  ~PooledBuffer() { reset(); }
  PooledBuffer(const PooledBuffer&) = delete;
  PooledBuffer& operator=(const PooledBuffer&) = delete;
  PooledBuffer(PooledBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  PooledBuffer& operator=(PooledBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }

  // Reallocates only when the size changes; contents are not preserved.
  void resize(std::size_t count) {
    if (count == count_) return;
    reset();
    if (count)
      SB_CUDA_CHECK(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&ptr_), count * sizeof(T), scattered_pool(),
                                            cudaStreamPerThread));
    count_ = count;
  }
  // The memory returns to the pool once the stream's work queued so far has run.
  void reset() {
    if (ptr_) cudaFreeAsync(ptr_, cudaStreamPerThread);
    ptr_ = nullptr;
    count_ = 0;
  }
  T* data() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  // Copies of the whole buffer from and to `size()` host elements, ordered on the stream;
  // both return with the host memory free to reuse (the download waits for the stream).
  void upload(const T* host) {
    SB_CUDA_CHECK(cudaMemcpyAsync(ptr_, host, bytes(), cudaMemcpyHostToDevice, cudaStreamPerThread));
  }
  void download(T* host) const {
    SB_CUDA_CHECK(cudaMemcpyAsync(host, ptr_, bytes(), cudaMemcpyDeviceToHost, cudaStreamPerThread));
    SB_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace splinebench::scattered::gpu::detail
