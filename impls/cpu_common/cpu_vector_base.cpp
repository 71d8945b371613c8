#include "cpu_vector_base.hpp"

#include <algorithm>
#include <string>

#include "splinebench/error.hpp"
#include "splinebench/f32_accuracy.hpp"
#include "work_pool.hpp"

namespace splinebench::cpu {

Capabilities CpuVectorBase::capabilities() const {
  Capabilities caps;
  caps.threads = uses_threads();
  return caps;
}

Tolerance CpuVectorBase::tolerance(const GridShape& shape) const {
  // The same documented bounds as cpu_scalar, for the same reasons. Prefilter: every
  // pass rounds like cpu_scalar's (the same recursion; with FMA, where the ISA has it,
  // one rounding fewer per step) and the initial values' dropped terms add < 2^-24/40
  // (line_plan.cpp), so f32_accuracy's per-pass model (8u RMS, amplified by the later
  // passes' noise gain) applies unchanged. Evaluation: nested 4-term tap sums with
  // weights summing to 1, like cpu_scalar: the estimate 1e-5 max|f|.
  Tolerance t = f32_accuracy::pass_by_pass_tolerance(shape);
  t.basis += "; initial values' truncation < 2^-24/40";
  return t;
}

void CpuVectorBase::configure(const Options& options) {
  if (options.threads < 0)
    throw Error(std::string(name()) + ": threads must be >= 0 (0 = all cores), got " +
                std::to_string(options.threads));
  if (!uses_threads()) return;  // single-threaded by definition
  threads_ = options.threads == 0 ? hardware_threads() : options.threads;
}

std::vector<std::pair<std::string, int>> CpuVectorBase::threads_used() const {
  if (!uses_threads()) return {};
  std::vector<std::pair<std::string, int>> used;
  if (prefilter_threads_ > 0) used.emplace_back(phase::prefilter, prefilter_threads_);
  if (evaluate_threads_ > 0) used.emplace_back(phase::evaluate, evaluate_threads_);
  return used;
}

void CpuVectorBase::prepare(const GridShape& shape, std::int64_t fields, const float* input, Mode mode,
                          bool prefilter, PhaseTimes& times) {
  shape.validate();
  const std::string who(name());
  if (fields < 1) throw Error(who + ": fields must be >= 1, got " + std::to_string(fields));
  if (input == nullptr) throw Error(who + ": no input data");
  const Capabilities caps = capabilities();
  if (!caps.supports(shape.dims, shape.channels, mode))
    throw Unsupported(who + ": " + caps.why_not(shape.dims, shape.channels, mode));
  prepared_ = false;
  shape_ = shape;
  fields_ = fields;
  mode_ = mode;
  {
    ScopedPhase p(times, phase::upload);
    const auto count = static_cast<std::size_t>(shape.values() * fields);
    coeffs_.resize(count);
    std::copy(input, input + count, coeffs_.data());
  }
  prefilter_threads_ = 0;
  evaluate_threads_ = 0;
  if (prefilter) {
    // Each value crosses memory once per axis (or pair of fused axes), so the bytes of
    // the batch measure the work of every pass.
    const int threads = threads_for_work(threads_, 4.0 * static_cast<double>(shape_.values() * fields_),
                                         kPrefilterBytesPerThread);
    prefilter_threads_ = prefilter_blocked(shape_, fields_, coeffs_.data(), mode_, prefilter_kernels(), threads, times);
  }
  prepared_ = true;
}

void CpuVectorBase::read_coefficients(float* out, PhaseTimes& times) {
  if (!prepared_) throw Error(std::string(name()) + ": read_coefficients before prepare");
  ScopedPhase p(times, phase::readback);
  std::copy(coeffs_.data(), coeffs_.data() + coeffs_.size(), out);
}

void CpuVectorBase::evaluate(const float* coords, std::int64_t n, float* out, PhaseTimes& times) {
  if (!prepared_) throw Error(std::string(name()) + ": evaluate before prepare");
  if (n < 0) throw Error(std::string(name()) + ": negative query count");
  const EvalGrid grid = make_eval_grid(shape_, mode_);
  const EvalRangeFn fn = eval_kernel();
  ScopedPhase p(times, phase::evaluate);
  if (n == 0) return;
  const EvalRecordsFn records_fn = eval_records_kernel();
  const BinPlan bins = records_fn != nullptr ? plan_bins(shape_, n, bin_policy_from_env()) : BinPlan{};
  const int C = shape_.channels;
  // 4^D taps of C values per query and field.
  const double taps = static_cast<double>(n) * static_cast<double>(fields_) * static_cast<double>(C) *
                      static_cast<double>(std::int64_t{1} << (2 * shape_.dims));
  const int threads = threads_for_work(threads_, taps, kEvalTapsPerThread);
  // Bin-sorted queries are records that carry their index: the kernel writes each
  // value in the caller's order directly.
  if (bins.enabled) bin_queries(bins, shape_, coords, n, threads, binned_);
  const std::int64_t chunks = (n + kQueryChunk - 1) / kQueryChunk;
  const std::int64_t items = fields_ * chunks;
  const std::int64_t field_values = shape_.values();
  const float* coeffs = coeffs_.data();
  const float* records = binned_.records.data();
  const bool binned = bins.enabled;
  evaluate_threads_ = static_cast<int>(std::min<std::int64_t>(threads, items));
  parallel_for(threads, items, [&](std::int64_t first, std::int64_t last, int) {
    for (std::int64_t it = first; it < last; ++it) {
      const std::int64_t f = it / chunks;
      const std::int64_t q0 = (it % chunks) * kQueryChunk;
      const std::int64_t q1 = std::min(n, q0 + kQueryChunk);
      if (binned) {
        records_fn(grid, coeffs + f * field_values, records, q0, q1, out + f * n * C);
      } else {
        fn(grid, coeffs + f * field_values, coords, n, q0, q1, out + f * n * C);
      }
    }
  });
}

void CpuVectorBase::release() {
  coeffs_.clear();
  prepared_ = false;
}

}  // namespace splinebench::cpu
