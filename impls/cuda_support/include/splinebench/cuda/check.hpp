// Checked CUDA runtime calls: a failing call throws splinebench::Error naming the call's
// text, the runtime's error and the file and line of the call; running out of device
// memory throws Unsupported instead ("out of device memory: ..."), so that a harness or
// driver records the case as too large for the device and continues.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "splinebench/error.hpp"

namespace splinebench::gpu {

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);

inline void check_cuda(cudaError_t err, const char* call, const char* file, int line) {
  if (err != cudaSuccess) throw_cuda_error(err, call, file, line);
}

// "" when a CUDA device is usable, otherwise why not ("not available: no CUDA device",
// a driver error).
std::string cuda_unavailable_reason();

}  // namespace splinebench::gpu

#define SB_CUDA_CHECK(call) ::splinebench::gpu::check_cuda((call), #call, __FILE__, __LINE__)
// After a kernel launch: launch-configuration errors now, execution errors at the
// next synchronising call (which is itself checked).
#define SB_CUDA_CHECK_LAUNCH(what) \
  ::splinebench::gpu::check_cuda(cudaGetLastError(), "launch of " what, __FILE__, __LINE__)
