// `gpu_half_f16` and `gpu_half_bf16`: gpu_naive's float32 step prefilter, then the
// coefficients stored as f16 / bf16 (round to nearest even), evaluated with 4^D global
// loads widened to float and float32 tap sums (evaluate_global). Half the bytes per
// tap of the f32 path: the lever on random queries whose f32 gathers are bound by L2.
//
// Tolerance: the f32 algorithm's plus the storage rounding, from the magnitudes prepare
// measures per field (phase bound_stats; half_tolerance.hpp). f16 holds |c| <= 65504:
// a batch whose coefficients exceed it is refused (Unsupported) rather than turned into
// infinities; bf16 has float32's range.
//
// Read-back: after a prefilter, the stored values widened to float (so the prefilter
// error of a record includes the storage rounding); coefficients handed in
// (prefilter = false) read back as given, their stored rounding shows in the values.
#include <cstring>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "gpu_common/evaluate_global.hpp"
#include "gpu_common/gpu_pipeline.hpp"
#include "gpu_common/texture_tolerance.hpp"
#include "gpu_half/half_storage.hpp"
#include "gpu_half/half_tolerance.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/cuda/device_buffer.hpp"
#include "splinebench/error.hpp"
#include "splinebench/f32_accuracy.hpp"

namespace splinebench::impls {
namespace {

template <typename S>
gpu::StorageFormat format_of();
template <>
gpu::StorageFormat format_of<__half>() { return gpu::f16_format(); }
template <>
gpu::StorageFormat format_of<__nv_bfloat16>() { return gpu::bf16_format(); }

template <typename S>
class GpuHalf final : public gpu::GpuPipeline {
 public:
  GpuHalf() : format_(format_of<S>()), name_("gpu_half_" + format_.name) {}

  std::string_view name() const override { return name_; }
  std::string_view description() const override {
    return std::is_same_v<S, __half>
               ? "CUDA f32 step prefilter; coefficients stored as f16 (IEEE half, 11-bit significand, |c| <= 65504); "
                 "4^D global loads widened to float, float32 taps"
               : "CUDA f32 step prefilter; coefficients stored as bf16 (8-bit significand, float32 range); 4^D "
                 "global loads widened to float, float32 taps";
  }
  std::string evaluation() const override { return format_.name + " coefficients, f32 taps, global loads"; }
  std::vector<std::string> run_facts() const override {
    return {"prefilter=step (as gpu_naive), float32",
            "storage=" + format_.name + " coefficients (round to nearest even), conversion timed as bind",
            "evaluate=4^D global loads of " + format_.name + ", widened to float"};
  }

  Tolerance tolerance(const GridShape& shape) const override {
    std::optional<gpu::StoredMagnitudes> measured;
    if (stats_valid_ && prepared() && shape == this->shape()) measured = magnitudes_;
    return gpu::reduced_storage_tolerance(f32_accuracy::pass_by_pass_tolerance(shape), shape, format_, measured);
  }

  void prepare(const GridShape& shape, std::int64_t fields, const float* input, Mode mode, bool prefilter,
               PhaseTimes& times) override {
    prefilter_ = prefilter;
    stats_valid_ = false;
    magnitudes_ = {};
    GpuPipeline::prepare(shape, fields, input, mode, prefilter, times);
  }

  void read_coefficients(float* out, PhaseTimes& times) override {
    if (!prefilter_) return GpuPipeline::read_coefficients(out, times);
    if (!prepared()) throw Error(name_ + ": read_coefficients before prepare");
    const std::size_t count = static_cast<std::size_t>(fields() * shape().values());
    gpu::ensure_capacity(widened_, count);
    gpu::ensure_capacity(readback_, count);
    timer().start(stream());
    gpu::widen(stored_.data(), widened_.data(), static_cast<std::int64_t>(count), stream());
    SB_CUDA_CHECK(
        cudaMemcpyAsync(readback_.data(), widened_.data(), count * sizeof(float), cudaMemcpyDeviceToHost, stream()));
    times.add(phase::readback, timer().stop(stream()));
    ScopedPhase p(times, gpu::kHostStagingPhase);
    std::memcpy(out, readback_.data(), count * sizeof(float));
  }

 protected:
  void before_prefilter(PhaseTimes& times) override {
    ScopedPhase p(times, gpu::kBoundStatsPhase);
    magnitudes_.max_f = gpu::field_magnitudes(d_coeffs(), fields(), shape().values(), stream()).max_abs;
  }

  void after_prefilter(PhaseTimes& times) override {
    const std::int64_t count = fields() * shape().values();
    {
      ScopedPhase p(times, gpu::kBoundStatsPhase);
      gpu::FieldMagnitudes c = gpu::field_magnitudes(d_coeffs(), fields(), shape().values(), stream());
      magnitudes_.max_c = std::move(c.max_abs);
      magnitudes_.sum_squares_c = std::move(c.sum_squares);
      magnitudes_.values_per_field = shape().values();
    }
    for (std::size_t f = 0; f < magnitudes_.max_c.size(); ++f)
      if (magnitudes_.max_c[f] > format_.max_finite) {
        std::ostringstream msg;
        msg << name_ << ": field " << f << " has coefficients up to |c| = " << magnitudes_.max_c[f]
            << ", beyond the largest " << format_.name << " value " << format_.max_finite
            << " (they would be stored as infinities); gpu_half_bf16 or an f32 implementation holds them";
        throw Unsupported(msg.str());
      }
    gpu::ensure_capacity(stored_, static_cast<std::size_t>(count));
    timer().start(stream());
    gpu::store_reduced(d_coeffs(), stored_.data(), count, stream());
    times.add(phase::bind, timer().stop(stream()));
    stats_valid_ = true;
  }

  void evaluate_device(const float* d_coords, std::int64_t n, float* d_out) override {
    gpu::evaluate_global(shape(), fields(), mode(), stored_.data(), d_coords, n, d_out, stream());
  }

  void release_storage() override {
    stored_.reset();
    widened_.reset();
    readback_.reset();
    stats_valid_ = false;
  }

 private:
  gpu::StorageFormat format_;
  std::string name_;
  bool prefilter_ = true;
  bool stats_valid_ = false;
  gpu::StoredMagnitudes magnitudes_;
  gpu::DeviceBuffer<S> stored_;
  gpu::DeviceBuffer<float> widened_;
  gpu::PinnedBuffer<float> readback_;
};

}  // namespace

ImplementationPtr make_gpu_half_f16() { return std::make_unique<GpuHalf<__half>>(); }
ImplementationPtr make_gpu_half_bf16() { return std::make_unique<GpuHalf<__nv_bfloat16>>(); }

}  // namespace splinebench::impls
