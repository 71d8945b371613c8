// `gpu_lines`: the N-D prefilter as one short, wide pass per axis in which every lane
// computes a segment of 16-64 outputs of one line from its own folded samples with
// 16-sample halos (no hand-offs between lanes or blocks), the D passes replayed from one
// CUDA graph with programmatic dependent launch (lines_launch.hpp). Made for small fields,
// whose time is latency rather than bandwidth (README.md). Evaluation through
// evaluate_global (4^D global loads per query, float32 taps), as gpu_flex's.
//
// Memory phases (upload, query_upload, download, staging) are GpuPipeline's; the samples
// stay in its buffer and the passes ping-pong between a coefficient buffer and a
// temporary (out of place: a lane reads its halos from neighbouring segments).
#include <cstdint>
#include <string>
#include <vector>

#include "gpu_common/evaluate_global.hpp"
#include "gpu_common/gpu_pipeline.hpp"
#include "gpu_lines/lines_launch.hpp"
#include "gpu_lines/lines_plan.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/cuda/device_buffer.hpp"
#include "splinebench/error.hpp"

namespace splinebench::impls {
namespace {

// No device-array path (device_arrays() stays null, the base class's default: the
// implementation takes host arrays only); one would keep a runner, a temporary and a graph
// per caller stream, as gpu_flex's does.
class GpuLines final : public gpu::GpuPipeline {
 public:
  std::string_view name() const override { return "gpu_lines"; }
  std::string_view description() const override {
    return "CUDA f32: one pass per axis, every lane a segment of 16-64 outputs of one line from its own "
           "16-sample halos (no hand-offs); contiguous axis staged through shared memory; the D passes "
           "replayed from one CUDA graph with programmatic dependent launch; for small fields; 4^D "
           "global-memory loads per query";
  }

  std::vector<std::string> run_facts() const override {
    std::vector<std::string> facts = {"prefilter=segments per lane, one pass per axis",
                                      "halo=16 samples (truncation <= 1.0e-9 max|input| per axis)"};
    if (!runner_.plan_description().empty()) facts.push_back("plan=" + runner_.plan_description());
    if (!runner_.launch_description().empty()) facts.push_back("launch=" + runner_.launch_description());
    facts.push_back("evaluate=4^D global loads");
    return facts;
  }

  Tolerance tolerance(const GridShape& shape) const override { return gpu::lines::tolerance(shape); }
  std::string evaluation() const override { return "f32 taps, global loads"; }

  void prepare(const GridShape& shape, std::int64_t fields, const float* input, Mode mode, bool prefilter,
               PhaseTimes& times) override {
    if (fields < 1) throw Error("gpu_lines: fields must be >= 1, got " + std::to_string(fields));
    // The planner's own checks (extents, channels, axis lengths, grid sizes) before any upload.
    (void)gpu::lines::make_plan(shape, fields);
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
    if (coeffs_.size() != static_cast<std::size_t>(count)) {
      runner_.forget();  // the graph names the buffer about to be freed
      coeffs_.resize(static_cast<std::size_t>(count));
    }
    if (!prefilter_) {
      SB_CUDA_CHECK(cudaMemcpyAsync(coeffs_.data(), d_coeffs(), count * sizeof(float), cudaMemcpyDeviceToDevice,
                                    stream()));
      return;
    }
    const std::int64_t tmp = runner_.tmp_values(shape(), fields());
    if (tmp_.size() < static_cast<std::size_t>(tmp)) {
      runner_.forget();
      tmp_.reset();
      tmp_.resize(static_cast<std::size_t>(tmp));
    }
    float* d_tmp = tmp ? tmp_.data() : nullptr;
    // Planning and capturing the graph are host work: done before the timed region, so
    // that the first repetition's prefilter time is the device's as every later one's.
    runner_.ready(shape(), fields(), mode(), d_coeffs(), coeffs_.data(), d_tmp, stream());
    timer().start(stream());
    runner_.run(shape(), fields(), mode(), d_coeffs(), coeffs_.data(), d_tmp, stream());
    times.add(phase::prefilter, timer().stop(stream()));
  }

  void evaluate_device(const float* d_coords, std::int64_t n, float* d_out) override {
    gpu::evaluate_global(shape(), fields(), mode(), coeffs_.data(), d_coords, n, d_out, stream());
  }

  void release_storage() override {
    runner_.forget();
    coeffs_.reset();
    tmp_.reset();
  }

 private:
  bool prefilter_ = true;
  gpu::lines::LinesRunner runner_;
  gpu::DeviceBuffer<float> coeffs_;
  gpu::DeviceBuffer<float> tmp_;
};

}  // namespace

ImplementationPtr make_gpu_lines() { return std::make_unique<GpuLines>(); }

}  // namespace splinebench::impls
