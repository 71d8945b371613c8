// `gpu_flex` and `gpu_flex_fixed`: the single-launch prefilter with flexible tile
// allocation (flex_kernels.cu) and its fixed-allocation baseline (the same tile code,
// one launch per axis), both evaluating through evaluate_global (4^D global loads per
// query, float32 taps: the accurate path, within the f32 tolerance for every D). The
// hardware-linear texture evaluation is gpu_texture's, a separate name.
//
// Memory phases (upload, query_upload, download, staging) are GpuPipeline's; the
// samples stay in its buffer and the prefilter writes a separate coefficient buffer
// (out of place: the tiles read halos that neighbouring tiles overwrite in place).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "gpu_common/flex/flex_launch.hpp"
#include "gpu_common/device_arrays_support.hpp"
#include "gpu_common/evaluate_global.hpp"
#include "gpu_common/gpu_pipeline.hpp"
#include "gpu_common/halo_tolerance.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/cuda/device_buffer.hpp"
#include "splinebench/error.hpp"

namespace splinebench::impls {
namespace {

using gpu::flex::Variant;

// The device-array path: the same plan and launch on the caller's buffers and stream.
// What a call needs beyond the caller's arrays is kept per (device, stream) and reused by
// the next call on that stream, in that stream's order: a runner (its ticket counters
// and its plans of the last problems, which also give the temporary's size: planning a
// 256^3 batch costs microseconds of host time, which a caller timing one call on its
// stream would see) and the temporary buffer. The harness keeps the same: its runner and buffers
// live across repetitions. Calls on different streams share nothing, so they may run at
// the same time. At most kStreamsKept streams are kept (the least recently used goes,
// its buffers freed after the device has finished its work).
class FlexDeviceArrays final : public gpu::GlobalEvaluationDeviceArrays {
 public:
  FlexDeviceArrays(const Implementation& owner, Variant variant)
      : GlobalEvaluationDeviceArrays(owner), variant_(variant) {}

  using DeviceArrays::prefilter_device;
  void prefilter_device(const GridShape& shape, std::int64_t fields, Mode mode, const float* d_in, float* d_out,
                        const DeviceCall& call) override {
    check(shape, fields, mode);
    gpu::ScopedDevice device(call.device);
    PerStream& kept = per_stream(call);
    const std::int64_t tmp = kept.runner.tmp_values(variant_, shape, fields, mode);
    if (kept.tmp.size() < static_cast<std::size_t>(tmp)) {
      // A smaller buffer may still be in use by this stream's earlier work: let that finish
      // before it is freed (cudaFree is not documented to wait).
      if (kept.tmp.size() > 0) SB_CUDA_CHECK(cudaDeviceSynchronize());
      gpu::ensure_capacity(kept.tmp, static_cast<std::size_t>(tmp));
    }
    kept.runner.run(variant_, shape, fields, mode, d_in, d_out, tmp ? kept.tmp.data() : nullptr, gpu::stream_of(call));
  }

 private:
  struct PerStream {
    int device = -1;
    std::uintptr_t stream = 0;
    gpu::flex::FlexRunner runner;  // keeps its plans: tmp_values and run plan once per problem
    gpu::DeviceBuffer<float> tmp;
  };
  static constexpr std::size_t kStreamsKept = 4;

  // The most recent first; made on first use of a (device, stream) with the device current.
  PerStream& per_stream(const DeviceCall& call) {
    for (std::size_t i = 0; i < streams_.size(); ++i)
      if (streams_[i]->device == call.device && streams_[i]->stream == call.stream) {
        std::rotate(streams_.begin(), streams_.begin() + static_cast<std::ptrdiff_t>(i),
                    streams_.begin() + static_cast<std::ptrdiff_t>(i) + 1);
        return *streams_.front();
      }
    if (streams_.size() == kStreamsKept) {
      // Its buffers may still be in use by work on its stream, which may be gone by now.
      const gpu::ScopedDevice its(streams_.back()->device);
      SB_CUDA_CHECK(cudaDeviceSynchronize());
      streams_.pop_back();
    }
    auto fresh = std::make_unique<PerStream>();
    fresh->device = call.device;
    fresh->stream = call.stream;
    streams_.insert(streams_.begin(), std::move(fresh));
    return *streams_.front();
  }

  Variant variant_;
  std::vector<std::unique_ptr<PerStream>> streams_;
};

class GpuFlex final : public gpu::GpuPipeline {
 public:
  explicit GpuFlex(Variant variant) : variant_(variant), device_arrays_(*this, variant) {}

  DeviceArrays* device_arrays() override { return &device_arrays_; }

  std::string_view name() const override { return variant_ == Variant::flexible ? "gpu_flex" : "gpu_flex_fixed"; }
  std::string_view description() const override {
    return variant_ == Variant::flexible
               ? "CUDA f32: whole N-D prefilter of the batch in one launch, tiles taken from a ticket counter "
                 "(flexible allocation) with per-field pass counters; 16-sample halos; last two (D=2) or three "
                 "(D>=3) axes fused per tile; 4^D global-memory loads per query"
               : "CUDA f32: baseline of gpu_flex with fixed allocation: the same tile arithmetic, one launch per "
                 "axis, tile = blockIdx; same evaluation as gpu_flex";
  }

  std::vector<std::string> run_facts() const override {
    std::vector<std::string> facts = {
        std::string("prefilter=") + (variant_ == Variant::flexible ? "flexible single launch" : "fixed, launch per axis"),
        "halo=16 samples (truncation <= 1.0e-9 max|input| per axis)"};
    if (!runner_.last_description().empty()) facts.push_back("plan=" + runner_.last_description());
    facts.push_back("evaluate=4^D global loads");
    return facts;
  }

  Tolerance tolerance(const GridShape& shape) const override { return gpu::halo_truncated_tolerance(shape); }
  std::string evaluation() const override { return "f32 taps, global loads"; }

  void prepare(const GridShape& shape, std::int64_t fields, const float* input, Mode mode, bool prefilter,
               PhaseTimes& times) override {
    prefilter_ = prefilter;
    // Uploads the samples into the pipeline's buffer; after_prefilter does the rest.
    GpuPipeline::prepare(shape, fields, input, mode, false, times);
  }

  void read_coefficients(float* out, PhaseTimes& times) override {
    read_coefficients_from(coeffs_.data(), out, times);
  }

 protected:
  void after_prefilter(PhaseTimes& times) override {
    const std::int64_t count = fields() * shape().values();
    if (coeffs_.size() != static_cast<std::size_t>(count)) coeffs_.resize(static_cast<std::size_t>(count));
    if (!prefilter_) {
      SB_CUDA_CHECK(cudaMemcpyAsync(coeffs_.data(), d_coeffs(), count * sizeof(float), cudaMemcpyDeviceToDevice,
                                    stream()));
    } else {
      const std::int64_t tmp = runner_.tmp_values(variant_, shape(), fields(), mode());
      if (tmp_.size() < static_cast<std::size_t>(tmp)) tmp_.resize(static_cast<std::size_t>(tmp));
      timer().start(stream());
      runner_.run(variant_, shape(), fields(), mode(), d_coeffs(), coeffs_.data(), tmp ? tmp_.data() : nullptr,
                  stream());
      times.add(phase::prefilter, timer().stop(stream()));
    }
  }

  void evaluate_device(const float* d_coords, std::int64_t n, float* d_out) override {
    gpu::evaluate_global(shape(), fields(), mode(), coeffs_.data(), d_coords, n, d_out, stream());
  }

  void release_storage() override {
    coeffs_.reset();
    tmp_.reset();
  }

 private:
  Variant variant_;
  bool prefilter_ = true;
  gpu::flex::FlexRunner runner_;
  gpu::DeviceBuffer<float> coeffs_;
  gpu::DeviceBuffer<float> tmp_;
  FlexDeviceArrays device_arrays_;
};

}  // namespace

ImplementationPtr make_gpu_flex() { return std::make_unique<GpuFlex>(Variant::flexible); }
ImplementationPtr make_gpu_flex_fixed() { return std::make_unique<GpuFlex>(Variant::fixed); }

}  // namespace splinebench::impls
