// A row of CUDA events recorded back to back on one stream, so that consecutive
// launches can be timed one by one without synchronising the host between them
// (per-axis prefilter phases sum exactly to the whole prefilter).
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "splinebench/cuda/event.hpp"

namespace splinebench::gpu {

class EventChain {
 public:
  explicit EventChain(int count) : events_(static_cast<std::size_t>(count)) {}

  int size() const { return static_cast<int>(events_.size()); }
  void record(int i, cudaStream_t stream) { events_.at(i).record(stream); }
  // Seconds between events `from` and `to` (waits for `to`).
  double seconds(int from, int to) { return events_.at(to).seconds_since(events_.at(from)); }

 private:
  std::vector<Event> events_;
};

}  // namespace splinebench::gpu
