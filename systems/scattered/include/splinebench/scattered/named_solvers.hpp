// Every solver of the registry (solvers.def; what each is: README.md's table) by the
// name records and command lines use, for a single solve: prepare_solver
// (prepared_solver.hpp) and one solve() from x = 0. Callers that solve the same problem
// again keep the prepared solver instead.
#pragma once

#include <string>
#include <vector>

#include "splinebench/scattered/prepared_solver.hpp"

namespace splinebench::scattered {

// In solvers.def order.
std::vector<std::string> solver_names();
// The entries whose input is the samples (they need the Problem).
bool needs_problem(const std::string& name);
// The entries that run without the CPU's system (eq empty: a grid too large for the CPU
// assembly); their relres is then the operator's own (f32 product, f64 norms), and the
// message says so.
bool needs_no_matrix(const std::string& name);

// A "system" entry on eq (the assembly of `grid` in `mode`). Throws splinebench::Error
// for an unknown name or one that needs_problem, splinebench::Unsupported as
// prepare_solver does. NamedSolve::phases holds the preparation's device phases too.
NamedSolve solve_named(const std::string& name, const GridShape& grid, Mode mode, const NormalEquations& eq,
                       const IterationControl& control, const SeedMultigrid& seed_mg = {});

// Every entry; eq must be problem's CPU assembly (relres is measured on it), or empty
// (no rows) for the entries that needs_no_matrix.
NamedSolve solve_named(const std::string& name, const Problem& problem, const NormalEquations& eq,
                       const IterationControl& control, const SeedMultigrid& seed_mg = {});

}  // namespace splinebench::scattered
