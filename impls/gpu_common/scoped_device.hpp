// Makes a CUDA device current for a scope, then the caller's again: the caller (CuPy,
// PyTorch, a harness thread) keeps its own notion of the current device, and code that
// works on several devices (gpu_slabs) must leave it as it found it.
#pragma once

namespace splinebench::gpu {

class ScopedDevice {
 public:
  explicit ScopedDevice(int device);
  ~ScopedDevice();
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = -1;
};

}  // namespace splinebench::gpu
