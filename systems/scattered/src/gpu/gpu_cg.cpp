#include "splinebench/scattered/gpu_cg.hpp"

#include "device_cg.hpp"
#include "device_report.hpp"
#include "splinebench/error.hpp"

namespace splinebench::scattered::gpu {

std::string device_unavailable_reason() { return detail::unavailable_reason(); }

double device_peak_bandwidth() {
  if (const std::string why = device_unavailable_reason(); !why.empty())
    throw Unsupported("scattered GPU: the device's bandwidth: " + why);
  return detail::peak_bandwidth();
}

struct PreparedCg::Impl {
  const NormalEquations& eq;
  double bnorm = 0;
  std::unique_ptr<detail::DeviceCg> device;  // null when b = 0
};

PreparedCg::PreparedCg(const NormalEquations& eq) : impl_(new Impl{eq, 0, nullptr}) {
  if (const std::string why = device_unavailable_reason(); !why.empty()) throw Unsupported("scattered GPU CG: " + why);
  const SparseMatrix& a = eq.matrix;
  if (!a.isCompressed()) fail("scattered GPU CG: the matrix must be compressed");
  impl_->bnorm = eq.rhs.norm();
  if (impl_->bnorm == 0) return;
  const int n = static_cast<int>(a.rows());
  const std::vector<float> values(a.valuePtr(), a.valuePtr() + a.nonZeros());
  const std::vector<float> rhs(eq.rhs.data(), eq.rhs.data() + n);
  impl_->device = std::make_unique<detail::DeviceCg>(n, a.outerIndexPtr(), a.innerIndexPtr(), values.data(), rhs.data());
  setup_.add(phase::upload, impl_->device->upload_s);
}

PreparedCg::~PreparedCg() = default;

CgResult PreparedCg::solve(const IterationControl& control, PhaseTimes& times) {
  const NormalEquations& eq = impl_->eq;
  const int n = static_cast<int>(eq.matrix.rows());
  CgResult out;
  if (!impl_->device) {
    out.coeffs.assign(static_cast<std::size_t>(n), 0.f);
    out.report.status = SolveStatus::converged;
    return out;
  }
  detail::DeviceCgOutput dev = impl_->device->solve(impl_->bnorm, control.max_iterations, control.tolerance);
  times.add("solve", dev.solve_s);
  times.add(phase::readback, dev.readback_s);
  SolveReport& rep = out.report;
  rep = detail::report_from_device(dev);
  const Vector x = Eigen::Map<const Eigen::VectorXf>(dev.x.data(), n).cast<double>();
  if (!x.allFinite()) {
    rep.status = SolveStatus::diverged;
    rep.message = "the device iterate is not finite (or was not written back)";
    out.coeffs.assign(static_cast<std::size_t>(n), 0.f);
    rep.relres = 1;
    return out;
  }
  rep.relres = control.verify_relres ? relative_residual(eq.matrix, eq.rhs, x) : detail::own_relres(rep);
  out.coeffs = std::move(dev.x);
  return out;
}

CgResult conjugate_gradient_f32(const NormalEquations& eq, const IterationControl& control, PhaseTimes& times) {
  PreparedCg cg(eq);
  for (const auto& [k, v] : cg.setup().entries()) times.add(k, v);
  return cg.solve(control, times);
}

}  // namespace splinebench::scattered::gpu
