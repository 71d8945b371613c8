// What every scattered-reconstruction CUDA file needs: checked calls (an allocation
// failure is Unsupported, as a problem too large for the device), an owning device array,
// events, and f64 dot products of f32 vectors summed in a fixed order (so a solve repeats
// bit for bit).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <sstream>

#include "splinebench/error.hpp"

namespace splinebench::scattered::gpu::detail {

inline void cuda_check(cudaError_t err, const char* call, const char* file, int line) {
  if (err == cudaSuccess) return;
  std::ostringstream msg;
  msg << "CUDA error " << cudaGetErrorName(err) << " (" << cudaGetErrorString(err) << ") in " << call << " at " << file
      << ":" << line;
  if (err == cudaErrorMemoryAllocation) throw Unsupported(msg.str());
  throw Error(msg.str());
}
#define SCG_CUDA(call) ::splinebench::scattered::gpu::detail::cuda_check((call), #call, __FILE__, __LINE__)
#define SCG_LAUNCH(what) \
  ::splinebench::scattered::gpu::detail::cuda_check(cudaGetLastError(), "launch of " what, __FILE__, __LINE__)

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) { resize(n); }
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void resize(std::size_t n) {
    if (ptr_) SCG_CUDA(cudaFree(ptr_));
    ptr_ = nullptr;
    n_ = n;
    if (n) SCG_CUDA(cudaMalloc(&ptr_, n * sizeof(T)));
  }
  T* get() const { return ptr_; }
  std::size_t size() const { return n_; }
  void upload(const T* host) { SCG_CUDA(cudaMemcpy(ptr_, host, n_ * sizeof(T), cudaMemcpyHostToDevice)); }
  void download(T* host) const { SCG_CUDA(cudaMemcpy(host, ptr_, n_ * sizeof(T), cudaMemcpyDeviceToHost)); }

 private:
  T* ptr_ = nullptr;
  std::size_t n_ = 0;
};

class DeviceEvent {
 public:
  DeviceEvent() { SCG_CUDA(cudaEventCreate(&e_)); }
  ~DeviceEvent() { cudaEventDestroy(e_); }
  DeviceEvent(const DeviceEvent&) = delete;
  DeviceEvent& operator=(const DeviceEvent&) = delete;
  void record() { SCG_CUDA(cudaEventRecord(e_)); }
  // Seconds from `start` to this event (synchronises on this one).
  double seconds_since(const DeviceEvent& start) const {
    SCG_CUDA(cudaEventSynchronize(e_));
    float ms = 0;
    SCG_CUDA(cudaEventElapsedTime(&ms, start.e_, e_));
    return ms * 1e-3;
  }

 private:
  cudaEvent_t e_{};
};

inline constexpr int kThreads = 256;
inline int blocks_for(long long threads) { return static_cast<int>((threads + kThreads - 1) / kThreads); }

// a.b with every product and sum in f64: per-block partials in a fixed grid-stride order,
// then one thread sums the partials in index order.
class DotProduct {
 public:
  static constexpr int kBlocks = 264;  // two waves of an H100's 132 SMs
  DotProduct() : partial_(kBlocks), result_(1) {}
  double operator()(long long n, const float* a, const float* b);

 private:
  DeviceBuffer<double> partial_, result_;
};

}  // namespace splinebench::scattered::gpu::detail
