// `gpu_texture`: the step prefilter of gpu_naive, then the coefficients in a CUDA
// array behind a texture object with hardware linear filtering, evaluated with
// 2 / 4 / 8 fetches for D = 1 / 2 / 3 and 4^(D-3) slabs of 8 fetches for D = 4..6
// (texture_field.hpp).
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
#include <cmath>
#include <sstream>

#include "gpu_naive/gpu_pipeline.hpp"
#include "gpu_texture/texture_field.hpp"
#include "splinebench/error.hpp"
#include "splinebench/registry.hpp"

namespace splinebench::impls {
namespace {

constexpr const char* kBoundStatsPhase = "bound_stats";

class GpuTexture final : public gpu::GpuPipeline {
 public:
  std::string_view name() const override { return "gpu_texture"; }
  std::string_view description() const override {
    return "CUDA f32: step prefilter; coefficients in a texture with hardware linear filtering, "
           "2/4/8 fetches for D=1/2/3, 4^(D-3) 3-D slabs x 8 fetches for D>3";
  }
  std::vector<std::string> run_facts() const override {
    return {"prefilter=step (as gpu_naive)", "evaluate=hardware-linear texture fetches (8-bit blend weights)"};
  }

  Tolerance tolerance(const GridShape& shape) const override {
    const Tolerance f32 = make_implementation("cpu_scalar")->tolerance(shape);
    const bool measured = stats_valid_ && prepared() && shape == this->shape();
    const int D = shape.dims;
    const double prefilter_norm = std::pow(3.0, D);  // max|c| <= 3^D max|f|
    double factor = 0;
    try {
      factor = gpu::TextureField::interp_error_factor(shape, measured ? fields() : 1,
                                                      measured ? mode() : Mode::periodic);
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
    basis << "; texture arithmetic " << arith << "; plus float32 algorithm (cpu_scalar): " << f32.basis;
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
    field_.evaluate(d_coords, n, d_out, stream());
  }

  void release_storage() override {
    field_.release();
    stats_valid_ = false;
    samples_max_valid_ = false;
  }

 private:
  gpu::TextureField field_;
  bool stats_valid_ = false;
  bool samples_max_valid_ = false;
  double samples_max_ = 0, coeff_max_ = 0, coeff_max_diff_ = 0;
};

}  // namespace

ImplementationPtr make_gpu_texture() { return std::make_unique<GpuTexture>(); }

}  // namespace splinebench::impls
