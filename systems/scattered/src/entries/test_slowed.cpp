// The test-only entry (registered by solver_registry.cpp in builds with
// -DSPLINEBENCH_TEST_IMPLS=ON): the CPU solver named by SPLINEBENCH_TEST_SLOWED_SOLVER
// (default cg), prepared as that entry, each solve followed by a busy wait of
// (SPLINEBENCH_TEST_SLOWED_FACTOR - 1) times its duration (busy, so that it competes for
// the core like the work it stands for). The nightly gate is shown to catch it.
#include <cmath>
#include <cstdlib>

#include "entry_support.hpp"
#include "splinebench/error.hpp"
#include "splinebench/scattered/solver_registry.hpp"

namespace splinebench::scattered {
namespace {

class Slowed final : public PreparedSolver {
 public:
  Slowed(std::unique_ptr<PreparedSolver> wrapped, double factor) : wrapped_(std::move(wrapped)), factor_(factor) {
    setup_seconds = wrapped_->setup_seconds;
    setup_phases = wrapped_->setup_phases;
  }
  NamedSolve solve(const IterationControl& control) override {
    const auto t0 = std::chrono::steady_clock::now();
    NamedSolve out = wrapped_->solve(control);
    const double spent = entries::seconds_since(t0);
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>((factor_ - 1) * spent);
    while (std::chrono::steady_clock::now() < until) {
    }
    return out;
  }

 private:
  std::unique_ptr<PreparedSolver> wrapped_;
  double factor_;
};

}  // namespace

std::unique_ptr<PreparedSolver> prepare_test_slowed_solver(const SolverInput& in) {
  const char* wrapped_env = std::getenv("SPLINEBENCH_TEST_SLOWED_SOLVER");
  const std::string wrapped = wrapped_env && *wrapped_env ? wrapped_env : "cg";
  const SolverInfo* info = find_solver(wrapped);
  if (!info || wrapped == kTestSlowedSolver || info->on_gpu())
    fail("SPLINEBENCH_TEST_SLOWED_SOLVER names '" + wrapped + "'; test_slowed_solver runs a CPU solver");
  double factor = 1;
  if (const char* f = std::getenv("SPLINEBENCH_TEST_SLOWED_FACTOR"); f && *f) {
    char* end = nullptr;
    factor = std::strtod(f, &end);
    if (end == f || *end != '\0' || !std::isfinite(factor) || factor < 1)
      fail(std::string("SPLINEBENCH_TEST_SLOWED_FACTOR must be a number >= 1, got '") + f + "'");
  }
  return std::make_unique<Slowed>(prepare_solver(wrapped, in), factor);
}

}  // namespace splinebench::scattered
