// `gpu_naive`: the classic GPU design. Prefilter with one thread per line walking it
// in place with the axis stride, one launch per axis (prefilter_step.hpp); evaluation
// with 4^D loads from global memory per query (evaluate_global.hpp). Same float32
// algorithm as cpu_scalar, so it answers to cpu_scalar's tolerances.
#include "gpu_common/device_arrays_support.hpp"
#include "gpu_common/evaluate_global.hpp"
#include "gpu_common/gpu_pipeline.hpp"
#include "splinebench/f32_accuracy.hpp"

namespace splinebench::impls {
namespace {

class GpuNaive final : public gpu::GpuPipeline {
 public:
  GpuNaive() : device_arrays_(*this) {}
  std::string_view name() const override { return "gpu_naive"; }
  std::string_view description() const override {
    return "CUDA f32: step prefilter (one thread per line, in place, one launch per axis); "
           "4^D global-memory loads per query";
  }
  Tolerance tolerance(const GridShape& shape) const override {
    Tolerance t = f32_accuracy::pass_by_pass_tolerance(shape);
    t.basis = "same float32 algorithm as cpu_scalar (boundary initial values exact but for terms "
              "beyond z^22, |z|^23 < 2^-43; nested 4-term tap sums): " + t.basis;
    return t;
  }
  std::string evaluation() const override { return "f32 taps, global loads"; }
  std::vector<std::string> run_facts() const override {
    return {"prefilter=step (one thread per line, in place)", "evaluate=4^D global loads"};
  }
  DeviceArrays* device_arrays() override { return &device_arrays_; }

 protected:
  void evaluate_device(const float* d_coords, std::int64_t n, float* d_out) override {
    gpu::evaluate_global(shape(), fields(), mode(), d_coeffs(), d_coords, n, d_out, stream());
  }

 private:
  gpu::StepDeviceArrays device_arrays_;
};

}  // namespace

ImplementationPtr make_gpu_naive() { return std::make_unique<GpuNaive>(); }

}  // namespace splinebench::impls
