#include "gpu_common/gpu_pipeline.hpp"

#include <cstring>
#include <string>

#include "gpu_common/axis_limits.hpp"
#include "gpu_common/prefilter_step.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/error.hpp"

namespace splinebench::gpu {

GpuPipeline::~GpuPipeline() {
  if (stream_) cudaStreamDestroy(stream_);
}

Capabilities GpuPipeline::capabilities() const {
  Capabilities caps;
  caps.device = Device::gpu;
  return caps;
}

Availability GpuPipeline::availability() const {
  const std::string reason = cuda_unavailable_reason();
  return {reason.empty(), reason};
}

void GpuPipeline::ensure_stream() {
  if (stream_) return;
  const std::string reason = cuda_unavailable_reason();
  if (!reason.empty()) throw Unsupported(std::string(name()) + ": " + reason);
  SB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  timer_ = std::make_unique<EventTimer>();
  chain_ = std::make_unique<EventChain>(kMaxDims + 1);
}

float* GpuPipeline::staging(std::size_t count) {
  ensure_capacity(staging_, count);
  return staging_.data();
}

void GpuPipeline::prepare(const GridShape& shape, std::int64_t fields, const float* input, Mode mode,
                          bool prefilter, PhaseTimes& times) {
  shape.validate();
  const std::string who(name());
  if (fields < 1) throw Error(who + ": fields must be >= 1, got " + std::to_string(fields));
  if (!input) throw Error(who + ": null input");
  const std::string why = capabilities().why_not(shape.dims, shape.channels, mode);
  if (!why.empty()) throw Unsupported(who + ": " + why);
  for (int d = 0; d < shape.dims; ++d)
    if (shape.extent[d] >= kMaxAxisLength)
      throw Unsupported(who + ": axis " + std::to_string(d) + " longer than 2^30 - 1 samples");
  ensure_stream();

  prepared_ = false;
  shape_ = shape;
  fields_ = fields;
  mode_ = mode;
  const std::size_t count = static_cast<std::size_t>(fields * shape.values());
  coeffs_.resize(count);
  float* host = staging(count);
  {
    ScopedPhase p(times, kHostStagingPhase);
    std::memcpy(host, input, count * sizeof(float));
  }
  timer_->start(stream_);
  SB_CUDA_CHECK(cudaMemcpyAsync(coeffs_.data(), host, count * sizeof(float), cudaMemcpyHostToDevice, stream_));
  times.add(phase::upload, timer_->stop(stream_));

  if (prefilter) {
    before_prefilter(times);
    // Events between the per-axis launches, no host synchronisation in between: the
    // axis phases add up to the whole prefilter exactly.
    chain_->record(0, stream_);
    for (int axis = 0; axis < shape.dims; ++axis) {
      prefilter_axis_step(shape, fields, mode, coeffs_.data(), axis, stream_);
      chain_->record(axis + 1, stream_);
    }
    for (int axis = 0; axis < shape.dims; ++axis)
      times.add(std::string(phase::prefilter) + "_axis" + std::to_string(axis), chain_->seconds(axis, axis + 1));
    times.add(phase::prefilter, chain_->seconds(0, shape.dims));
  }
  after_prefilter(times);
  prepared_ = true;
}

void GpuPipeline::read_coefficients(float* out, PhaseTimes& times) {
  read_coefficients_from(coeffs_.data(), out, times);
}

void GpuPipeline::read_coefficients_from(const float* d_coefficients, float* out, PhaseTimes& times) {
  if (!prepared_) throw Error(std::string(name()) + ": read_coefficients before prepare");
  const std::size_t count = static_cast<std::size_t>(fields_ * shape_.values());
  float* host = staging(count);
  timer_->start(stream_);
  SB_CUDA_CHECK(cudaMemcpyAsync(host, d_coefficients, count * sizeof(float), cudaMemcpyDeviceToHost, stream_));
  times.add(phase::readback, timer_->stop(stream_));
  ScopedPhase p(times, kHostStagingPhase);
  std::memcpy(out, host, count * sizeof(float));
}

void GpuPipeline::evaluate(const float* coords, std::int64_t n, float* out, PhaseTimes& times) {
  if (!prepared_) throw Error(std::string(name()) + ": evaluate before prepare");
  if (n < 0) throw Error(std::string(name()) + ": negative query count");
  if (n == 0) return;
  const std::size_t ncoords = static_cast<std::size_t>(shape_.dims * n);
  const std::size_t nvalues = static_cast<std::size_t>(fields_ * n * shape_.channels);
  ensure_capacity(coords_, ncoords);
  ensure_capacity(values_, nvalues);
  float* host = staging(ncoords > nvalues ? ncoords : nvalues);
  {
    ScopedPhase p(times, kHostStagingPhase);
    std::memcpy(host, coords, ncoords * sizeof(float));
  }
  timer_->start(stream_);
  SB_CUDA_CHECK(cudaMemcpyAsync(coords_.data(), host, ncoords * sizeof(float), cudaMemcpyHostToDevice, stream_));
  times.add(phase::query_upload, timer_->stop(stream_));

  // Poison the values (all-ones bytes are a NaN) so an element the kernel skips can
  // never pass a check with a stale value from an earlier call. Not timed.
  SB_CUDA_CHECK(cudaMemsetAsync(values_.data(), 0xFF, nvalues * sizeof(float), stream_));
  timer_->start(stream_);
  evaluate_device(coords_.data(), n, values_.data());
  times.add(phase::evaluate, timer_->stop(stream_));

  timer_->start(stream_);
  SB_CUDA_CHECK(cudaMemcpyAsync(host, values_.data(), nvalues * sizeof(float), cudaMemcpyDeviceToHost, stream_));
  times.add(phase::download, timer_->stop(stream_));
  ScopedPhase p(times, kHostStagingPhase);
  std::memcpy(out, host, nvalues * sizeof(float));
}

void GpuPipeline::release() {
  if (stream_) SB_CUDA_CHECK(cudaStreamSynchronize(stream_));
  release_storage();
  coeffs_.reset();
  coords_.reset();
  values_.reset();
  staging_.reset();
  prepared_ = false;
}

}  // namespace splinebench::gpu
