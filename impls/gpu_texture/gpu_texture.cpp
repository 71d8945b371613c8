// `gpu_texture`: the step prefilter of gpu_naive, then the coefficients in a CUDA
// array behind a texture object with hardware linear filtering, evaluated with
// 2 / 4 / 8 fetches for D = 1 / 2 / 3 and 4^(D-3) slabs of 8 fetches for D = 4..6
// (texture_field.hpp). Axes longer than the device's texture limits are folded into
// overlapping segments (texture_layout.hpp), so every evaluation is still made of
// hardware-linear fetches; the layout is named in the tolerance basis of each record.
// There is no fallback to global-memory loads: a shape that no texture array of this
// device can hold is refused (Unsupported), and gpu_naive is the global-memory path.
//
// Tolerance (derivation in texture_field.cu and README.md): the hardware blend weights
// carry 8 fractional bits, so the texture result is off by at most
//   E_hw = interp_error_factor * max|c[k+1] - c[k]|   (~ min(D,3) * 2^-8 * max|dc|)
// on top of the float32 error of the same algorithm in software (cpu_scalar's bound).
// The harness compares max|s - s_ref| / max|f|, so the bound is divided by max|f|.
// prepare measures max|f| (samples, before the prefilter), max|c| and max|dc| on the
// device (phase `bound_stats`) and tolerance() uses them. Without those measurements
// (tolerance asked before prepare) it falls back to the measure-free bound
// max|dc| <= 2 max|c| <= 2 * 3^D max|f| (the prefilter's infinity norm is 3 per axis,
// reached by the alternating pattern), which is valid but loose for large D.
//
// `gpu_texture_binned` is the same implementation with a query-reordering evaluation:
// queries are sorted by brick of grid cells (QueryBinner: brick keys + CUB radix sort
// of the coordinate records), evaluated in that order, and each result written at its
// query's own index.
// The binning runs inside the timed `evaluate` phase. A separate name, never a switch.
#include <cmath>
#include <sstream>

#include "gpu_common/gpu_pipeline.hpp"
#include "gpu_texture/query_binner.hpp"
#include "gpu_common/texture_field.hpp"
#include "splinebench/error.hpp"
#include "splinebench/registry.hpp"

namespace splinebench::impls {
namespace {

constexpr const char* kBoundStatsPhase = "bound_stats";

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
    const Tolerance f32 = make_implementation("cpu_scalar")->tolerance(shape);
    const bool measured = stats_valid_ && prepared() && shape == this->shape();
    const int D = shape.dims;
    const double prefilter_norm = std::pow(3.0, D);  // max|c| <= 3^D max|f|
    double factor = 0;
    gpu::TextureLayout layout;
    try {
      layout = gpu::TextureField::plan(shape, measured ? fields() : 1, measured ? mode() : Mode::periodic);
      factor = gpu::interp_error_factor(layout);
    } catch (const Unsupported& e) {
      Tolerance t = f32;
      t.basis = std::string("texture path cannot take this shape (") + e.what() + ")";
      return t;
    }
    const double arith_ulps = (8.0 * D + 16.0) * 0x1p-24;  // texture-unit blends and g-weight products
    double hw = 0, arith = 0;
    std::ostringstream basis;
    if (measured) {
      const double max_f = samples_max_valid_ ? samples_max_ : coeff_max_ / prefilter_norm;
      hw = factor * coeff_max_diff_ / max_f;
      arith = arith_ulps * coeff_max_ / max_f;
      basis << "hardware blend weights: " << factor << " * max|dc| (" << coeff_max_diff_ << ") / max|f| (" << max_f
            << (samples_max_valid_ ? "" : ", lower bound max|c|/3^D") << ") = " << hw;
    } else {
      hw = factor * 2.0 * prefilter_norm;
      arith = arith_ulps * prefilter_norm;
      basis << "hardware blend weights, measure-free: " << factor << " * 2 * 3^D = " << hw;
    }
    basis << "; texture arithmetic " << arith << "; texture layout: " << gpu::describe(layout)
          << "; plus float32 algorithm (cpu_scalar): " << f32.basis;
    return {f32.prefilter_rel_l2, hw + arith + f32.interp_max_rel_to_maxf, basis.str()};
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
    ScopedPhase p(times, kBoundStatsPhase);
    samples_max_ = gpu::coefficient_stats(shape(), fields(), mode(), d_coeffs(), stream()).max_abs;
    samples_max_valid_ = true;
  }

  void after_prefilter(PhaseTimes& times) override {
    timer().start(stream());
    field_.bind(shape(), fields(), mode(), d_coeffs(), stream());
    times.add(phase::bind, timer().stop(stream()));
    ScopedPhase p(times, kBoundStatsPhase);
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
