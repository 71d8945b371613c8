// `cpu_scalar`: the plain single-threaded float32 baseline. Prefilter in place, one
// line at a time along each axis (the same exact-initialisation recursion as the
// oracle, in float); evaluation one query at a time with 4^D taps, reduced axis by
// axis (4 terms per level) so the rounding error grows with D, not with 4^D.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "splinebench/oracle.hpp"
#include "splinebench/bspline_math.hpp"
#include "splinebench/error.hpp"
#include "splinebench/f32_accuracy.hpp"
#include "splinebench/implementation.hpp"

namespace splinebench::impls {
namespace {

// Sum over the taps of axes [Level, D) for the channels, nested per axis.
template <int D, int Level, int C>
inline void accumulate(const float* c, const std::int64_t (&offset)[kMaxDims][4],
                       const float (&w)[kMaxDims][4], float* out) {
  if constexpr (Level == D) {
    for (int ch = 0; ch < C; ++ch) out[ch] = c[ch];
  } else {
    float acc[C] = {};
    for (int t = 0; t < 4; ++t) {
      float part[C];
      accumulate<D, Level + 1, C>(c + offset[Level][t], offset, w, part);
      for (int ch = 0; ch < C; ++ch) acc[ch] += w[Level][t] * part[ch];
    }
    for (int ch = 0; ch < C; ++ch) out[ch] = acc[ch];
  }
}

template <int D, int C>
void evaluate_field(const GridShape& shape, const float* coeffs, Mode mode, const float* coords,
                    std::int64_t n, float* out) {
  const int m = static_cast<int>(mode);
  std::int64_t stride[D];
  for (int d = 0; d < D; ++d) stride[d] = shape.stride(d);
  for (std::int64_t q = 0; q < n; ++q) {
    std::int64_t offset[kMaxDims][4];
    float w[kMaxDims][4];
    bool finite = true;
    for (int d = 0; d < D; ++d) {
      const float x = coords[d * n + q];
      if (!std::isfinite(x)) {
        finite = false;
        break;
      }
      const float fl = std::floor(x);
      bspline::weights<float>(x - fl, w[d]);
      const std::int64_t len = shape.extent[d];
      // Reduce by the period before converting, so huge coordinates cannot overflow the
      // cast. In double: a float period is rounded once it exceeds 2^24 (an axis of
      // 2^24 + 3 samples folded far coordinates to the wrong cell). fmod is exact.
      const auto period = static_cast<double>(bspline::mode_period(m, len));
      const auto cell = static_cast<std::int64_t>(std::fmod(static_cast<double>(fl), period));
      for (int t = 0; t < 4; ++t) offset[d][t] = stride[d] * bspline::fold_index(m, cell + t - 1, len);
    }
    float* o = out + q * C;
    if (!finite) {
      for (int ch = 0; ch < C; ++ch) o[ch] = std::numeric_limits<float>::quiet_NaN();
      continue;
    }
    accumulate<D, 0, C>(coeffs, offset, w, o);
  }
}

using EvalFn = void (*)(const GridShape&, const float*, Mode, const float*, std::int64_t, float*);

template <int D>
EvalFn pick_channels(int channels) {
  switch (channels) {
    case 1: return &evaluate_field<D, 1>;
    case 2: return &evaluate_field<D, 2>;
    case 4: return &evaluate_field<D, 4>;
  }
  return nullptr;
}

EvalFn pick(int dims, int channels) {
  switch (dims) {
    case 1: return pick_channels<1>(channels);
    case 2: return pick_channels<2>(channels);
    case 3: return pick_channels<3>(channels);
    case 4: return pick_channels<4>(channels);
    case 5: return pick_channels<5>(channels);
    case 6: return pick_channels<6>(channels);
  }
  return nullptr;
}

class CpuScalar final : public Implementation {
 public:
  std::string_view name() const override { return "cpu_scalar"; }
  std::string_view description() const override {
    return "float32, one thread: in-place line recursion per axis; 4^D taps per query";
  }
  Capabilities capabilities() const override { return {}; }
  Availability availability() const override { return {}; }
  Tolerance tolerance(const GridShape& shape) const override {
    // Per-pass float rounding amplified by the later passes' noise gain, and nested
    // 4-term tap sums: the derivation is in f32_accuracy.hpp.
    return f32_accuracy::pass_by_pass_tolerance(shape);
  }

  void prepare(const GridShape& shape, std::int64_t fields, const float* input, Mode mode,
               bool prefilter, PhaseTimes& times) override {
    shape.validate();
    if (!capabilities().supports(shape.dims, shape.channels, mode))
      throw Unsupported("cpu_scalar: " + capabilities().why_not(shape.dims, shape.channels, mode));
    shape_ = shape;
    fields_ = fields;
    mode_ = mode;
    {
      ScopedPhase p(times, phase::upload);
      coeffs_.assign(input, input + shape.values() * fields);
    }
    if (prefilter) {
      ScopedPhase p(times, phase::prefilter);
      prefilter_in_place(times);
    }
  }

  void read_coefficients(float* out, PhaseTimes& times) override {
    ScopedPhase p(times, phase::readback);
    std::copy(coeffs_.begin(), coeffs_.end(), out);
  }

  void evaluate(const float* coords, std::int64_t n, float* out, PhaseTimes& times) override {
    ScopedPhase p(times, phase::evaluate);
    const EvalFn fn = pick(shape_.dims, shape_.channels);
    for (std::int64_t f = 0; f < fields_; ++f)
      fn(shape_, coeffs_.data() + f * shape_.values(), mode_, coords, n,
         out + f * n * shape_.channels);
  }

  void release() override { coeffs_ = {}; }

 private:
  void prefilter_in_place(PhaseTimes& times) {
    const int C = shape_.channels;
    for (int axis = 0; axis < shape_.dims; ++axis) {
      ScopedPhase axis_phase(times, phase::prefilter_axis(axis));
      const std::int64_t n = shape_.extent[axis];
      const std::int64_t stride = shape_.stride(axis);
      const std::int64_t inner = stride / C;
      const std::int64_t outer = shape_.points() / (n * inner);
      const std::vector<float> zpow = oracle::rounded_pole_powers<float>(2 * n + 1);
      for (std::int64_t f = 0; f < fields_; ++f)
        for (std::int64_t o = 0; o < outer; ++o)
          for (std::int64_t i = 0; i < inner; ++i)
            oracle::prefilter_line<float>(coeffs_.data() + f * shape_.values() + o * n * stride + i * C, n,
                                          stride, C, mode_, zpow);
    }
  }

  GridShape shape_;
  std::int64_t fields_ = 0;
  Mode mode_ = Mode::mirror;
  std::vector<float> coeffs_;
};

}  // namespace

ImplementationPtr make_cpu_scalar() { return std::make_unique<CpuScalar>(); }

}  // namespace splinebench::impls
