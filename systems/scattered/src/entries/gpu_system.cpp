// The GPU entries of solvers.def that iterate on the CPU's assembly, in f32: CG (the
// matrix uploaded once), Jacobi (undamped, and damped by the CPU's 20-step Lanczos
// estimate) and the coloured Gauss-Seidels. Prepared: the upload (CG), the damping, the
// colouring.
#include "entry_support.hpp"
#include "splinebench/error.hpp"
#include "splinebench/scattered/gpu_cg.hpp"
#include "splinebench/scattered/gpu_stationary.hpp"

namespace splinebench::scattered {
namespace {

using entries::prepared;
using entries::widen;

void require_device(const char* name) {
  if (const std::string why = gpu::device_unavailable_reason(); !why.empty())
    throw Unsupported(std::string("scattered GPU solver ") + name + ": " + why);
}

class GpuCg final : public PreparedSolver {
 public:
  explicit GpuCg(const NormalEquations& eq) : cg_(eq) { setup_phases = cg_.setup(); }
  NamedSolve solve(const IterationControl& control) override {
    NamedSolve out;
    gpu::CgResult r = cg_.solve(control, out.phases);
    out.x = widen(r.coeffs);
    out.report = std::move(r.report);
    return out;
  }

 private:
  gpu::PreparedCg cg_;
};

NamedSolve from_stationary(gpu::StationaryResult&& r, PhaseTimes&& times) {
  NamedSolve out;
  out.x = widen(r.coeffs);
  out.report = std::move(r.report);
  out.phases = std::move(times);
  return out;
}

std::unique_ptr<PreparedSolver> jacobi_with(const SolverInput& in, bool damped, const char* name) {
  require_device(name);
  return prepared([&in, damped] {
    const NormalEquations& eq = *in.eq;
    const double omega = damped ? jacobi_damping(eq.matrix) : 1.0;
    return [&eq, omega](const IterationControl& control) {
      PhaseTimes times;
      gpu::StationaryResult r = gpu::jacobi_f32(eq, omega, control, times);
      return from_stationary(std::move(r), std::move(times));
    };
  });
}

std::unique_ptr<PreparedSolver> coloured_with(const SolverInput& in, bool seed_colours, bool symmetric,
                                              const char* name) {
  require_device(name);
  return prepared([&in, seed_colours, symmetric] {
    const NormalEquations& eq = *in.eq;
    Colouring c = seed_colours ? colouring_seed_gs8x(in.grid) : colouring_multicolour(in.grid, eq.matrix);
    return [&eq, c = std::move(c), symmetric](const IterationControl& control) {
      PhaseTimes times;
      gpu::StationaryResult r = gpu::coloured_gauss_seidel_f32(eq, c, symmetric, control, times);
      return from_stationary(std::move(r), std::move(times));
    };
  });
}

}  // namespace

std::unique_ptr<PreparedSolver> prepare_gpu_cg(const SolverInput& in) {
  const auto t0 = std::chrono::steady_clock::now();
  auto out = std::make_unique<GpuCg>(*in.eq);
  out->setup_seconds = entries::seconds_since(t0);
  return out;
}

std::unique_ptr<PreparedSolver> prepare_gpu_jacobi(const SolverInput& in) {
  return jacobi_with(in, false, "gpu_jacobi");
}
std::unique_ptr<PreparedSolver> prepare_gpu_jacobi_damped(const SolverInput& in) {
  return jacobi_with(in, true, "gpu_jacobi_damped");
}
std::unique_ptr<PreparedSolver> prepare_gpu_gs8x(const SolverInput& in) {
  return coloured_with(in, true, false, "gpu_gs8x");
}
std::unique_ptr<PreparedSolver> prepare_gpu_gs_mc(const SolverInput& in) {
  return coloured_with(in, false, false, "gpu_gs_mc");
}
std::unique_ptr<PreparedSolver> prepare_gpu_sgs_mc(const SolverInput& in) {
  return coloured_with(in, false, true, "gpu_sgs_mc");
}

}  // namespace splinebench::scattered
