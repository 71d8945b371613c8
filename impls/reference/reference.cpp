// `reference`: the double-precision oracle behind the common interface, so it can be
// swept, listed and used from the CLI like any implementation. Inputs and outputs
// are float32 at the f32 interface; all arithmetic is double. The f64 interface
// (prepare_f64, read_coefficients_f64, evaluate_f64) takes and returns doubles as given.
#include <algorithm>
#include <vector>

#include "splinebench/error.hpp"
#include "splinebench/oracle_batch.hpp"
#include "splinebench/implementation.hpp"

namespace splinebench::impls {
namespace {

class Reference final : public Implementation {
 public:
  std::string_view name() const override { return "reference"; }
  std::string_view description() const override {
    return "double-precision oracle: exact initialisation, 4^D taps (OpenMP over lines/queries)";
  }
  Capabilities capabilities() const override {
    Capabilities caps;
    caps.arithmetic = "f64";
    return caps;
  }
  Availability availability() const override { return {}; }
  std::string evaluation() const override { return "f64 taps"; }
  bool supports_f64() const override { return true; }
  Tolerance tolerance(const GridShape&) const override {
    // Only the final rounding to float32 differs from the oracle: 2^-24 relative per
    // coefficient, and |s| <= max|c| <= 3 max|f| (the prefilter's l-inf gain is
    // sqrt(3)(1+|z|)/(1-|z|) = 3), so 3 * 2^-24 relative to max|f|.
    return {6.0e-8, 1.8e-7, "rounding of f64 results to f32: 2^-24 per value, x3 prefilter gain"};
  }

  void prepare(const GridShape& shape, std::int64_t fields, const float* input, Mode mode,
               bool prefilter, PhaseTimes& times) override {
    load(shape, fields, mode, times, [&] { coeffs_.assign(input, input + shape.values() * fields); });
    if (prefilter) run_prefilter(times);
  }

  void prepare_f64(const GridShape& shape, std::int64_t fields, const double* input, Mode mode, bool prefilter,
                   PhaseTimes& times) override {
    load(shape, fields, mode, times, [&] { coeffs_.assign(input, input + shape.values() * fields); });
    if (prefilter) run_prefilter(times);
  }

  void read_coefficients(float* out, PhaseTimes& times) override {
    ScopedPhase p(times, phase::readback);
    std::transform(coeffs_.begin(), coeffs_.end(), out, [](double v) { return static_cast<float>(v); });
  }

  void read_coefficients_f64(double* out, PhaseTimes& times) override {
    ScopedPhase p(times, phase::readback);
    std::copy(coeffs_.begin(), coeffs_.end(), out);
  }

  void evaluate(const float* coords, std::int64_t n, float* out, PhaseTimes& times) override {
    ScopedPhase p(times, phase::evaluate);
    values_.resize(static_cast<std::size_t>(fields_ * n * shape_.channels));
    oracle::evaluate_f64(shape_, fields_, coeffs_.data(), mode_, coords, n, values_.data());
    std::transform(values_.begin(), values_.end(), out, [](double v) { return static_cast<float>(v); });
  }

  void evaluate_f64(const double* coords, std::int64_t n, double* out, PhaseTimes& times) override {
    ScopedPhase p(times, phase::evaluate);
    oracle::evaluate_f64(shape_, fields_, coeffs_.data(), mode_, coords, n, out);
  }

  void release() override {
    coeffs_ = {};
    values_ = {};
  }

 private:
  template <typename Fill>
  void load(const GridShape& shape, std::int64_t fields, Mode mode, PhaseTimes& times, Fill fill) {
    shape.validate();
    if (fields < 1) throw Error("reference: fields must be >= 1, got " + std::to_string(fields));
    shape_ = shape;
    fields_ = fields;
    mode_ = mode;
    ScopedPhase p(times, phase::upload);
    fill();
  }

  void run_prefilter(PhaseTimes& times) {
    ScopedPhase p(times, phase::prefilter);
    oracle::prefilter_f64(shape_, fields_, coeffs_.data(), mode_);
  }

  GridShape shape_;
  std::int64_t fields_ = 0;
  Mode mode_ = Mode::mirror;
  std::vector<double> coeffs_;
  std::vector<double> values_;
};

}  // namespace

ImplementationPtr make_reference() { return std::make_unique<Reference>(); }

}  // namespace splinebench::impls
