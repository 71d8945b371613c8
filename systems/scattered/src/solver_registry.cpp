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
