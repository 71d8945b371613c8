#include "splinebench/scattered/named_solvers.hpp"

#include "splinebench/error.hpp"
#include "splinebench/scattered/solver_registry.hpp"

namespace splinebench::scattered {

std::vector<std::string> solver_names() {
  std::vector<std::string> names;
  for (const auto& s : solver_registry()) names.push_back(s.name);
  return names;
}

bool needs_problem(const std::string& name) {
  const SolverInfo* s = find_solver(name);
  return s && s->input == "samples";
}

bool needs_no_matrix(const std::string& name) {
  const SolverInfo* s = find_solver(name);
  return s && s->runs_without_cpu_system;
}

namespace {
NamedSolve prepare_and_solve(const std::string& name, const SolverInput& input, const IterationControl& control) {
  const std::unique_ptr<PreparedSolver> solver = prepare_solver(name, input);
  NamedSolve out = solver->solve(control);
  for (const auto& [phase, seconds] : solver->setup_phases.entries()) out.phases.add(phase, seconds);
  return out;
}
}  // namespace

NamedSolve solve_named(const std::string& name, const GridShape& grid, Mode mode, const NormalEquations& eq,
                       const IterationControl& control, const SeedMultigrid& seed_mg) {
  if (needs_problem(name)) fail("solver '" + name + "' starts from the samples: call solve_named with the Problem");
  return prepare_and_solve(name, SolverInput::of(grid, mode, eq, seed_mg), control);
}

NamedSolve solve_named(const std::string& name, const Problem& problem, const NormalEquations& eq,
                       const IterationControl& control, const SeedMultigrid& seed_mg) {
  return prepare_and_solve(name, SolverInput::of(problem, eq, seed_mg), control);
}

}  // namespace splinebench::scattered
