// What every scattered-reconstruction CUDA file needs: checked calls (an allocation
// failure is Unsupported, as a problem too large for the device), owning device buffers
// and events (the project's one copy of each, splinebench/cuda/), the launch shape, and
// f64 dot products of f32 vectors summed in a fixed order (so a solve repeats bit for bit).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "splinebench/cuda/check.hpp"
#include "splinebench/cuda/device_buffer.hpp"
#include "splinebench/cuda/event.hpp"
#include "splinebench/error.hpp"

namespace splinebench::scattered::gpu::detail {

// Inside splinebench::scattered::gpu, "gpu::" names this system's namespace: the shared
// helpers are brought in by name.
using ::splinebench::gpu::check_cuda;
using ::splinebench::gpu::DeviceBuffer;
using ::splinebench::gpu::Event;

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
