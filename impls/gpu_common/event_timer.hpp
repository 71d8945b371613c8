// Times a region of GPU work on a stream with CUDA events and records it as a phase.
#pragma once

#include <cuda_runtime.h>

#include "cuda_check.hpp"
#include "splinebench/phase_times.hpp"

namespace splinebench::gpu {

class EventTimer {
 public:
  EventTimer() {
    SB_CUDA_CHECK(cudaEventCreate(&start_));
    SB_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  void start(cudaStream_t stream) { SB_CUDA_CHECK(cudaEventRecord(start_, stream)); }
  // Waits for the region to finish and returns its duration in seconds.
  double stop(cudaStream_t stream) {
    SB_CUDA_CHECK(cudaEventRecord(stop_, stream));
    SB_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    SB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms * 1e-3;
  }

 private:
  cudaEvent_t start_{};
  cudaEvent_t stop_{};
};

// Scope form: ScopedGpuPhase p(timer, stream, times, phase::prefilter);
class ScopedGpuPhase {
 public:
  ScopedGpuPhase(EventTimer& timer, cudaStream_t stream, PhaseTimes& times, const char* name)
      : timer_(timer), stream_(stream), times_(times), name_(name) {
    timer_.start(stream_);
  }
  ~ScopedGpuPhase() noexcept(false) { times_.add(name_, timer_.stop(stream_)); }

 private:
  EventTimer& timer_;
  cudaStream_t stream_;
  PhaseTimes& times_;
  const char* name_;
};

}  // namespace splinebench::gpu
