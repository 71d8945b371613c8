#include "splinebench/scattered/gpu_assembly.hpp"

#include <chrono>
#include <cmath>

#include "device_assembly.hpp"
#include "device_cg.hpp"
#include "device_report.hpp"
#include "splinebench/error.hpp"
#include "splinebench/scattered/gpu_cg.hpp"

namespace splinebench::scattered::gpu {

std::string_view to_string(AssemblyMethod method) { return method == AssemblyMethod::atomic ? "atomic" : "gather"; }

struct DeviceAssembler::Impl {
  detail::GridLayout layout;
  detail::SampleArrays samples;
  AssemblyMethod method;
};

DeviceAssembler::DeviceAssembler(const Problem& problem, AssemblyMethod method) {
  if (const std::string why = device_unavailable_reason(); !why.empty())
    throw Unsupported("scattered GPU assembly: " + why);
  problem.validate();
  impl_ = std::make_unique<Impl>(Impl{detail::make_grid_layout(problem.grid, problem.mode, problem.lambda),
                                      detail::make_sample_arrays(problem), method});
}

DeviceAssembler::~DeviceAssembler() = default;

NormalEquations DeviceAssembler::assemble(PhaseTimes& times) const {
  const detail::GridLayout& layout = impl_->layout;
  const bool gather = impl_->method == AssemblyMethod::gather;
  detail::HostCsr csr = detail::assemble_csr(layout, impl_->samples, gather);
  times.add(phase::upload, csr.upload_s);
  if (gather) times.add("assemble_sort", csr.sort_s);
  times.add("assemble_pattern", csr.pattern_s);
  times.add("assemble_values", csr.values_s);
  times.add(phase::readback, csr.readback_s);
  const auto rows = static_cast<int>(layout.rows);
  NormalEquations eq;
  eq.matrix = SparseMatrix(rows, rows);
  eq.matrix.resizeNonZeros(static_cast<Eigen::Index>(csr.value.size()));
  std::copy(csr.outer.begin(), csr.outer.end(), eq.matrix.outerIndexPtr());
  std::copy(csr.inner.begin(), csr.inner.end(), eq.matrix.innerIndexPtr());
  std::copy(csr.value.begin(), csr.value.end(), eq.matrix.valuePtr());
  eq.rhs = Eigen::Map<const Vector>(csr.rhs.data(), rows);
  return eq;
}

CgResult DeviceAssembler::assemble_and_solve(const IterationControl& control, PhaseTimes& times) const {
  const bool gather = impl_->method == AssemblyMethod::gather;
  const detail::DeviceSystem system(impl_->layout, impl_->samples, gather);
  times.add(phase::upload, system.upload_s);
  if (gather) times.add("assemble_sort", system.sort_s);
  times.add("assemble_pattern", system.pattern_s);
  times.add("assemble_values", system.values_s);
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<double> rhs = system.rhs();
  const double rhs_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double bb = 0;
  for (double v : rhs) bb += v * v;
  const double bnorm = std::sqrt(bb);
  CgResult out;
  if (bnorm == 0) {  // as the CPU's CG: the solution of A x = 0
    out.coeffs.assign(rhs.size(), 0.f);
    out.report.status = SolveStatus::converged;
    times.add(phase::readback, rhs_s);
    return out;
  }
  detail::DeviceCg cg(system);
  detail::DeviceCgOutput dev = cg.solve(bnorm, control.max_iterations, control.tolerance);
  times.add("solve", dev.solve_s);
  times.add(phase::readback, rhs_s + dev.readback_s);
  out.report = detail::report_from_device(dev);
  out.report.relres = out.report.history.empty() ? 1 : out.report.history.back();
  detail::keep_if_finite(out.report, dev.x);
  out.coeffs = std::move(dev.x);
  return out;
}

NormalEquations assemble_on_device(const Problem& problem, AssemblyMethod method, PhaseTimes& times) {
  return DeviceAssembler(problem, method).assemble(times);
}

}  // namespace splinebench::scattered::gpu
