// Every CUDA runtime call is checked; a failure becomes splinebench::Error naming the
// call and the runtime's message (Unsupported for out-of-memory).
#pragma once

#include <string>

#include <cuda_runtime_api.h>

#include "splinebench/error.hpp"

namespace splinebench::iir2d {

inline void cuda_check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  const std::string msg = std::string("iir2d: ") + what + ": " + cudaGetErrorString(e);
  if (e == cudaErrorMemoryAllocation) throw Unsupported(msg);
  throw Error(msg);
}

}  // namespace splinebench::iir2d

#define IIR2D_CUDA(call) ::splinebench::iir2d::cuda_check((call), #call)
