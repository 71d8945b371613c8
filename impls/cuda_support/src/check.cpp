#include "splinebench/cuda/check.hpp"

#include <sstream>

namespace splinebench::gpu {

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  std::ostringstream msg;
  msg << call << " failed: " << cudaGetErrorName(err) << " (" << cudaGetErrorString(err) << ") at " << file
      << ':' << line;
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // clear the (not sticky) allocation error
    throw Unsupported("out of device memory: " + msg.str());
  }
  throw Error(msg.str());
}

std::string cuda_unavailable_reason() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0)) {
    (void)cudaGetLastError();
    return "not available: no CUDA device";
  }
  if (err == cudaErrorInsufficientDriver) {
    // What a machine without a GPU (no driver installed) reports.
    (void)cudaGetLastError();
    return "not available: no CUDA device (no CUDA driver, or one older than the runtime)";
  }
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return std::string("not available: ") + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
  }
  return "";
}

}  // namespace splinebench::gpu
