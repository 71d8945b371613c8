// What cpu_sse and cpu_simd share behind the Implementation interface: input checks,
// the aligned coefficient copy, the blocked prefilter driver, and the evaluation
// driver that splits queries into chunks (over threads when asked). A derived class
// only supplies its kernels, its name and its run facts.
//
// Threads: Options::threads is an upper bound. Each phase uses at most the hardware
// threads this process may run on, and at most one thread per kPrefilterBytesPerThread
// of the batch (prefilter) or kEvalTapsPerThread tap values (evaluate), so that small
// cases run on one thread instead of paying more to share the work than the work costs.
// threads_used() reports what the last prepare and evaluate used.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
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
  std::vector<std::pair<std::string, int>> threads_used() const override;

  // Options::threads (0 resolved to the hardware threads): the most any phase uses.
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
  int prefilter_threads_ = 0;  // of the last prepare; 0: not run
  int evaluate_threads_ = 0;   // of the last evaluate; 0: not run
};

// Queries per work item of the evaluation driver (a multiple of every vector width).
inline constexpr std::int64_t kQueryChunk = 2048;

// The least work worth a thread of its own (see the class comment): on current x86
// cores either is a few tenths of a millisecond of one core's time, against the tens of
// microseconds that waking a sleeping thread and handing it the data can cost.
// Prefilter: bytes of the field batch; evaluate: queries x fields x channels x 4^D taps.
inline constexpr double kPrefilterBytesPerThread = 1 << 20;
inline constexpr double kEvalTapsPerThread = 1 << 20;

}  // namespace splinebench::cpu
