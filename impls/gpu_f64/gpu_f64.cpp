// `gpu_f64`: gpu_naive's design in double precision. Samples are widened to double on
// the host, prefiltered on the device by the step prefilter in double (one thread per
// line, one launch per axis) and evaluated by evaluate_global in double (4^D global
// loads, double tap weights and sums, double coordinates).
//
// Two interfaces: the f32 one (float samples and coordinates, widened exactly; only the
// outputs are rounded to float), and the f64 one (prepare_f64 / read_coefficients_f64 /
// evaluate_f64: doubles in, doubles out, coordinates used as given).
//
// Tolerance of the f32 interface, versus the oracle on the same float inputs: the only
// float rounding is that of the results, |fl(v) - v| <= 2^-24 |v|.
//   prefilter: 2^-24 relative per coefficient, so rel L2 <= 2^-24 (5.97e-8);
//   values: |s| <= Lambda^D max|f|, Lambda = 1.5490 the Lebesgue constant of cardinal
//     cubic spline interpolation (every mode's spline is the cardinal spline of the
//     extended samples, whose maximum is max|f|), so 2^-24 * 1.5491^D max|f|.
// The double arithmetic adds O(D 2^-53 3^D) relative, 1e-13 at D = 6: allowed for.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "gpu_common/device_arrays_support.hpp"
#include "gpu_common/evaluate_global.hpp"
#include "gpu_common/event_timer.hpp"
#include "gpu_common/gpu_pipeline.hpp"
#include "gpu_common/prefilter_step.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/cuda/device_buffer.hpp"
#include "splinebench/error.hpp"
#include "splinebench/implementation.hpp"

namespace splinebench::impls {
namespace {

constexpr double kLebesgue = 1.5491;  // cardinal cubic spline interpolation, rounded up
constexpr double kDoubleArithmetic = 1e-13;

// The device-array path in double: float64 device arrays in, float64 out.
class F64DeviceArrays final : public DeviceArrays {
 public:
  explicit F64DeviceArrays(const Implementation& owner) : owner_(owner) {}

  bool f64() const override { return true; }
  void prefilter_device(const GridShape&, std::int64_t, Mode, const float*, float*, const DeviceCall&) override {
    float32_refused();
  }
  void evaluate_device(const GridShape&, std::int64_t, Mode, const float*, const float*, std::int64_t, float*,
                       const DeviceCall&) override {
    float32_refused();
  }
  void prefilter_device(const GridShape& shape, std::int64_t fields, Mode mode, const double* d_in, double* d_out,
                        const DeviceCall& call) override {
    gpu::check_device_call(owner_, shape, fields, mode);
    gpu::ScopedDevice device(call.device);
    const auto bytes = static_cast<std::size_t>(fields * shape.values()) * sizeof(double);
    SB_CUDA_CHECK(cudaMemcpyAsync(d_out, d_in, bytes, cudaMemcpyDeviceToDevice, gpu::stream_of(call)));
    gpu::prefilter_step(shape, fields, mode, d_out, gpu::stream_of(call));
  }
  void evaluate_device(const GridShape& shape, std::int64_t fields, Mode mode, const double* d_coeffs,
                       const double* d_coords, std::int64_t n, double* d_out, const DeviceCall& call) override {
    gpu::check_device_call(owner_, shape, fields, mode);
    if (n == 0) return;
    gpu::ScopedDevice device(call.device);
    gpu::evaluate_global(shape, fields, mode, d_coeffs, d_coords, n, d_out, gpu::stream_of(call));
  }

 private:
  [[noreturn]] static void float32_refused() {
    throw Error("gpu_f64: device arrays must be float64 (its float32 interface widens host arrays; on the device, "
                "convert with astype(float64) or use a float32 implementation)");
  }
  const Implementation& owner_;
};

class GpuF64 final : public Implementation {
 public:
  GpuF64() : device_arrays_(*this) {}
  ~GpuF64() override {
    if (stream_) cudaStreamDestroy(stream_);
  }

  std::string_view name() const override { return "gpu_f64"; }
  std::string_view description() const override {
    return "CUDA f64: step prefilter in double (one thread per line, in place, one launch per axis); 4^D "
           "global-memory loads per query in double; f32 and f64 interfaces";
  }
  Capabilities capabilities() const override {
    Capabilities caps;
    caps.device = Device::gpu;
    caps.arithmetic = "f64";
    return caps;
  }
  Availability availability() const override {
    const std::string reason = gpu::cuda_unavailable_reason();
    return {reason.empty(), reason};
  }
  std::string evaluation() const override { return "f64 taps, global loads"; }
  std::vector<std::string> run_facts() const override {
    return {"prefilter=step in double (one thread per line, in place)", "evaluate=4^D global loads in double"};
  }
  Tolerance tolerance(const GridShape& shape) const override {
    const double u = 0x1p-24;
    return {u * 1.001 + kDoubleArithmetic, u * std::pow(kLebesgue, shape.dims) + kDoubleArithmetic,
            "computed in double, rounded once to float32: 2^-24 per coefficient; values 2^-24 x Lebesgue "
            "constant 1.5491^D of cubic spline interpolation; double arithmetic < 1e-13"};
  }

  bool supports_f64() const override { return true; }
  DeviceArrays* device_arrays() override { return &device_arrays_; }

  void prepare(const GridShape& shape, std::int64_t fields, const float* input, Mode mode, bool prefilter,
               PhaseTimes& times) override {
    prepare_any(shape, fields, input, mode, prefilter, times);
  }
  void prepare_f64(const GridShape& shape, std::int64_t fields, const double* input, Mode mode, bool prefilter,
                   PhaseTimes& times) override {
    prepare_any(shape, fields, input, mode, prefilter, times);
  }
  void read_coefficients(float* out, PhaseTimes& times) override { read_any(out, times); }
  void read_coefficients_f64(double* out, PhaseTimes& times) override { read_any(out, times); }
  void evaluate(const float* coords, std::int64_t n, float* out, PhaseTimes& times) override {
    evaluate_any(coords, n, out, times);
  }
  void evaluate_f64(const double* coords, std::int64_t n, double* out, PhaseTimes& times) override {
    evaluate_any(coords, n, out, times);
  }

  void release() override {
    if (stream_) SB_CUDA_CHECK(cudaStreamSynchronize(stream_));
    coeffs_.reset();
    coords_.reset();
    values_.reset();
    staging_.reset();
    prepared_ = false;
  }

 private:
  void ensure_stream() {
    if (stream_) return;
    const std::string reason = gpu::cuda_unavailable_reason();
    if (!reason.empty()) throw Unsupported("gpu_f64: " + reason);
    SB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    timer_ = std::make_unique<gpu::EventTimer>();
  }

  double* staging(std::size_t count) {
    gpu::ensure_capacity(staging_, count);
    return staging_.data();
  }

  template <typename In>
  void prepare_any(const GridShape& shape, std::int64_t fields, const In* input, Mode mode, bool prefilter,
                   PhaseTimes& times) {
    shape.validate();
    if (fields < 1) throw Error("gpu_f64: fields must be >= 1, got " + std::to_string(fields));
    if (!input) throw Error("gpu_f64: null input");
    const std::string why = capabilities().why_not(shape.dims, shape.channels, mode);
    if (!why.empty()) throw Unsupported("gpu_f64: " + why);
    ensure_stream();
    prepared_ = false;
    shape_ = shape;
    fields_ = fields;
    mode_ = mode;
    const std::size_t count = static_cast<std::size_t>(fields * shape.values());
    coeffs_.resize(count);
    double* host = staging(count);
    {
      ScopedPhase p(times, gpu::kHostStagingPhase);
      std::copy(input, input + count, host);  // float -> double is exact
    }
    timer_->start(stream_);
    SB_CUDA_CHECK(cudaMemcpyAsync(coeffs_.data(), host, count * sizeof(double), cudaMemcpyHostToDevice, stream_));
    times.add(phase::upload, timer_->stop(stream_));
    if (prefilter) {
      timer_->start(stream_);
      gpu::prefilter_step(shape, fields, mode, coeffs_.data(), stream_);
      times.add(phase::prefilter, timer_->stop(stream_));
    }
    prepared_ = true;
  }

  template <typename Out>
  void read_any(Out* out, PhaseTimes& times) {
    if (!prepared_) throw Error("gpu_f64: read_coefficients before prepare");
    const std::size_t count = static_cast<std::size_t>(fields_ * shape_.values());
    double* host = staging(count);
    timer_->start(stream_);
    SB_CUDA_CHECK(cudaMemcpyAsync(host, coeffs_.data(), count * sizeof(double), cudaMemcpyDeviceToHost, stream_));
    times.add(phase::readback, timer_->stop(stream_));
    ScopedPhase p(times, gpu::kHostStagingPhase);
    std::transform(host, host + count, out, [](double v) { return static_cast<Out>(v); });
  }

  template <typename Real>
  void evaluate_any(const Real* coords, std::int64_t n, Real* out, PhaseTimes& times) {
    if (!prepared_) throw Error("gpu_f64: evaluate before prepare");
    if (n < 0) throw Error("gpu_f64: negative query count");
    if (n == 0) return;
    const std::size_t ncoords = static_cast<std::size_t>(shape_.dims * n);
    const std::size_t nvalues = static_cast<std::size_t>(fields_ * n * shape_.channels);
    gpu::ensure_capacity(coords_, ncoords);
    gpu::ensure_capacity(values_, nvalues);
    double* host = staging(std::max(ncoords, nvalues));
    {
      ScopedPhase p(times, gpu::kHostStagingPhase);
      std::copy(coords, coords + ncoords, host);
    }
    timer_->start(stream_);
    SB_CUDA_CHECK(cudaMemcpyAsync(coords_.data(), host, ncoords * sizeof(double), cudaMemcpyHostToDevice, stream_));
    times.add(phase::query_upload, timer_->stop(stream_));
    // Poison (all-ones bytes are a NaN) so a value the kernel skips cannot pass. Not timed.
    SB_CUDA_CHECK(cudaMemsetAsync(values_.data(), 0xFF, nvalues * sizeof(double), stream_));
    timer_->start(stream_);
    gpu::evaluate_global(shape_, fields_, mode_, coeffs_.data(), coords_.data(), n, values_.data(), stream_);
    times.add(phase::evaluate, timer_->stop(stream_));
    timer_->start(stream_);
    SB_CUDA_CHECK(cudaMemcpyAsync(host, values_.data(), nvalues * sizeof(double), cudaMemcpyDeviceToHost, stream_));
    times.add(phase::download, timer_->stop(stream_));
    ScopedPhase p(times, gpu::kHostStagingPhase);
    std::transform(host, host + nvalues, out, [](double v) { return static_cast<Real>(v); });
  }

  GridShape shape_{};
  std::int64_t fields_ = 0;
  Mode mode_ = Mode::mirror;
  bool prepared_ = false;
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<gpu::EventTimer> timer_;
  gpu::DeviceBuffer<double> coeffs_;
  gpu::DeviceBuffer<double> coords_;
  gpu::DeviceBuffer<double> values_;
  gpu::PinnedBuffer<double> staging_;
  F64DeviceArrays device_arrays_;
};

}  // namespace

ImplementationPtr make_gpu_f64() { return std::make_unique<GpuF64>(); }

}  // namespace splinebench::impls
