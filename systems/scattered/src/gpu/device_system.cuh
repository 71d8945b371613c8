// What DeviceSystem (device_assembly.hpp) holds on the device, for the CUDA code that
// solves on it (gpu_cg.cu) without going through the host.
#pragma once

#include <cstddef>

#include "cuda_support.cuh"
#include "device_assembly.hpp"

namespace splinebench::scattered::gpu::detail {

struct DeviceSystem::State {
  long long rows = 0;
  std::size_t nnz = 0;
  DeviceBuffer<int> outer, inner;
  DeviceBuffer<double> value, rhs;
};

}  // namespace splinebench::scattered::gpu::detail
