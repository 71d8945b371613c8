#include "splinebench/scattered/gpu_stationary.hpp"

#include <cmath>

#include "device_report.hpp"
#include "device_stationary.hpp"
#include "splinebench/error.hpp"
#include "splinebench/scattered/gpu_cg.hpp"

namespace splinebench::scattered::gpu {

struct PreparedStationary::Impl {
  const NormalEquations& eq;
  PhaseTimes setup;
  int singular_row = -1;                            // a zero diagonal: no device work
  std::unique_ptr<detail::DeviceStationary> device;
};

namespace {

std::unique_ptr<PreparedStationary::Impl> prepare(const NormalEquations& eq, detail::StationaryInput in) {
  if (const std::string why = device_unavailable_reason(); !why.empty())
    throw Unsupported("scattered GPU stationary solver: " + why);
  const SparseMatrix& a = eq.matrix;
  if (!a.isCompressed()) fail("scattered GPU stationary solver: the matrix must be compressed");
  auto impl = std::unique_ptr<PreparedStationary::Impl>(new PreparedStationary::Impl{eq, {}, -1, nullptr});
  const int n = static_cast<int>(a.rows());
  const Vector d = a.diagonal();
  for (int i = 0; i < n; ++i)
    if (!(d[i] > 0)) {
      impl->singular_row = i;
      return impl;
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
  impl->device = std::make_unique<detail::DeviceStationary>(in);
  impl->setup.add(phase::upload, impl->device->upload_s);
  return impl;
}

}  // namespace

PreparedStationary::PreparedStationary(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PreparedStationary::~PreparedStationary() = default;
PreparedStationary::PreparedStationary(PreparedStationary&&) noexcept = default;
PreparedStationary& PreparedStationary::operator=(PreparedStationary&&) noexcept = default;
const PhaseTimes& PreparedStationary::setup() const { return impl_->setup; }

PreparedStationary PreparedStationary::jacobi(const NormalEquations& eq, double omega) {
  detail::StationaryInput in;
  in.omega = omega;
  return PreparedStationary(prepare(eq, std::move(in)));
}

PreparedStationary PreparedStationary::gauss_seidel(const NormalEquations& eq, const Colouring& colouring,
                                                    bool symmetric) {
  detail::StationaryInput in;
  in.symmetric = symmetric;
  in.colour_offset.push_back(0);
  for (const auto& colour : colouring.colours) {
    in.members.insert(in.members.end(), colour.begin(), colour.end());
    in.colour_offset.push_back(static_cast<int>(in.members.size()));
  }
  return PreparedStationary(prepare(eq, std::move(in)));
}

StationaryResult PreparedStationary::solve(const IterationControl& control, PhaseTimes& times) {
  const NormalEquations& eq = impl_->eq;
  const SparseMatrix& a = eq.matrix;
  const int n = static_cast<int>(a.rows());
  StationaryResult out;
  if (impl_->singular_row >= 0) {
    out.coeffs.assign(static_cast<std::size_t>(n), 0.f);
    out.report.status = SolveStatus::singular;
    out.report.message = "diagonal entry " + std::to_string(impl_->singular_row) +
                         " is zero: no sample and no regularisation reach that unknown";
    out.report.relres = relative_residual(a, eq.rhs, Vector::Zero(n));
    return out;
  }
  detail::StationaryOutput dev =
      impl_->device->run(control.max_iterations, control.tolerance, control.divergence_factor);
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
  rep.relres = control.verify_relres ? relative_residual(a, eq.rhs, x) : detail::own_relres(rep);
  out.coeffs = std::move(dev.x);
  return out;
}

namespace {

StationaryResult prepare_and_solve(PreparedStationary prepared, const IterationControl& control, PhaseTimes& times) {
  for (const auto& [k, v] : prepared.setup().entries()) times.add(k, v);
  return prepared.solve(control, times);
}

}  // namespace

StationaryResult jacobi_f32(const NormalEquations& eq, double omega, const IterationControl& control,
                            PhaseTimes& times) {
  return prepare_and_solve(PreparedStationary::jacobi(eq, omega), control, times);
}

StationaryResult coloured_gauss_seidel_f32(const NormalEquations& eq, const Colouring& colouring, bool symmetric,
                                           const IterationControl& control, PhaseTimes& times) {
  return prepare_and_solve(PreparedStationary::gauss_seidel(eq, colouring, symmetric), control, times);
}

}  // namespace splinebench::scattered::gpu
