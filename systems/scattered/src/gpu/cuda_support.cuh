// What every scattered-reconstruction CUDA file needs: checked calls (an allocation
// failure is Unsupported, as a problem too large for the device), owning device buffers
// from the system's stream-ordered pool (pooled_buffer.hpp), events (the project's,
// splinebench/cuda/), the launch shape, and f64 dot products of f32 vectors summed in a
// fixed order (so a solve repeats bit for bit).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "pooled_buffer.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/cuda/event.hpp"
#include "splinebench/error.hpp"

namespace splinebench::scattered::gpu::detail {

// Inside splinebench::scattered::gpu, "gpu::" names this system's namespace: the shared
// helpers are brought in by name. Every buffer here is a pooled one.
using ::splinebench::gpu::check_cuda;
template <typename T>
using DeviceBuffer = PooledBuffer<T>;
using ::splinebench::gpu::Event;

// Waits for this host thread's device work: its default stream, which is its own (the
// library is built with per-thread default streams), so a thread solving one block does
// not wait for the blocks other threads solve at the same time.
inline void sync_this_thread() { SB_CUDA_CHECK(cudaStreamSynchronize(0)); }

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

// y = A p once, for tests: p uploaded, y poisoned (NaN where no thread writes), one
// `op.apply`, y downloaded. `who` names the caller in the size error.
template <typename Operator>
std::vector<float> apply_once(Operator& op, const std::vector<float>& p, const char* who) {
  const auto n = static_cast<std::size_t>(op.rows());
  if (p.size() != n)
    fail(std::string(who) + ": p has " + std::to_string(p.size()) + " values for " + std::to_string(n) + " rows");
  DeviceBuffer<float> d_p(n), d_ap(n);
  d_p.upload(p.data());
  SB_CUDA_CHECK(cudaMemset(d_ap.data(), 0xFF, n * sizeof(float)));
  op.apply(d_p.data(), d_ap.data());
  std::vector<float> out(n);
  d_ap.download(out.data());
  return out;
}

}  // namespace splinebench::scattered::gpu::detail
