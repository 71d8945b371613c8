// A build without CUDA: the schemes exist by name and say why they cannot run.
#include "splinebench/error.hpp"
#include "splinebench/iir2d/gpu.hpp"

namespace splinebench::iir2d {

namespace {
constexpr const char* kWhy = "not built: configured without a CUDA compiler";
}

std::string gpu_unavailable_reason() { return kWhy; }

struct GpuFilter::Impl {};
GpuFilter::GpuFilter(const Shape& shape, const Window& window) {
  validate(shape, window);
  throw Unsupported(std::string("iir2d: ") + kWhy);
}
GpuFilter::~GpuFilter() = default;
void GpuFilter::upload(const float*) {}
void GpuFilter::poison_output() {}
double GpuFilter::run(Scheme, const TestHooks*) { throw Unsupported(std::string("iir2d: ") + kWhy); }
void GpuFilter::download(float*) const {}
Diagnostics GpuFilter::diagnostics() const { return {}; }
double GpuFilter::empty_chain(bool) { throw Unsupported(std::string("iir2d: ") + kWhy); }
DeadlockDemo run_deadlock_demo(double) { throw Unsupported(std::string("iir2d: ") + kWhy); }

}  // namespace splinebench::iir2d
