// The GPU entries of solvers.def that iterate on the CPU's assembly, in f32: CG (the
// matrix uploaded once), Jacobi (undamped, and damped by the CPU's 20-step Lanczos
// estimate) and the coloured Gauss-Seidels. Prepared: the damping or the colouring, and
// the matrix's upload (CSR for CG, the ELL layout for the stationary solvers).
#include <chrono>
#include <memory>
#include <utility>

#include "entry_support.hpp"
#include "splinebench/error.hpp"
#include "splinebench/scattered/gpu_cg.hpp"
#include "splinebench/scattered/gpu_stationary.hpp"

namespace splinebench::scattered {
namespace {

using entries::widen;

void require_device(const char* name) {
  if (const std::string why = gpu::device_unavailable_reason(); !why.empty())
    throw Unsupported(std::string("scattered GPU solver ") + name + ": " + why);
}

// An entry over a device object prepared once (gpu::PreparedCg, gpu::PreparedStationary):
// its setup phases, and each solve's f32 coefficients widened.
template <typename Prepared>
class PreparedGpu final : public PreparedSolver {
 public:
  template <typename Make>
  explicit PreparedGpu(Make make) : prepared_(make()) {
    setup_phases = prepared_.setup();
  }
  NamedSolve solve(const IterationControl& control) override {
    NamedSolve out;
    auto r = prepared_.solve(control, out.phases);
    out.x = widen(r.coeffs);
    out.report = std::move(r.report);
    return out;
  }

 private:
  Prepared prepared_;
};

// make() returns the device object; its wall time, with what it computes first (the
// damping, the colouring), is the setup.
template <typename Make>
std::unique_ptr<PreparedSolver> prepared_gpu(Make make) {
  const auto t0 = std::chrono::steady_clock::now();
  auto out = std::make_unique<PreparedGpu<decltype(make())>>(std::move(make));
  out->setup_seconds = entries::seconds_since(t0);
  return out;
}

std::unique_ptr<PreparedSolver> jacobi_with(const SolverInput& in, bool damped, const char* name) {
  require_device(name);
  return prepared_gpu([&in, damped] {
    const NormalEquations& eq = *in.eq;
    return gpu::PreparedStationary::jacobi(eq, damped ? jacobi_damping(eq.matrix) : 1.0);
  });
}

std::unique_ptr<PreparedSolver> coloured_with(const SolverInput& in, bool seed_colours, bool symmetric,
                                              const char* name) {
  require_device(name);
  return prepared_gpu([&in, seed_colours, symmetric] {
    const NormalEquations& eq = *in.eq;
    const Colouring c = seed_colours ? colouring_seed_gs8x(in.grid) : colouring_multicolour(in.grid, eq.matrix);
    return gpu::PreparedStationary::gauss_seidel(eq, c, symmetric);
  });
}

}  // namespace

std::unique_ptr<PreparedSolver> prepare_gpu_cg(const SolverInput& in) {
  return prepared_gpu([&in] { return gpu::PreparedCg(*in.eq); });
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
