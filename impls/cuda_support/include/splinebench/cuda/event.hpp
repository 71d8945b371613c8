// An owning CUDA event (RAII) and the GPU time between two of them.
#pragma once

#include <cuda_runtime.h>

#include "splinebench/cuda/check.hpp"

namespace splinebench::gpu {

class Event {
 public:
  Event() { SB_CUDA_CHECK(cudaEventCreate(&e_)); }
  ~Event() {
    if (e_) cudaEventDestroy(e_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  cudaEvent_t get() const { return e_; }
  // On `stream` (the legacy default stream when none is given).
  void record(cudaStream_t stream = nullptr) { SB_CUDA_CHECK(cudaEventRecord(e_, stream)); }
  // Seconds from `start` to this event; waits for this one.
  double seconds_since(const Event& start) const {
    SB_CUDA_CHECK(cudaEventSynchronize(e_));
    float ms = 0;
    SB_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, e_));
    return ms * 1e-3;
  }

 private:
  cudaEvent_t e_{};
};

}  // namespace splinebench::gpu
