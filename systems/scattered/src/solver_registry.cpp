#include "splinebench/scattered/solver_registry.hpp"

#include "splinebench/scattered/gpu_cg.hpp"

namespace splinebench::scattered {

const std::vector<SolverInfo>& solver_registry() {
  static const std::vector<SolverInfo> all = {
#define SCATTERED_SOLVER(name, device, family, input, without_system, deterministic, fixed_schedule, arithmetic, \
                         tolerance, basis)                                                                    \
  SolverInfo{#name, #device, #family, #input, without_system, deterministic, fixed_schedule, arithmetic, tolerance, basis},
#include "../solvers.def"
#undef SCATTERED_SOLVER
#if SPLINEBENCH_WITH_TEST_IMPLS
      // Test-only (builds with -DSPLINEBENCH_TEST_IMPLS=ON): another CPU solver made a known
      // factor slower, so the nightly gate can be shown to catch that (named_solvers.cpp).
      SolverInfo{std::string(kTestSlowedSolver), "cpu", "krylov", "system", false, true, false, "f64", 1e-6,
                 "as the solver it runs (SPLINEBENCH_TEST_SLOWED_SOLVER, default cg)"},
#endif
  };
  return all;
}

const SolverInfo* find_solver(std::string_view name) {
  for (const auto& s : solver_registry())
    if (s.name == name) return &s;
  return nullptr;
}

std::string solver_unavailable_reason(const SolverInfo& info) {
  if (!info.on_gpu()) return "";
  return gpu::device_unavailable_reason();
}

}  // namespace splinebench::scattered
