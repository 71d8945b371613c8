// Times a region of GPU work on a stream with CUDA events and records it as a phase.
#pragma once

#include <cuda_runtime.h>

#include "splinebench/cuda/event.hpp"
#include "splinebench/phase_times.hpp"

namespace splinebench::gpu {

class EventTimer {
 public:
  void start(cudaStream_t stream) { start_.record(stream); }
  // Waits for the region to finish and returns its duration in seconds.
  double stop(cudaStream_t stream) {
    stop_.record(stream);
    return stop_.seconds_since(start_);
  }

 private:
  Event start_;
  Event stop_;
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
