#include "splinebench/scattered/gpu_operator.hpp"

#include "device_operator.hpp"
#include "device_report.hpp"
#include "splinebench/error.hpp"
#include "splinebench/scattered/gpu_cg.hpp"

namespace splinebench::scattered::gpu {

namespace {
void require_device(const Problem& problem) {
  if (const std::string why = device_unavailable_reason(); !why.empty())
    throw Unsupported("scattered GPU matrix-free operator: " + why);
  problem.validate();
}
}  // namespace

std::vector<float> apply_matrix_free(const Problem& problem, const std::vector<float>& p) {
  require_device(problem);
  if (static_cast<std::int64_t>(p.size()) != problem.grid.points())
    fail("apply_matrix_free: p has " + std::to_string(p.size()) + " values for " + problem.grid.to_string());
  return detail::apply_operator(detail::make_grid_layout(problem.grid, problem.mode, problem.lambda),
                                detail::make_sample_arrays(problem), p);
}

std::vector<float> matrix_free_diagonal(const Problem& problem) {
  require_device(problem);
  return detail::operator_diagonal(detail::make_grid_layout(problem.grid, problem.mode, problem.lambda),
                                   detail::make_sample_arrays(problem));
}

std::vector<KernelTime> profile_matrix_free(const Problem& problem, int repeats, int chunk) {
  require_device(problem);
  if (repeats < 1) fail("profile_matrix_free: repeats must be >= 1, got " + std::to_string(repeats));
  if (chunk < 0 || chunk > 64) fail("profile_matrix_free: chunk must be 0 (the operator's choice) or 1..64, got " +
                                    std::to_string(chunk));
  const auto n = static_cast<double>(problem.grid.points());
  const auto s = static_cast<double>(problem.samples());
  // The bytes each kernel must move (gpu_operator.hpp); 0: one-off, not part of the bound.
  const auto bytes_of = [&](const std::string& name) {
    if (name == "sample_values") return 4 * n + 20 * s;
    if (name == "apply_rows") return 12 * n + 20 * s;
    if (name == "update_xr") return 24 * n;
    if (name == "update_p") return 12 * n;
    if (name == "dot") return 8 * n;
    return 0.0;
  };
  std::vector<KernelTime> out;
  for (const detail::KernelSeconds& k :
       detail::profile_operator(detail::make_grid_layout(problem.grid, problem.mode, problem.lambda),
                                detail::make_sample_arrays(problem), repeats, chunk))
    out.push_back({k.name, k.seconds, bytes_of(k.name)});
  return out;
}

struct MatrixFreeCg::Impl {
  std::int64_t nodes = 0, samples = 0;
  std::unique_ptr<detail::OperatorCg> device;
};

MatrixFreeCg::MatrixFreeCg(const Problem& problem) : impl_(std::make_unique<Impl>()) {
  require_device(problem);
  impl_->nodes = problem.grid.points();
  impl_->samples = problem.samples();
  impl_->device = std::make_unique<detail::OperatorCg>(
      detail::make_grid_layout(problem.grid, problem.mode, problem.lambda), detail::make_sample_arrays(problem));
  setup_.add(phase::upload, impl_->device->upload_s);
  setup_.add("assemble_sort", impl_->device->sort_s);
  setup_.add("assemble_rhs", impl_->device->rhs_s);
}

MatrixFreeCg::~MatrixFreeCg() = default;

MatrixFreeCgResult MatrixFreeCg::solve(const IterationControl& control, PhaseTimes& times) {
  detail::OperatorCgOutput dev = impl_->device->solve(control.max_iterations, control.tolerance);
  times.add("solve", dev.solve_s);
  times.add(phase::readback, dev.readback_s);
  MatrixFreeCgResult out;
  out.bytes_per_iteration = matrix_free_cg_bytes_per_iteration(impl_->nodes, impl_->samples);
  out.seconds_per_iteration = dev.iterations > 0 ? dev.solve_s / dev.iterations : 0;
  SolveReport& rep = out.report;
  rep = detail::report_from_device(dev);
  rep.relres = dev.true_relres;
  detail::keep_if_finite(rep, dev.x);
  out.coeffs = std::move(dev.x);
  return out;
}

MatrixFreeCgResult matrix_free_cg_f32(const Problem& problem, const IterationControl& control, PhaseTimes& times) {
  MatrixFreeCg cg(problem);
  for (const auto& [k, v] : cg.setup().entries()) times.add(k, v);
  return cg.solve(control, times);
}

}  // namespace splinebench::scattered::gpu
