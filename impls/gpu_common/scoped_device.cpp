#include "gpu_common/scoped_device.hpp"

#include <cuda_runtime.h>

#include "splinebench/cuda/check.hpp"

namespace splinebench::gpu {

ScopedDevice::ScopedDevice(int device) {
  SB_CUDA_CHECK(cudaGetDevice(&previous_));
  if (previous_ != device) SB_CUDA_CHECK(cudaSetDevice(device));
}

ScopedDevice::~ScopedDevice() {
  int now = -1;
  // A destructor cannot throw: a failure here leaves the device as it is.
  if (cudaGetDevice(&now) == cudaSuccess && now != previous_) (void)cudaSetDevice(previous_);
}

}  // namespace splinebench::gpu
