// The optional interface of CUDA implementations that can work on arrays already on the
// device: the same prefilter and evaluation as prepare / evaluate, on the caller's device
// buffers, enqueued on the caller's stream, with no copy to or from the host and no
// synchronisation (work the caller puts on the same stream afterwards sees the results).
// The Python module hands CuPy and PyTorch arrays through it in place.
//
// Layouts as in implementation.hpp. Every pointer is a device pointer on CUDA device
// `device`; the implementation makes that device current for the call and restores the
// caller's. `stream` is a cudaStream_t as an integer, so that this header needs no CUDA
// (0: the legacy default stream). An implementation offers it through
// Implementation::device_arrays(); the f64 members only where f64() says so.
#pragma once

#include <cstdint>

#include "splinebench/types.hpp"

namespace splinebench {

struct DeviceCall {
  int device = 0;
  std::uintptr_t stream = 0;
};

class DeviceArrays {
 public:
  virtual ~DeviceArrays() = default;

  // Samples at d_in -> coefficients at d_out (distinct buffers that do not overlap).
  virtual void prefilter_device(const GridShape& shape, std::int64_t fields, Mode mode, const float* d_in,
                                float* d_out, const DeviceCall& call) = 0;
  // Coefficients at d_coeffs evaluated at the (D, n) coordinates d_coords into d_out
  // ([fields][n][channels]).
  virtual void evaluate_device(const GridShape& shape, std::int64_t fields, Mode mode, const float* d_coeffs,
                               const float* d_coords, std::int64_t n, float* d_out, const DeviceCall& call) = 0;

  // Whether the double members below work (the default ones throw Error).
  virtual bool f64() const { return false; }
  virtual void prefilter_device(const GridShape& shape, std::int64_t fields, Mode mode, const double* d_in,
                                double* d_out, const DeviceCall& call);
  virtual void evaluate_device(const GridShape& shape, std::int64_t fields, Mode mode, const double* d_coeffs,
                               const double* d_coords, std::int64_t n, double* d_out, const DeviceCall& call);
};

}  // namespace splinebench
