// The GPU entries of solvers.def that start from the samples: the normal equations
// assembled on the device (atomic shooting or the deterministic gather) then CG, CG on
// the matrix-free operator, and the matrix-free multigrids (the seed's schedule, MG-PCG,
// and MG-PCG with its coarse levels from per-node stencils).
// The record's relres is measured on the CPU's f64 system where the input has one; the
// matrix-free ones also run without it (their relres is then the operator's own).
#include <sstream>

#include "entry_support.hpp"
#include "splinebench/scattered/gpu_assembly.hpp"
#include "splinebench/scattered/gpu_cg.hpp"
#include "splinebench/scattered/gpu_multigrid.hpp"
#include "splinebench/scattered/gpu_operator.hpp"

namespace splinebench::scattered {
namespace {

using entries::widen;

// Device assembly and CG: both are the solve's work (the seed's Table 2 times them
// together), so only the host's layout is prepared. The system stays on the device where
// it was assembled; only F^T f and x come back.
class AssembledCg final : public PreparedSolver {
 public:
  AssembledCg(const SolverInput& in, gpu::AssemblyMethod method) : eq_(*in.eq), assembler_(*in.problem, method) {
    label_ = "gpu_" + std::string(gpu::to_string(method));
  }
  NamedSolve solve(const IterationControl& control) override {
    NamedSolve out;
    out.assembly = label_;
    PhaseTimes dev;
    gpu::CgResult r = assembler_.assemble_and_solve(control, dev);
    double assemble = 0;
    for (const char* part : {"assemble_sort", "assemble_pattern", "assemble_values"})
      if (dev.has(part)) {
        out.phases.add(part, dev.get(part));
        assemble += dev.get(part);
      }
    out.phases.add("assemble", assemble);
    out.phases.add("assemble_upload", dev.get(phase::upload));
    if (dev.has("solve")) out.phases.add("solve", dev.get("solve"));
    out.phases.add(phase::readback, dev.get(phase::readback));
    out.x = widen(r.coeffs);
    out.report = std::move(r.report);
    // CG measured the recurrence's relres on the device's f32 system; the record's is on
    // the CPU's f64 one.
    if (control.verify_relres) out.report.relres = relative_residual(eq_.matrix, eq_.rhs, out.x);
    return out;
  }

 private:
  const NormalEquations& eq_;
  gpu::DeviceAssembler assembler_;
  std::string label_;
};

// The matrix-free set-up in the record's names: the sort and F^T f as "assemble" and its
// parts, the samples' upload as "assemble_upload", the levels as "setup".
PhaseTimes matrix_free_setup(const PhaseTimes& dev) {
  PhaseTimes out;
  out.add("assemble_sort", dev.get("assemble_sort"));
  out.add("assemble_rhs", dev.get("assemble_rhs"));
  out.add("assemble", dev.get("assemble_sort") + dev.get("assemble_rhs"));
  out.add("assemble_upload", dev.get(phase::upload));
  if (dev.has("setup")) out.add("setup", dev.get("setup"));
  return out;
}

// The operator's residual is f32 arithmetic with f64 norms; with the CPU's system the
// record's relres is the f64 one and the operator's goes to the message (where the
// control asks for the check: not in the harness's timed repetitions).
void measure_relres(const SolverInput& in, const IterationControl& control, NamedSolve& s) {
  if (!control.verify_relres) return;
  std::ostringstream msg;
  msg << (s.report.message.empty() ? "" : s.report.message + "; ") << "operator (f32) relres " << s.report.relres;
  if (in.has_system()) s.report.relres = relative_residual(in.eq->matrix, in.eq->rhs, s.x);
  else msg << " (no CPU system: relres is the operator's)";
  s.report.message = msg.str();
}

class MatrixFreeCg final : public PreparedSolver {
 public:
  explicit MatrixFreeCg(const SolverInput& in) : in_(in), cg_(*in.problem) { setup_phases = matrix_free_setup(cg_.setup()); }
  NamedSolve solve(const IterationControl& control) override {
    NamedSolve out;
    out.assembly = "matrix_free";
    gpu::MatrixFreeCgResult r = cg_.solve(control, out.phases);
    out.x = widen(r.coeffs);
    out.report = std::move(r.report);
    measure_relres(in_, control, out);
    return out;
  }

 private:
  SolverInput in_;
  gpu::MatrixFreeCg cg_;
};

enum class MgKind { seed, pcg };

class Multigrid final : public PreparedSolver {
 public:
  Multigrid(const SolverInput& in, MgKind kind)
      : in_(in),
        mg_(kind == MgKind::seed ? std::make_unique<gpu::PreparedMultigrid>(*in.problem, in.seed_mg)
                                 : std::make_unique<gpu::PreparedMultigrid>(*in.problem, gpu::MgPcgOptions{})),
        assembly_(kind == MgKind::seed ? "matrix_free" : "galerkin_stencils") {
    setup_phases = matrix_free_setup(mg_->setup());
  }
  NamedSolve solve(const IterationControl& control) override {
    NamedSolve out;
    out.assembly = assembly_;
    gpu::MultigridResult r = mg_->solve(control, out.phases);
    out.x = widen(r.coeffs);
    out.report = std::move(r.report);
    std::ostringstream levels;
    levels << "levels";
    for (std::size_t l = 0; l < r.grids.size(); ++l)
      levels << " " << r.grids[l].to_string() << " (" << r.level_iterations[l] << " CG it)";
    out.report.message = (out.report.message.empty() ? "" : out.report.message + "; ") + levels.str();
    measure_relres(in_, control, out);
    return out;
  }

 private:
  SolverInput in_;
  std::unique_ptr<gpu::PreparedMultigrid> mg_;
  std::string assembly_;
};

template <typename Solver, typename... Args>
std::unique_ptr<PreparedSolver> timed(Args&&... args) {
  const auto t0 = std::chrono::steady_clock::now();
  auto out = std::make_unique<Solver>(std::forward<Args>(args)...);
  out->setup_seconds = entries::seconds_since(t0);
  return out;
}

}  // namespace

std::unique_ptr<PreparedSolver> prepare_gpu_cg_atomic(const SolverInput& in) {
  return timed<AssembledCg>(in, gpu::AssemblyMethod::atomic);
}
std::unique_ptr<PreparedSolver> prepare_gpu_cg_gather(const SolverInput& in) {
  return timed<AssembledCg>(in, gpu::AssemblyMethod::gather);
}
std::unique_ptr<PreparedSolver> prepare_gpu_cg_matrix_free(const SolverInput& in) { return timed<MatrixFreeCg>(in); }
std::unique_ptr<PreparedSolver> prepare_gpu_mg_seed(const SolverInput& in) { return timed<Multigrid>(in, MgKind::seed); }
std::unique_ptr<PreparedSolver> prepare_gpu_mg_pcg(const SolverInput& in) { return timed<Multigrid>(in, MgKind::pcg); }

}  // namespace splinebench::scattered
