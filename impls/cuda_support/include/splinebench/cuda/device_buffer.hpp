// Owning device and pinned-host buffers (RAII), sized in elements. Allocation failures
// are checked like every CUDA call (check.hpp): out of device memory is Unsupported.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "splinebench/cuda/check.hpp"

namespace splinebench::gpu {

// How a DeviceBuffer takes and returns its memory and copies a whole buffer: cudaMalloc,
// cudaFree and synchronous copies. Another policy (a stream-ordered pool, say) provides the
// same four functions.
struct CudaMallocAllocation {
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    SB_CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
  }
  static void release(void* p) { cudaFree(p); }
  static void upload(void* device, const void* host, std::size_t bytes) {
    SB_CUDA_CHECK(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
  }
  static void download(void* host, const void* device, std::size_t bytes) {
    SB_CUDA_CHECK(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost));
  }
};

template <typename T, typename Allocation = CudaMallocAllocation>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) { resize(count); }
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
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
    if (count) ptr_ = static_cast<T*>(Allocation::allocate(count * sizeof(T)));
    count_ = count;
  }
  void reset() {
    if (ptr_) Allocation::release(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }
  T* data() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  // Copies of the whole buffer from and to `size()` host elements; both return with the
  // host memory free to reuse.
  void upload(const T* host) { Allocation::upload(ptr_, host, bytes()); }
  void download(T* host) const { Allocation::download(host, ptr_, bytes()); }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count) { resize(count); }
  ~PinnedBuffer() { reset(); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  void resize(std::size_t count) {
    if (count == count_) return;
    reset();
    if (count) SB_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&ptr_), count * sizeof(T)));
    count_ = count;
  }
  void reset() {
    if (ptr_) cudaFreeHost(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }
  T* data() const { return ptr_; }
  std::size_t size() const { return count_; }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace splinebench::gpu
