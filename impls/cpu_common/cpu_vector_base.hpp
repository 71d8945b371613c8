// What cpu_sse and cpu_simd share behind the Implementation interface: input checks,
// the aligned coefficient copy, the blocked prefilter driver, and the evaluation
// driver that splits queries into chunks (over threads when asked). A derived class
// only supplies its kernels, its name and its run facts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cpu_common/aligned_buffer.hpp"
#include "cpu_common/eval_grid.hpp"
#include "cpu_common/prefilter_driver.hpp"
#include "cpu_common/query_bins.hpp"
#include "splinebench/implementation.hpp"

namespace splinebench::cpu {

class CpuVectorBase : public Implementation {
 public:
  Capabilities capabilities() const override;
  Tolerance tolerance(const GridShape& shape) const override;
  void configure(const Options& options) override;

  void prepare(const GridShape& shape, std::int64_t fields, const float* input, Mode mode, bool prefilter,
               PhaseTimes& times) override;
  void read_coefficients(float* out, PhaseTimes& times) override;
  void evaluate(const float* coords, std::int64_t n, float* out, PhaseTimes& times) override;
  void release() override;

  int threads() const { return threads_; }

 protected:
  // Whether Options::threads is honoured (otherwise the implementation runs on one).
  virtual bool uses_threads() const = 0;
  virtual PrefilterKernels prefilter_kernels() const = 0;
  virtual EvalRangeFn eval_kernel() const = 0;
  // The kernel for bin-sorted query records (query_bins.hpp); with none, queries are
  // never binned. Whether a batch is binned: plan_bins, under bin_policy_from_env().
  virtual EvalRecordsFn eval_records_kernel() const { return nullptr; }

 private:
  GridShape shape_;
  std::int64_t fields_ = 0;
  Mode mode_ = Mode::mirror;
  bool prepared_ = false;
  AlignedFloats coeffs_;
  BinnedQueries binned_;  // kept between calls to reuse the allocation
  int threads_ = 1;
};

// Queries per work item of the evaluation driver (a multiple of every vector width).
inline constexpr std::int64_t kQueryChunk = 2048;

}  // namespace splinebench::cpu
