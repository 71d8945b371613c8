#include "splinebench/scattered/named_solvers.hpp"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include <Eigen/IterativeLinearSolvers>

#include "splinebench/error.hpp"
#include "splinebench/scattered/gpu_assembly.hpp"
#include "splinebench/scattered/gpu_cg.hpp"
#include "splinebench/scattered/gpu_multigrid.hpp"
#include "splinebench/scattered/gpu_operator.hpp"
#include "splinebench/scattered/gpu_stationary.hpp"
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
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

NamedSolve solve_named(const std::string& name, const GridShape& grid, Mode mode, const NormalEquations& eq,
                       const IterationControl& control, const SeedMultigrid& seed_mg) {
  if (needs_problem(name)) fail("solver '" + name + "' starts from the samples: call solve_named with the Problem");
  const SparseMatrix& a = eq.matrix;
  const Vector& b = eq.rhs;
  NamedSolve out;
  out.x = Vector::Zero(b.size());
  const auto t0 = std::chrono::steady_clock::now();
  if (name == "jacobi") {
    out.report = jacobi(a, b, out.x, 1.0, control);
  } else if (name == "jacobi_damped") {
    const double omega = jacobi_damping(a);
    out.setup_seconds = seconds_since(t0);
    out.report = jacobi(a, b, out.x, omega, control);
  } else if (name == "gs8x" || name == "gs_mc" || name == "sgs_mc") {
    const Colouring c = name == "gs8x" ? colouring_seed_gs8x(grid) : colouring_multicolour(grid, a);
    out.setup_seconds = seconds_since(t0);
    out.report = coloured_gauss_seidel(a, b, out.x, c, name == "sgs_mc", control);
  } else if (name == "gs_lex") {
    out.report = gauss_seidel_lexicographic(a, b, out.x, false, control);
  } else if (name == "cg") {
    out.report = conjugate_gradient(a, b, out.x, control);
  } else if (name == "mg_seed") {
    const Hierarchy h = Hierarchy::build(grid, mode, a, seed_mg.p);
    out.setup_seconds = seconds_since(t0);
    out.report = mg_seed(h, b, out.x, seed_mg, control.observer);
  } else if (name == "mg_pcg") {
    const Hierarchy h = Hierarchy::build(grid, mode, a);
    const VCycle cycle(h, mode, Smoother::lexicographic);
    out.setup_seconds = seconds_since(t0);
    out.report = mg_pcg(a, b, out.x, cycle, control);
  } else if (name == "eigen_cg") {
    Eigen::ConjugateGradient<SparseMatrix, Eigen::Lower | Eigen::Upper, Eigen::DiagonalPreconditioner<double>> cg;
    cg.setMaxIterations(control.max_iterations);
    // Eigen stops at ||r|| <= tol ||b||; a zero tolerance means "run the budget".
    cg.setTolerance(control.tolerance > 0 ? control.tolerance : 1e-300);
    cg.compute(a);
    out.x = cg.solve(b);
    out.report.iterations = static_cast<int>(cg.iterations());
    out.report.relres = relative_residual(a, b, out.x);
    const bool reached = control.tolerance > 0 && cg.info() == Eigen::Success;
    out.report.status = reached ? SolveStatus::converged : SolveStatus::max_iterations;
    if (!out.x.allFinite()) {
      out.x.setZero();
      out.report.status = SolveStatus::singular;
      out.report.message = "Eigen's CG produced non-finite values";
    }
  } else if (name == "gpu_cg") {
    PhaseTimes times;
    gpu::CgResult r = gpu::conjugate_gradient_f32(eq, control, times);
    out.x = Eigen::Map<const Eigen::VectorXf>(r.coeffs.data(), static_cast<Eigen::Index>(r.coeffs.size())).cast<double>();
    out.report = std::move(r.report);
    out.setup_seconds = times.get(phase::upload);
    out.phases = times;
  } else if (name == "gpu_jacobi" || name == "gpu_jacobi_damped" || name == "gpu_gs8x" || name == "gpu_gs_mc" ||
             name == "gpu_sgs_mc") {
    PhaseTimes times;
    gpu::StationaryResult r;
    if (name == "gpu_jacobi" || name == "gpu_jacobi_damped") {
      const double omega = name == "gpu_jacobi" ? 1.0 : jacobi_damping(a);
      r = gpu::jacobi_f32(eq, omega, control, times);
    } else {
      const Colouring c = name == "gpu_gs8x" ? colouring_seed_gs8x(grid) : colouring_multicolour(grid, a);
      r = gpu::coloured_gauss_seidel_f32(eq, c, name == "gpu_sgs_mc", control, times);
    }
    out.x = Eigen::Map<const Eigen::VectorXf>(r.coeffs.data(), static_cast<Eigen::Index>(r.coeffs.size())).cast<double>();
    out.report = std::move(r.report);
    out.setup_seconds = seconds_since(t0) - times.get("solve") - times.get(phase::readback);
    out.phases = times;
  } else {
    std::string known;
    for (const auto& n : solver_names()) known += " " + n;
    fail("unknown solver '" + name + "' (known:" + known + ")");
  }
  return out;
}

namespace {

Vector widen(const std::vector<float>& v) {
  return Eigen::Map<const Eigen::VectorXf>(v.data(), static_cast<Eigen::Index>(v.size())).cast<double>();
}

}  // namespace

namespace {

// test_slowed_solver: the wrapped solver, then a busy wait of (factor - 1) times its
// duration (busy, so that it competes for the core like the work it stands for).
NamedSolve solve_slowed(const Problem& problem, const NormalEquations& eq, const IterationControl& control,
                        const SeedMultigrid& seed_mg) {
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
  const auto t0 = std::chrono::steady_clock::now();
  NamedSolve out = solve_named(wrapped, problem, eq, control, seed_mg);
  const double spent = seconds_since(t0);
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>((factor - 1) * spent);
  while (std::chrono::steady_clock::now() < until) {
  }
  return out;
}

}  // namespace

NamedSolve solve_named(const std::string& name, const Problem& problem, const NormalEquations& eq,
                       const IterationControl& control, const SeedMultigrid& seed_mg) {
  if (name == kTestSlowedSolver) return solve_slowed(problem, eq, control, seed_mg);
  if (!needs_problem(name)) return solve_named(name, problem.grid, problem.mode, eq, control, seed_mg);
  const bool with_matrix = eq.matrix.rows() > 0;
  if (!with_matrix && !needs_no_matrix(name))
    fail("solver '" + name + "' needs the CPU's system to measure relres (only the matrix-free solvers run without it)");
  if (with_matrix && eq.rhs.size() != problem.grid.points())
    fail("solve_named: the system has " + std::to_string(eq.rhs.size()) + " unknowns for the grid " +
         problem.grid.to_string());
  NamedSolve out;
  // The operator's residual is f32 arithmetic with f64 norms; with the CPU's system the
  // record's relres is the f64 one and the operator's goes to the message.
  auto measure_relres = [&](NamedSolve& s) {
    std::ostringstream msg;
    msg << (s.report.message.empty() ? "" : s.report.message + "; ") << "operator (f32) relres " << s.report.relres;
    if (with_matrix) s.report.relres = relative_residual(eq.matrix, eq.rhs, s.x);
    else msg << " (no CPU system: relres is the operator's)";
    s.report.message = msg.str();
  };
  if (name == "gpu_mg_seed" || name == "gpu_mg_pcg") {
    PhaseTimes dev;
    gpu::MultigridResult r = name == "gpu_mg_seed" ? gpu::mg_seed_f32(problem, seed_mg, dev)
                                                   : gpu::mg_pcg_f32(problem, control, dev);
    out.assembly = "matrix_free";
    out.phases.add("assemble_sort", dev.get("assemble_sort"));
    out.phases.add("assemble_rhs", dev.get("assemble_rhs"));
    out.phases.add("assemble", dev.get("assemble_sort") + dev.get("assemble_rhs"));
    out.phases.add("assemble_upload", dev.get(phase::upload));
    out.phases.add("setup", dev.get("setup"));
    out.phases.add("solve", dev.get("solve"));
    out.phases.add(phase::readback, dev.get(phase::readback));
    out.setup_seconds = dev.get("setup");
    out.x = widen(r.coeffs);
    out.report = std::move(r.report);
    std::ostringstream levels;
    levels << "levels";
    for (std::size_t l = 0; l < r.grids.size(); ++l)
      levels << " " << r.grids[l].to_string() << " (" << r.level_iterations[l] << " CG it)";
    out.report.message = (out.report.message.empty() ? "" : out.report.message + "; ") + levels.str();
    measure_relres(out);
    return out;
  }
  if (name == "gpu_cg_matrix_free") {
    PhaseTimes dev;
    gpu::MatrixFreeCgResult r = gpu::matrix_free_cg_f32(problem, control, dev);
    out.assembly = "matrix_free";
    out.phases.add("assemble_sort", dev.get("assemble_sort"));
    out.phases.add("assemble_rhs", dev.get("assemble_rhs"));
    out.phases.add("assemble", dev.get("assemble_sort") + dev.get("assemble_rhs"));
    out.phases.add("assemble_upload", dev.get(phase::upload));
    out.phases.add("solve", dev.get("solve"));
    out.phases.add(phase::readback, dev.get(phase::readback));
    out.x = widen(r.coeffs);
    out.report = std::move(r.report);
    measure_relres(out);
    return out;
  }
  const gpu::AssemblyMethod method = name == "gpu_cg_atomic" ? gpu::AssemblyMethod::atomic : gpu::AssemblyMethod::gather;
  PhaseTimes asm_times;
  const NormalEquations dev_eq = gpu::assemble_on_device(problem, method, asm_times);
  out.assembly = "gpu_" + std::string(gpu::to_string(method));
  double assemble = 0;
  for (const char* part : {"assemble_sort", "assemble_pattern", "assemble_values"})
    if (asm_times.has(part)) {
      out.phases.add(part, asm_times.get(part));
      assemble += asm_times.get(part);
    }
  out.phases.add("assemble", assemble);
  out.phases.add("assemble_upload", asm_times.get(phase::upload));
  out.phases.add("assemble_readback", asm_times.get(phase::readback));
  PhaseTimes cg_times;
  gpu::CgResult r = gpu::conjugate_gradient_f32(dev_eq, control, cg_times);
  for (const auto& [k, v] : cg_times.entries()) out.phases.add(k, v);
  out.setup_seconds = cg_times.get(phase::upload);
  out.x = widen(r.coeffs);
  out.report = std::move(r.report);
  // gpu_cg measured relres on the device-assembled matrix; the record's is on the CPU's.
  out.report.relres = relative_residual(eq.matrix, eq.rhs, out.x);
  return out;
}

}  // namespace splinebench::scattered
