// The part every GPU implementation shares: a stream, pinned staging buffers, and the
// explicit memory phases, each timed on its own with CUDA events:
//   upload (pinned -> device samples), prefilter (+ prefilter_axis<k> per axis),
//   query_upload (pinned -> device coordinates), evaluate (the kernel only),
//   download (device -> pinned values), readback (device -> pinned coefficients).
// Copies between the caller's pageable buffers and the pinned ones are host work,
// recorded as `host_staging` so no transfer time hides in another phase.
// Derived classes provide the evaluation kernel and may bind extra storage.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "gpu_common/event_timer.hpp"
#include "gpu_common/event_chain.hpp"
#include "splinebench/cuda/device_buffer.hpp"
#include "splinebench/implementation.hpp"

namespace splinebench::gpu {

// Phase name for copies between caller memory and pinned staging buffers.
inline constexpr const char* kHostStagingPhase = "host_staging";

class GpuPipeline : public Implementation {
 public:
  GpuPipeline() = default;
  ~GpuPipeline() override;
  GpuPipeline(const GpuPipeline&) = delete;
  GpuPipeline& operator=(const GpuPipeline&) = delete;

  Capabilities capabilities() const override;
  Availability availability() const override;
  void prepare(const GridShape& shape, std::int64_t fields, const float* input, Mode mode, bool prefilter,
               PhaseTimes& times) override;
  void read_coefficients(float* out, PhaseTimes& times) override;
  void evaluate(const float* coords, std::int64_t n, float* out, PhaseTimes& times) override;
  void release() override;

 protected:
  // Hooks around the prefilter: samples are on the device (d_coeffs()) before it,
  // coefficients after it. Called only when prepare was asked to prefilter / always.
  virtual void before_prefilter(PhaseTimes& times) { (void)times; }
  virtual void after_prefilter(PhaseTimes& times) { (void)times; }
  // Enqueues the evaluation of every prepared field on stream() (device pointers).
  virtual void evaluate_device(const float* d_coords, std::int64_t n, float* d_out) = 0;
  virtual void release_storage() {}

  cudaStream_t stream() const { return stream_; }
  EventTimer& timer() { return *timer_; }
  const GridShape& shape() const { return shape_; }
  std::int64_t fields() const { return fields_; }
  Mode mode() const { return mode_; }
  const float* d_coeffs() const { return coeffs_.data(); }
  bool prepared() const { return prepared_; }
  // read_coefficients of an implementation whose coefficients live in its own buffer
  // (`d_coefficients`, fields() * shape().values() floats): the readback through the
  // pipeline's pinned staging buffer, timed as phase::readback.
  void read_coefficients_from(const float* d_coefficients, float* out, PhaseTimes& times);

 private:
  void ensure_stream();
  float* staging(std::size_t count);  // pinned host buffer of at least `count` floats

  GridShape shape_{};
  std::int64_t fields_ = 0;
  Mode mode_ = Mode::mirror;
  bool prepared_ = false;
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<EventTimer> timer_;
  std::unique_ptr<EventChain> chain_;
  DeviceBuffer<float> coeffs_;
  DeviceBuffer<float> coords_;
  DeviceBuffer<float> values_;
  PinnedBuffer<float> staging_;
};

// Grows `buffer` to at least `count` elements (never shrinks: repeated calls of
// similar sizes do not reallocate).
template <typename Buffer>
void ensure_capacity(Buffer& buffer, std::size_t count) {
  if (buffer.size() < count) {
    buffer.reset();
    buffer.resize(count);
  }
}

}  // namespace splinebench::gpu
