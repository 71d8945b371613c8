// `gpu_naive_temp`: gpu_naive with Ruijters' other prefilter, the "temp array": one
// thread per line copies the line into a local array, filters it there and writes it
// back, one launch per axis (prefilter_temp.hpp); evaluation as gpu_naive (4^D loads
// from global memory, evaluate_global.hpp). The same float32 recursions as gpu_naive
// (the step kernel's line filter), so it answers to cpu_scalar's tolerances.
//
// The local array has a compile-time size: a prefilter of lines longer than
// kMaxTempLine is Unsupported (the harness skips the case); coefficients handed in
// (prefilter = false) have no length limit.
//
// Memory phases (upload, query_upload, download, staging) are GpuPipeline's. The
// samples stay in its buffer: the first axis reads them and writes this class's
// coefficient buffer, later axes filter that buffer in place.
#include <memory>
#include <string>

#include "gpu_common/evaluate_global.hpp"
#include "gpu_common/event_chain.hpp"
#include "gpu_common/gpu_pipeline.hpp"
#include "gpu_naive_temp/prefilter_temp.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/cuda/device_buffer.hpp"
#include "splinebench/error.hpp"
#include "splinebench/f32_accuracy.hpp"

namespace splinebench::impls {
namespace {

static_assert(gpu::kMaxTempLine == 2048, "the description states the line length limit");

class GpuNaiveTemp final : public gpu::GpuPipeline {
 public:
  std::string_view name() const override { return "gpu_naive_temp"; }
  std::string_view description() const override {
    return "CUDA f32: temp-array prefilter (one thread per line, the line copied to a local array of at most "
           "2048 samples, filtered there, written back; one launch per axis; longer lines are skipped); "
           "4^D global-memory loads per query (as gpu_naive)";
  }
  Tolerance tolerance(const GridShape& shape) const override {
    Tolerance t = f32_accuracy::pass_by_pass_tolerance(shape);
    t.basis = "same float32 algorithm as cpu_scalar (gpu_naive's line filter on a local copy; boundary initial "
              "values exact but for terms beyond z^22, |z|^23 < 2^-43; nested 4-term tap sums): " + t.basis;
    return t;
  }
  std::string evaluation() const override { return "f32 taps, global loads"; }
  std::vector<std::string> run_facts() const override {
    return {"prefilter=temp array (one thread per line, copied to a local array of <= " +
                std::to_string(gpu::kMaxTempLine) + " samples)",
            "evaluate=4^D global loads"};
  }

  void prepare(const GridShape& shape, std::int64_t fields, const float* input, Mode mode, bool prefilter,
               PhaseTimes& times) override {
    if (prefilter) {
      shape.validate();
      if (const std::string why = gpu::temp_array_why_not(shape); !why.empty())
        throw Unsupported(std::string(name()) + ": " + why);
    }
    prefilter_ = prefilter;
    // Uploads the samples into the pipeline's buffer; after_prefilter filters them.
    GpuPipeline::prepare(shape, fields, input, mode, false, times);
  }

  void read_coefficients(float* out, PhaseTimes& times) override {
    if (!prefilter_) return GpuPipeline::read_coefficients(out, times);
    read_coefficients_from(coeffs_.data(), out, times);
  }

 protected:
  // Events between the per-axis launches and no host synchronisation in between, as
  // GpuPipeline's step prefilter: the axis phases add up to the whole prefilter.
  void after_prefilter(PhaseTimes& times) override {
    if (!prefilter_) return;
    const GridShape& s = shape();
    gpu::ensure_capacity(coeffs_, static_cast<std::size_t>(fields() * s.values()));
    if (!chain_) chain_ = std::make_unique<gpu::EventChain>(kMaxDims + 1);
    chain_->record(0, stream());
    for (int axis = 0; axis < s.dims; ++axis) {
      const float* src = axis == 0 ? d_coeffs() : coeffs_.data();
      gpu::prefilter_axis_temp(s, fields(), mode(), src, coeffs_.data(), axis, stream());
      chain_->record(axis + 1, stream());
    }
    for (int axis = 0; axis < s.dims; ++axis)
      times.add(std::string(phase::prefilter) + "_axis" + std::to_string(axis), chain_->seconds(axis, axis + 1));
    times.add(phase::prefilter, chain_->seconds(0, s.dims));
  }

  void evaluate_device(const float* d_coords, std::int64_t n, float* d_out) override {
    const float* coeffs = prefilter_ ? coeffs_.data() : d_coeffs();
    gpu::evaluate_global(shape(), fields(), mode(), coeffs, d_coords, n, d_out, stream());
  }

  void release_storage() override {
    coeffs_.reset();
  }

 private:
  bool prefilter_ = true;
  std::unique_ptr<gpu::EventChain> chain_;
  gpu::DeviceBuffer<float> coeffs_;
};

}  // namespace

ImplementationPtr make_gpu_naive_temp() { return std::make_unique<GpuNaiveTemp>(); }

}  // namespace splinebench::impls
