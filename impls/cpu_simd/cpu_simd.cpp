// `cpu_simd`: the modern CPU baseline. The same algorithms as cpu_sse (lines in vector
// lanes for the prefilter, queries in lanes for the evaluation) at the widest ISA this
// CPU offers, chosen at run time by Highway (AVX-512 "AVX3", AVX2, SSE4, ...), and
// spread over threads (Options::threads, 0 = every core, as an upper bound: small work
// runs on fewer; cpu_common/cpu_vector_base.hpp has the rule). Large query batches
// on grids larger than L2 are bin-sorted first (cpu_common/query_bins.hpp), so that
// consecutive queries share cached coefficients.
#include <string>
#include <vector>

#include "cpu_common/cpu_vector_base.hpp"
#include "cpu_common/work_pool.hpp"
#include "cpu_simd/simd_kernels.hpp"

namespace splinebench::impls {
namespace {

class CpuSimd final : public cpu::CpuVectorBase {
 public:
  std::string_view name() const override { return "cpu_simd"; }
  std::string_view description() const override {
    return "float32, widest ISA at run time (Highway) + threads: lines/queries in vector lanes, "
           "cache-blocked prefilter";
  }
  Availability availability() const override { return {}; }
  std::vector<std::string> run_facts() const override {
    // The threads of each case are in its record (threads_used); here the ceiling.
    return {"isa=" + cpu::simd::dispatched_target(), "hardware_threads=" + std::to_string(cpu::hardware_threads()),
            "query_binning=" + cpu::to_string(cpu::bin_policy_from_env())};
  }

 protected:
  bool uses_threads() const override { return true; }
  cpu::PrefilterKernels prefilter_kernels() const override { return cpu::simd::prefilter_kernels(); }
  cpu::EvalRangeFn eval_kernel() const override { return cpu::simd::eval_kernel(); }
  cpu::EvalRecordsFn eval_records_kernel() const override { return cpu::simd::eval_records_kernel(); }
};

}  // namespace

ImplementationPtr make_cpu_simd() { return std::make_unique<CpuSimd>(); }

}  // namespace splinebench::impls
