// `test_slowed`: a test-only implementation (registered only when the build sets
// SPLINEBENCH_TEST_IMPLS; impls/registry.def) that runs another CPU implementation and
// makes its prepare and evaluate a known factor slower, so that a regression check
// (reports.compare, the nightly gate) can be shown to catch a slowdown of that size.
//
//   SPLINEBENCH_TEST_SLOWED_IMPL    the implementation it runs (default cpu_scalar)
//   SPLINEBENCH_TEST_SLOWED_FACTOR  the slowdown, a number >= 1 (default 1: no slowdown)
//
// A base run and a slowed run both use the name test_slowed, so that they compare case
// by case; only the factor differs. The slowdown is real time, not only reported time:
// each call is timed and followed by a busy wait of (factor - 1) times its duration (a
// busy wait, so that it competes for the core like the work it stands for), and the
// phases the wrapped implementation recorded are reported multiplied by the factor.
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "splinebench/error.hpp"
#include "splinebench/implementation.hpp"
#include "splinebench/registry.hpp"

namespace splinebench::impls {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kImplVar = "SPLINEBENCH_TEST_SLOWED_IMPL";
constexpr const char* kFactorVar = "SPLINEBENCH_TEST_SLOWED_FACTOR";

std::string format_factor(double factor) {
  std::ostringstream s;
  s << factor;
  return s.str();
}

class TestSlowed final : public Implementation {
 public:
  TestSlowed() {
    const char* impl = std::getenv(kImplVar);
    wrapped_name_ = impl != nullptr && *impl != '\0' ? impl : "cpu_scalar";
    const char* factor = std::getenv(kFactorVar);
    if (factor != nullptr && *factor != '\0') {
      char* end = nullptr;
      factor_ = std::strtod(factor, &end);
      if (end == factor || *end != '\0' || !std::isfinite(factor_) || factor_ < 1) {
        problem_ = std::string(kFactorVar) + " must be a number >= 1, got '" + factor + "'";
        return;
      }
    }
    if (wrapped_name_.rfind("test_", 0) == 0) {
      problem_ = std::string(kImplVar) + " names '" + wrapped_name_ + "'; test_slowed runs product implementations only";
      return;
    }
    try {
      wrapped_ = make_implementation(wrapped_name_);
    } catch (const Error& e) {
      problem_ = std::string(kImplVar) + ": " + e.what();
      return;
    }
    if (wrapped_->capabilities().device != Device::cpu)
      problem_ = std::string(kImplVar) + " names '" + wrapped_name_ +
                 "', not a CPU implementation (test_slowed is registered as one)";
  }

  std::string_view name() const override { return "test_slowed"; }
  std::string_view description() const override {
    return "test only: another implementation (SPLINEBENCH_TEST_SLOWED_IMPL) made SPLINEBENCH_TEST_SLOWED_FACTOR "
           "times slower";
  }
  Capabilities capabilities() const override { return usable() ? wrapped_->capabilities() : Capabilities{}; }
  Availability availability() const override {
    if (!problem_.empty()) return {false, "not available: " + problem_};
    return wrapped_->availability();
  }
  Tolerance tolerance(const GridShape& shape) const override {
    return usable() ? wrapped_->tolerance(shape) : Tolerance{};
  }
  std::vector<std::string> run_facts() const override {
    std::vector<std::string> facts{"wraps=" + wrapped_name_, "slowdown_factor=" + format_factor(factor_)};
    if (usable())
      for (const auto& f : wrapped_->run_facts()) facts.push_back(wrapped_name_ + "." + f);
    return facts;
  }
  std::vector<std::pair<std::string, int>> threads_used() const override {
    return usable() ? wrapped_->threads_used() : std::vector<std::pair<std::string, int>>{};
  }

  void configure(const Options& options) override { checked().configure(options); }

  void prepare(const GridShape& shape, std::int64_t fields, const float* input, Mode mode, bool prefilter,
               PhaseTimes& times) override {
    Implementation& w = checked();
    slowed(times, [&](PhaseTimes& t) { w.prepare(shape, fields, input, mode, prefilter, t); });
  }

  void read_coefficients(float* out, PhaseTimes& times) override { checked().read_coefficients(out, times); }

  void evaluate(const float* coords, std::int64_t n, float* out, PhaseTimes& times) override {
    Implementation& w = checked();
    slowed(times, [&](PhaseTimes& t) { w.evaluate(coords, n, out, t); });
  }

  void release() override {
    if (usable()) wrapped_->release();
  }

 private:
  bool usable() const { return problem_.empty() && wrapped_ != nullptr; }

  Implementation& checked() {
    if (!usable()) throw Error("test_slowed: " + problem_);
    return *wrapped_;
  }

  // Runs `call` with its own phase record, stretches the wall time of the call to
  // `factor` times, and adds the recorded phases times `factor` to `times`.
  template <class Call>
  void slowed(PhaseTimes& times, Call&& call) {
    PhaseTimes inner;
    const auto start = Clock::now();
    call(inner);
    const auto took = Clock::now() - start;
    const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(took * (factor_ - 1));
    while (Clock::now() < until) {
    }
    for (const auto& [phase_name, seconds] : inner.entries()) times.add(phase_name, seconds * factor_);
  }

  std::string wrapped_name_;
  double factor_ = 1;
  std::string problem_;  // why it cannot run, empty when it can
  ImplementationPtr wrapped_;
};

}  // namespace

ImplementationPtr make_test_slowed() { return std::make_unique<TestSlowed>(); }

}  // namespace splinebench::impls
