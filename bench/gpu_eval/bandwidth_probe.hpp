// Reference bandwidths measured in the same run as the kernels they are compared
// with: streaming reads that stay in L2 (the ceiling for cache-sector traffic of
// random gathers) and reads from DRAM.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace splinebench::bench {

// Bytes per second of coalesced 16-byte loads (L1 bypassed) over a `bytes` buffer,
// read `passes` times per launch; median of `reps` launches after warm-up.
double read_bandwidth(std::size_t bytes, int passes, int reps, cudaStream_t stream);

// Fills `bytes` of scratch memory so earlier data is evicted from L2 ("cold" runs).
class L2Flusher {
 public:
  explicit L2Flusher(std::size_t bytes);
  ~L2Flusher();
  L2Flusher(const L2Flusher&) = delete;
  L2Flusher& operator=(const L2Flusher&) = delete;
  void flush(cudaStream_t stream);

 private:
  void* buffer_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace splinebench::bench
