#include "splinebench/scattered/solver_registry.hpp"

#include "splinebench/error.hpp"
#include "splinebench/scattered/gpu_cg.hpp"

namespace splinebench::scattered {

const std::vector<SolverInfo>& solver_registry() {
  static const std::vector<SolverInfo> all = {
#define SCATTERED_SOLVER(name, device, family, input, without_system, deterministic, fixed_schedule, arithmetic, \
                         tolerance, basis)                                                                    \
  SolverInfo{#name, #device, #family, #input, without_system, deterministic, fixed_schedule, arithmetic, tolerance, basis, \
             &prepare_##name},
#include "../solvers.def"
#undef SCATTERED_SOLVER
#if SPLINEBENCH_WITH_TEST_IMPLS
      // Test-only (builds with -DSPLINEBENCH_TEST_IMPLS=ON): another CPU solver made a known
      // factor slower, so the nightly gate can be shown to catch that (entries/test_slowed.cpp).
      SolverInfo{std::string(kTestSlowedSolver), "cpu", "krylov", "system", false, true, false, "f64", 1e-6,
                 "as the solver it runs (SPLINEBENCH_TEST_SLOWED_SOLVER, default cg)", &prepare_test_slowed_solver},
#endif
  };
  return all;
}

std::unique_ptr<PreparedSolver> prepare_solver(const std::string& name, const SolverInput& input) {
  const SolverInfo* info = find_solver(name);
  if (!info) {
    std::string known;
    for (const auto& s : solver_registry()) known += " " + s.name;
    fail("unknown solver '" + name + "' (known:" + known + ")");
  }
  if (!input.eq) fail("solver '" + name + "': no system given (pass an empty NormalEquations for none)");
  if (info->input == "samples" && !input.problem)
    fail("solver '" + name + "' starts from the samples: prepare it with the Problem");
  if (!input.has_system() && !info->runs_without_cpu_system)
    fail("solver '" + name + "' needs the CPU's system" +
         (info->input == "samples" ? " to measure relres (only the matrix-free solvers run without it)" : ""));
  if (input.has_system() && input.eq->rhs.size() != input.grid.points())
    fail("solver '" + name + "': the system has " + std::to_string(input.eq->rhs.size()) + " unknowns for the grid " +
         input.grid.to_string());
  return info->prepare(input);
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
