// `gpu_texture`: the step prefilter of gpu_naive, then the coefficients in a CUDA
// array behind a texture object with hardware linear filtering, evaluated with
// 2 / 4 / 8 fetches for D = 1 / 2 / 3 and 4^(D-3) slabs of 8 fetches for D = 4..6
// (texture_field.hpp). Axes longer than the device's texture limits are folded into
// overlapping segments (texture_layout.hpp), so every evaluation is still made of
// hardware-linear fetches; the layout is named in the tolerance basis of each record.
// There is no fallback to global-memory loads: a shape that no texture array of this
// device can hold is refused (Unsupported), and gpu_naive is the global-memory path.
//
// Tolerance: the float32 algorithm's (f32_accuracy.hpp) plus the hardware blend weights'
// error, from the magnitudes prepare measures (phase `bound_stats`; texture_tolerance.hpp).
//
// `gpu_texture_binned` is the same implementation with a query-reordering evaluation:
// queries are sorted by brick of grid cells (QueryBinner: brick keys + CUB radix sort
// of the coordinate records), evaluated in that order, and each result written at its
// query's own index.
// The binning runs inside the timed `evaluate` phase. A separate name, never a switch.
#include <optional>

#include "gpu_common/gpu_pipeline.hpp"
#include "gpu_texture/query_binner.hpp"
#include "gpu_common/texture_field.hpp"
#include "gpu_common/texture_tolerance.hpp"
#include "splinebench/error.hpp"
#include "splinebench/f32_accuracy.hpp"

namespace splinebench::impls {
namespace {

class GpuTexture final : public gpu::GpuPipeline {
 public:
  explicit GpuTexture(bool binned) : binned_(binned) {}

  std::string_view name() const override { return binned_ ? "gpu_texture_binned" : "gpu_texture"; }
  std::string_view description() const override {
    return binned_ ? "as gpu_texture, evaluating queries reordered by brick of grid cells (key + radix sort, "
                     "included in the evaluate time); results in the caller's order"
                   : "CUDA f32: step prefilter; coefficients in a texture with hardware linear filtering, "
                     "2/4/8 fetches for D=1/2/3, 4^(D-3) 3-D slabs x 8 fetches for D>3; axes over the "
                     "texture limits folded into overlapping 4096-texel segments";
  }
  std::string evaluation() const override { return "hardware linear filter (8-bit weights)"; }
  std::vector<std::string> run_facts() const override {
    std::vector<std::string> facts{"prefilter=step (as gpu_naive)",
                                   "evaluate=hardware-linear texture fetches (8-bit blend weights), never global loads",
                                   "texture layout=axes over the device's texture limits folded into segments of " +
                                       std::to_string(gpu::kFoldWidth) +
                                       " texels overlapping by one (each record's tolerance basis names its layout)"};
    if (binned_) facts.push_back("query order=binned by cell brick (binning timed within evaluate)");
    return facts;
  }

  Tolerance tolerance(const GridShape& shape) const override {
    std::optional<gpu::TextureMagnitudes> measured;
    if (stats_valid_ && prepared() && shape == this->shape())
      measured = gpu::TextureMagnitudes{samples_max_valid_ ? samples_max_ : 0, coeff_max_, coeff_max_diff_};
    return gpu::texture_tolerance(f32_accuracy::pass_by_pass_tolerance(shape), shape, fields(), mode(), measured);
  }

  void prepare(const GridShape& shape, std::int64_t fields, const float* input, Mode mode, bool prefilter,
               PhaseTimes& times) override {
    stats_valid_ = false;
    samples_max_valid_ = false;
    field_.release();
    // Refuse shapes over the texture limits before uploading anything.
    shape.validate();
    if (fields >= 1 && availability().ok && capabilities().supports(shape.dims, shape.channels, mode)) {
      const std::string why = gpu::TextureField::why_not(shape, fields, mode);
      if (!why.empty()) throw Unsupported("gpu_texture: " + why);
    }
    GpuPipeline::prepare(shape, fields, input, mode, prefilter, times);
  }

 protected:
  void before_prefilter(PhaseTimes& times) override {
    ScopedPhase p(times, gpu::kBoundStatsPhase);
    samples_max_ = gpu::coefficient_stats(shape(), fields(), mode(), d_coeffs(), stream()).max_abs;
    samples_max_valid_ = true;
  }

  void after_prefilter(PhaseTimes& times) override {
    timer().start(stream());
    field_.bind(shape(), fields(), mode(), d_coeffs(), stream());
    times.add(phase::bind, timer().stop(stream()));
    ScopedPhase p(times, gpu::kBoundStatsPhase);
    const gpu::CoefficientStats s = gpu::coefficient_stats(shape(), fields(), mode(), d_coeffs(), stream());
    coeff_max_ = s.max_abs;
    coeff_max_diff_ = s.max_neighbour_difference;
    stats_valid_ = true;
  }

  void evaluate_device(const float* d_coords, std::int64_t n, float* d_out) override {
    if (!binned_) return field_.evaluate(d_coords, n, d_out, stream());
    binner_.bin(shape(), d_coords, n, stream());
    field_.evaluate_records(binner_.records(), n, d_out, stream());
  }

  void release_storage() override {
    field_.release();
    binner_.release();
    stats_valid_ = false;
    samples_max_valid_ = false;
  }

 private:
  bool binned_;
  gpu::TextureField field_;
  gpu::QueryBinner binner_;
  bool stats_valid_ = false;
  bool samples_max_valid_ = false;
  double samples_max_ = 0, coeff_max_ = 0, coeff_max_diff_ = 0;
};

}  // namespace

ImplementationPtr make_gpu_texture() { return std::make_unique<GpuTexture>(false); }
ImplementationPtr make_gpu_texture_binned() { return std::make_unique<GpuTexture>(true); }

}  // namespace splinebench::impls
