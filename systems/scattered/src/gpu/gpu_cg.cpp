#include "splinebench/scattered/gpu_cg.hpp"

#include "device_cg.hpp"
#include "device_report.hpp"
#include "splinebench/error.hpp"

namespace splinebench::scattered::gpu {

std::string device_unavailable_reason() { return detail::unavailable_reason(); }

CgResult conjugate_gradient_f32(const NormalEquations& eq, const IterationControl& control, PhaseTimes& times) {
  if (const std::string why = device_unavailable_reason(); !why.empty()) throw Unsupported("scattered GPU CG: " + why);
  const SparseMatrix& a = eq.matrix;
  if (!a.isCompressed()) fail("scattered GPU CG: the matrix must be compressed");
  const int n = static_cast<int>(a.rows());
  CgResult out;
  const double bnorm = eq.rhs.norm();
  if (bnorm == 0) {
    out.coeffs.assign(static_cast<std::size_t>(n), 0.f);
    out.report.status = SolveStatus::converged;
    return out;
  }
  const std::vector<float> values(a.valuePtr(), a.valuePtr() + a.nonZeros());
  const std::vector<float> rhs(eq.rhs.data(), eq.rhs.data() + n);
  detail::DeviceCgOutput dev = detail::run_cg(n, a.outerIndexPtr(), a.innerIndexPtr(), values.data(), rhs.data(), bnorm,
                                              control.max_iterations, control.tolerance);
  times.add(phase::upload, dev.upload_s);
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
  rep.relres = relative_residual(a, eq.rhs, x);
  out.coeffs = std::move(dev.x);
  return out;
}

}  // namespace splinebench::scattered::gpu
