// What the GPU implementations' device-array paths share (splinebench/device_arrays.hpp):
// the caller's device made current for a call, the checks every call makes, and the
// paths of the implementations that prefilter with the step kernel and evaluate with
// 4^D global loads.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "gpu_common/scoped_device.hpp"
#include "splinebench/device_arrays.hpp"
#include "splinebench/implementation.hpp"

namespace splinebench::gpu {

inline cudaStream_t stream_of(const DeviceCall& call) { return reinterpret_cast<cudaStream_t>(call.stream); }


// Throws as prepare does: an invalid shape, fields < 1, a case the capabilities exclude
// (Unsupported), an axis the kernels cannot index (Unsupported).
void check_device_call(const Implementation& impl, const GridShape& shape, std::int64_t fields, Mode mode);
// The same with the implementation's name and capabilities given (asked once by a caller
// that keeps them: they do not change while the implementation lives).
void check_device_call(std::string_view name, const Capabilities& capabilities, const GridShape& shape,
                       std::int64_t fields, Mode mode);

// Evaluation through evaluate_global in float; the prefilter is the deriving class's.
class GlobalEvaluationDeviceArrays : public DeviceArrays {
 public:
  explicit GlobalEvaluationDeviceArrays(const Implementation& owner) : owner_(owner) {}
  using DeviceArrays::evaluate_device;
  void evaluate_device(const GridShape& shape, std::int64_t fields, Mode mode, const float* d_coeffs,
                       const float* d_coords, std::int64_t n, float* d_out, const DeviceCall& call) override;

 protected:
  const Implementation& owner() const { return owner_; }
  // check_device_call for the owner, its capabilities asked on the first call (not in the
  // constructor: the owner is still being made then).
  void check(const GridShape& shape, std::int64_t fields, Mode mode);

 private:
  const Implementation& owner_;
  std::optional<Capabilities> capabilities_;
};

// The step prefilter (a copy d_in -> d_out, then in place on d_out, one launch per axis)
// and evaluate_global, in float.
class StepDeviceArrays : public GlobalEvaluationDeviceArrays {
 public:
  using GlobalEvaluationDeviceArrays::GlobalEvaluationDeviceArrays;
  using DeviceArrays::prefilter_device;
  void prefilter_device(const GridShape& shape, std::int64_t fields, Mode mode, const float* d_in, float* d_out,
                        const DeviceCall& call) override;
};

}  // namespace splinebench::gpu
