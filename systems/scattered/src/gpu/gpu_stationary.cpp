#include "splinebench/scattered/gpu_stationary.hpp"

#include <cmath>

#include "device_stationary.hpp"
#include "splinebench/error.hpp"
#include "splinebench/scattered/gpu_cg.hpp"

namespace splinebench::scattered::gpu {

namespace {

StationaryResult run(const NormalEquations& eq, detail::StationaryInput in, const IterationControl& control,
                     PhaseTimes& times) {
  if (const std::string why = device_unavailable_reason(); !why.empty())
    throw Unsupported("scattered GPU stationary solver: " + why);
  const SparseMatrix& a = eq.matrix;
  if (!a.isCompressed()) fail("scattered GPU stationary solver: the matrix must be compressed");
  const int n = static_cast<int>(a.rows());
  StationaryResult out;
  const Vector d = a.diagonal();
  for (int i = 0; i < n; ++i)
    if (!(d[i] > 0)) {
      out.coeffs.assign(static_cast<std::size_t>(n), 0.f);
      out.report.status = SolveStatus::singular;
      out.report.message =
          "diagonal entry " + std::to_string(i) + " is zero: no sample and no regularisation reach that unknown";
      out.report.relres = relative_residual(a, eq.rhs, Vector::Zero(n));
      return out;
    }
  const std::vector<float> values(a.valuePtr(), a.valuePtr() + a.nonZeros());
  const std::vector<float> diagonal(d.data(), d.data() + n);
  const std::vector<float> rhs(eq.rhs.data(), eq.rhs.data() + n);
  in.n = n;
  in.outer = a.outerIndexPtr();
  in.inner = a.innerIndexPtr();
  in.value = values.data();
  in.diagonal = diagonal.data();
  in.rhs = rhs.data();
  in.bnorm = eq.rhs.norm();
  in.max_iterations = control.max_iterations;
  in.tolerance = control.tolerance;
  in.divergence_factor = control.divergence_factor;
  detail::StationaryOutput dev = detail::run_stationary(in);
  times.add(phase::upload, dev.upload_s);
  times.add("solve", dev.solve_s);
  times.add(phase::readback, dev.readback_s);
  SolveReport& rep = out.report;
  rep.iterations = dev.iterations;
  rep.history = std::move(dev.history);
  rep.message = dev.message;
  rep.status = dev.status == detail::StationaryOutput::converged   ? SolveStatus::converged
               : dev.status == detail::StationaryOutput::diverged ? SolveStatus::diverged
                                                                  : SolveStatus::max_iterations;
  if (rep.status == SolveStatus::max_iterations) rep.message = "iteration budget used up";
  const Vector x = Eigen::Map<const Eigen::VectorXf>(dev.x.data(), n).cast<double>();
  if (!x.allFinite()) {
    rep.status = SolveStatus::diverged;
    rep.message = "the device iterate is not finite";
    out.coeffs.assign(static_cast<std::size_t>(n), 0.f);
    rep.relres = 1;
    return out;
  }
  rep.relres = relative_residual(a, eq.rhs, x);
  out.coeffs = std::move(dev.x);
  return out;
}

}  // namespace

StationaryResult jacobi_f32(const NormalEquations& eq, double omega, const IterationControl& control,
                            PhaseTimes& times) {
  detail::StationaryInput in;
  in.omega = omega;
  return run(eq, std::move(in), control, times);
}

StationaryResult coloured_gauss_seidel_f32(const NormalEquations& eq, const Colouring& colouring, bool symmetric,
                                           const IterationControl& control, PhaseTimes& times) {
  detail::StationaryInput in;
  in.symmetric = symmetric;
  in.colour_offset.push_back(0);
  for (const auto& colour : colouring.colours) {
    in.members.insert(in.members.end(), colour.begin(), colour.end());
    in.colour_offset.push_back(static_cast<int>(in.members.size()));
  }
  return run(eq, std::move(in), control, times);
}

}  // namespace splinebench::scattered::gpu
