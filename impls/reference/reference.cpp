// `reference`: the double-precision oracle behind the common interface, so it can be
// swept, listed and used from the CLI like any implementation. Inputs and outputs
// are float32 at the interface; all arithmetic is double.
#include <algorithm>
#include <vector>

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
  Tolerance tolerance(const GridShape&) const override {
    // Only the final rounding to float32 differs from the oracle: 2^-24 relative per
    // coefficient, and |s| <= max|c| <= 3 max|f| (the prefilter's l-inf gain is
    // sqrt(3)(1+|z|)/(1-|z|) = 3), so 3 * 2^-24 relative to max|f|.
    return {6.0e-8, 1.8e-7, "rounding of f64 results to f32: 2^-24 per value, x3 prefilter gain"};
  }

  void prepare(const GridShape& shape, std::int64_t fields, const float* input, Mode mode,
               bool prefilter, PhaseTimes& times) override {
    shape.validate();
    shape_ = shape;
    fields_ = fields;
    mode_ = mode;
    {
      ScopedPhase p(times, phase::upload);
      coeffs_.assign(input, input + shape.values() * fields);
    }
    if (prefilter) {
      ScopedPhase p(times, phase::prefilter);
      oracle::prefilter_f64(shape, fields, coeffs_.data(), mode);
    }
  }

  void read_coefficients(float* out, PhaseTimes& times) override {
    ScopedPhase p(times, phase::readback);
    std::transform(coeffs_.begin(), coeffs_.end(), out, [](double v) { return static_cast<float>(v); });
  }

  void evaluate(const float* coords, std::int64_t n, float* out, PhaseTimes& times) override {
    ScopedPhase p(times, phase::evaluate);
    values_.resize(static_cast<std::size_t>(fields_ * n * shape_.channels));
    oracle::evaluate_f64(shape_, fields_, coeffs_.data(), mode_, coords, n, values_.data());
    std::transform(values_.begin(), values_.end(), out, [](double v) { return static_cast<float>(v); });
  }

  void release() override {
    coeffs_ = {};
    values_ = {};
  }

 private:
  GridShape shape_;
  std::int64_t fields_ = 0;
  Mode mode_ = Mode::mirror;
  std::vector<double> coeffs_;
  std::vector<double> values_;
};

}  // namespace

ImplementationPtr make_reference() { return std::make_unique<Reference>(); }

}  // namespace splinebench::impls
