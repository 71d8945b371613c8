// The solvers of scattered reconstruction as declared in systems/scattered/solvers.def,
// with their capabilities and stated tolerance (what the harness and the registry
// conformance test judge each against).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "splinebench/scattered/prepared_solver.hpp"

namespace splinebench::scattered {

struct SolverInfo {
  std::string name;
  std::string device;      // "cpu" | "gpu"
  std::string family;      // "stationary" | "krylov" | "multigrid"
  std::string input;       // "system" (the CPU's assembly) | "samples"
  bool runs_without_cpu_system = false;
  bool deterministic = true;
  bool fixed_schedule = false;  // a set number of sweeps, not a run to the tolerance
  std::string arithmetic;
  double rms_g_tolerance = 0;  // relative to the oracle's RMS_g, at convergence
  std::string tolerance_basis;
  SolverFactory prepare = nullptr;  // prepare_<name> (prepared_solver.hpp)

  bool stationary() const { return family == "stationary"; }
  // Whether a run that stops at its budget (or schedule) is judged for progress only.
  bool judged_at_budget() const { return stationary() || fixed_schedule; }
  bool on_gpu() const { return device == "gpu"; }
};

// The test-only solver (registered in builds with -DSPLINEBENCH_TEST_IMPLS=ON, after
// solvers.def's): the CPU solver named by SPLINEBENCH_TEST_SLOWED_SOLVER (default cg) made
// SPLINEBENCH_TEST_SLOWED_FACTOR times slower by a busy wait after each solve. Selectors
// ("all", "cpu", a family) never pick it; a suite names it.
inline constexpr std::string_view kTestSlowedSolver = "test_slowed_solver";
std::unique_ptr<PreparedSolver> prepare_test_slowed_solver(const SolverInput& input);

// In solvers.def order.
const std::vector<SolverInfo>& solver_registry();
const SolverInfo* find_solver(std::string_view name);  // nullptr if unknown
// "" when the solver can run here, else why not (a GPU solver without a device).
std::string solver_unavailable_reason(const SolverInfo& info);

}  // namespace splinebench::scattered
