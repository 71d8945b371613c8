// `cpu_sse`: the historical CPU baseline the seed documents compare their GPU code
// with: 4-wide SSE (SSE4.1 at most, no FMA), one thread. Prefilter: 4 lines in the 4
// lanes on every axis; evaluation: 4 queries in the 4 lanes with gathered taps.
#include <string>
#include <vector>

#include "cpu_common/cpu_vector_base.hpp"
#include "cpu_sse/sse_kernels.hpp"

namespace splinebench::impls {
namespace {

bool cpu_has_sse41() {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_cpu_supports("sse4.1");
#else
  return false;
#endif
}

class CpuSse final : public cpu::CpuVectorBase {
 public:
  std::string_view name() const override { return "cpu_sse"; }
  std::string_view description() const override {
    return "float32, 4-wide SSE4.1, one thread: 4 lines / 4 queries in the lanes (historical baseline)";
  }
  Availability availability() const override {
    if (!cpu::sse::kernels_built()) return {false, "not built: SSE4.1 kernels need an x86 compiler"};
    if (!cpu_has_sse41()) return {false, "not available: this CPU lacks SSE4.1"};
    return {};
  }
  std::vector<std::string> run_facts() const override { return {"isa=SSE4.1", "threads=1"}; }

 protected:
  bool uses_threads() const override { return false; }
  cpu::PrefilterKernels prefilter_kernels() const override { return cpu::sse::prefilter_kernels(); }
  cpu::EvalRangeFn eval_kernel() const override { return cpu::sse::eval_kernel(); }
};

}  // namespace

ImplementationPtr make_cpu_sse() { return std::make_unique<CpuSse>(); }

}  // namespace splinebench::impls
