#include "gpu_common/device_arrays_support.hpp"

#include <string>

#include "gpu_common/axis_limits.hpp"
#include "gpu_common/evaluate_global.hpp"
#include "gpu_common/prefilter_step.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/error.hpp"

namespace splinebench::gpu {

void check_device_call(const Implementation& impl, const GridShape& shape, std::int64_t fields, Mode mode) {
  check_device_call(impl.name(), impl.capabilities(), shape, fields, mode);
}

// Messages are built only on failure: every call of the module's device path asks.
void check_device_call(std::string_view name, const Capabilities& capabilities, const GridShape& shape,
                       std::int64_t fields, Mode mode) {
  shape.validate();
  const auto who = [name] { return std::string(name); };
  if (fields < 1) throw Error(who() + ": fields must be >= 1, got " + std::to_string(fields));
  if (!capabilities.supports(shape.dims, shape.channels, mode))
    throw Unsupported(who() + ": " + capabilities.why_not(shape.dims, shape.channels, mode));
  for (int d = 0; d < shape.dims; ++d)
    if (shape.extent[d] >= kMaxAxisLength)
      throw Unsupported(who() + ": axis " + std::to_string(d) + " longer than 2^30 - 1 samples");
}

void GlobalEvaluationDeviceArrays::check(const GridShape& shape, std::int64_t fields, Mode mode) {
  if (!capabilities_) capabilities_ = owner_.capabilities();
  check_device_call(owner_.name(), *capabilities_, shape, fields, mode);
}

void GlobalEvaluationDeviceArrays::evaluate_device(const GridShape& shape, std::int64_t fields, Mode mode,
                                                   const float* d_coeffs, const float* d_coords, std::int64_t n,
                                                   float* d_out, const DeviceCall& call) {
  check(shape, fields, mode);
  if (n == 0) return;
  ScopedDevice device(call.device);
  evaluate_global(shape, fields, mode, d_coeffs, d_coords, n, d_out, stream_of(call));
}

void StepDeviceArrays::prefilter_device(const GridShape& shape, std::int64_t fields, Mode mode, const float* d_in,
                                        float* d_out, const DeviceCall& call) {
  check(shape, fields, mode);
  ScopedDevice device(call.device);
  const auto bytes = static_cast<std::size_t>(fields * shape.values()) * sizeof(float);
  SB_CUDA_CHECK(cudaMemcpyAsync(d_out, d_in, bytes, cudaMemcpyDeviceToDevice, stream_of(call)));
  prefilter_step(shape, fields, mode, d_out, stream_of(call));
}

}  // namespace splinebench::gpu
