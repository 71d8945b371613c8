// A row of CUDA events recorded back to back on one stream, so that consecutive
// launches can be timed one by one without synchronising the host between them
// (per-axis prefilter phases sum exactly to the whole prefilter).
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "gpu_common/cuda_check.hpp"

namespace splinebench::gpu {

class EventChain {
 public:
  explicit EventChain(int count) : events_(static_cast<std::size_t>(count)) {
    for (auto& e : events_) SB_CUDA_CHECK(cudaEventCreate(&e));
  }
  ~EventChain() {
    for (auto e : events_)
      if (e) cudaEventDestroy(e);
  }
  EventChain(const EventChain&) = delete;
  EventChain& operator=(const EventChain&) = delete;

  int size() const { return static_cast<int>(events_.size()); }
  void record(int i, cudaStream_t stream) { SB_CUDA_CHECK(cudaEventRecord(events_.at(i), stream)); }
  // Seconds between events `from` and `to` (waits for `to`).
  double seconds(int from, int to) {
    SB_CUDA_CHECK(cudaEventSynchronize(events_.at(to)));
    float ms = 0;
    SB_CUDA_CHECK(cudaEventElapsedTime(&ms, events_.at(from), events_.at(to)));
    return ms * 1e-3;
  }

 private:
  std::vector<cudaEvent_t> events_;
};

}  // namespace splinebench::gpu
