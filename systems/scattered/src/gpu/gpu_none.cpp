// The GPU solvers' interface in a build without CUDA.
#include "splinebench/error.hpp"
#include "splinebench/scattered/gpu_cg.hpp"

namespace splinebench::scattered::gpu {

std::string device_unavailable_reason() { return "not built with CUDA"; }
double device_peak_bandwidth() { throw Unsupported("scattered GPU: not built with CUDA"); }

struct PreparedCg::Impl {};
PreparedCg::PreparedCg(const NormalEquations&) { throw Unsupported("scattered GPU CG: not built with CUDA"); }
PreparedCg::~PreparedCg() = default;
CgResult PreparedCg::solve(const IterationControl&, PhaseTimes&) {
  throw Unsupported("scattered GPU CG: not built with CUDA");
}

CgResult conjugate_gradient_f32(const NormalEquations&, const IterationControl&, PhaseTimes&) {
  throw Unsupported("scattered GPU CG: not built with CUDA");
}

}  // namespace splinebench::scattered::gpu

#include "splinebench/scattered/gpu_assembly.hpp"

namespace splinebench::scattered::gpu {

std::string_view to_string(AssemblyMethod method) { return method == AssemblyMethod::atomic ? "atomic" : "gather"; }

struct DeviceAssembler::Impl {};
DeviceAssembler::DeviceAssembler(const Problem&, AssemblyMethod) {
  throw Unsupported("scattered GPU assembly: not built with CUDA");
}
DeviceAssembler::~DeviceAssembler() = default;
NormalEquations DeviceAssembler::assemble(PhaseTimes&) const {
  throw Unsupported("scattered GPU assembly: not built with CUDA");
}
CgResult DeviceAssembler::assemble_and_solve(const IterationControl&, PhaseTimes&) const {
  throw Unsupported("scattered GPU assembly: not built with CUDA");
}

NormalEquations assemble_on_device(const Problem&, AssemblyMethod, PhaseTimes&) {
  throw Unsupported("scattered GPU assembly: not built with CUDA");
}

}  // namespace splinebench::scattered::gpu

#include "splinebench/scattered/gpu_operator.hpp"

namespace splinebench::scattered::gpu {

std::vector<float> apply_matrix_free(const Problem&, const std::vector<float>&) {
  throw Unsupported("scattered GPU matrix-free operator: not built with CUDA");
}

std::vector<float> matrix_free_diagonal(const Problem&) {
  throw Unsupported("scattered GPU matrix-free operator: not built with CUDA");
}

std::vector<KernelTime> profile_matrix_free(const Problem&, int, int) {
  throw Unsupported("scattered GPU matrix-free operator: not built with CUDA");
}

struct MatrixFreeCg::Impl {};
MatrixFreeCg::MatrixFreeCg(const Problem&) {
  throw Unsupported("scattered GPU matrix-free operator: not built with CUDA");
}
MatrixFreeCg::~MatrixFreeCg() = default;
MatrixFreeCgResult MatrixFreeCg::solve(const IterationControl&, PhaseTimes&) {
  throw Unsupported("scattered GPU matrix-free operator: not built with CUDA");
}

MatrixFreeCgResult matrix_free_cg_f32(const Problem&, const IterationControl&, PhaseTimes&) {
  throw Unsupported("scattered GPU matrix-free operator: not built with CUDA");
}

}  // namespace splinebench::scattered::gpu

#include "splinebench/scattered/gpu_stationary.hpp"

namespace splinebench::scattered::gpu {

struct PreparedStationary::Impl {
  PhaseTimes setup;
};
PreparedStationary::PreparedStationary(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PreparedStationary::~PreparedStationary() = default;
PreparedStationary::PreparedStationary(PreparedStationary&&) noexcept = default;
PreparedStationary& PreparedStationary::operator=(PreparedStationary&&) noexcept = default;
const PhaseTimes& PreparedStationary::setup() const { return impl_->setup; }
PreparedStationary PreparedStationary::jacobi(const NormalEquations&, double) {
  throw Unsupported("scattered GPU stationary solver: not built with CUDA");
}
PreparedStationary PreparedStationary::gauss_seidel(const NormalEquations&, const Colouring&, bool) {
  throw Unsupported("scattered GPU stationary solver: not built with CUDA");
}
StationaryResult PreparedStationary::solve(const IterationControl&, PhaseTimes&) {
  throw Unsupported("scattered GPU stationary solver: not built with CUDA");
}

StationaryResult jacobi_f32(const NormalEquations&, double, const IterationControl&, PhaseTimes&) {
  throw Unsupported("scattered GPU stationary solver: not built with CUDA");
}

StationaryResult coloured_gauss_seidel_f32(const NormalEquations&, const Colouring&, bool, const IterationControl&,
                                           PhaseTimes&) {
  throw Unsupported("scattered GPU stationary solver: not built with CUDA");
}

}  // namespace splinebench::scattered::gpu

#include "splinebench/scattered/gpu_multigrid.hpp"

namespace splinebench::scattered::gpu {

struct PreparedMultigrid::Impl {};
PreparedMultigrid::PreparedMultigrid(const Problem&, const SeedMultigrid&) {
  throw Unsupported("scattered GPU seed multigrid: not built with CUDA");
}
PreparedMultigrid::PreparedMultigrid(const Problem&, const MgPcgOptions&) {
  throw Unsupported("scattered GPU MG-PCG: not built with CUDA");
}
PreparedMultigrid::~PreparedMultigrid() = default;
MultigridResult PreparedMultigrid::solve(const IterationControl&, PhaseTimes&) {
  throw Unsupported("scattered GPU multigrid: not built with CUDA");
}

MultigridResult mg_seed_f32(const Problem&, const SeedMultigrid&, PhaseTimes&) {
  throw Unsupported("scattered GPU seed multigrid: not built with CUDA");
}

MultigridResult mg_pcg_f32(const Problem&, const IterationControl&, PhaseTimes&, const MgPcgOptions&) {
  throw Unsupported("scattered GPU MG-PCG: not built with CUDA");
}

std::vector<GridShape> multigrid_grids(const Problem&, int) {
  throw Unsupported("scattered GPU multigrid: not built with CUDA");
}

std::vector<float> apply_level_operator(const Problem&, int, int, const std::vector<float>&) {
  throw Unsupported("scattered GPU multigrid: not built with CUDA");
}

std::vector<float> apply_level_transfer(const Problem&, int, int, const std::vector<float>&, bool) {
  throw Unsupported("scattered GPU multigrid: not built with CUDA");
}

std::vector<double> level_stencil_host(const Problem&, int, int) {
  throw Unsupported("scattered GPU multigrid: not built with CUDA");
}

std::vector<double> apply_level_stencil_host(const Problem&, int, int, const std::vector<double>&) {
  throw Unsupported("scattered GPU multigrid: not built with CUDA");
}

std::vector<float> apply_level_stencil_host_f32(const Problem&, int, int, const std::vector<float>&) {
  throw Unsupported("scattered GPU multigrid: not built with CUDA");
}

std::vector<float> level_stencil_device(const Problem&, int, int) {
  throw Unsupported("scattered GPU multigrid: not built with CUDA");
}

std::vector<float> apply_level_stencil(const Problem&, int, int, const std::vector<float>&, StencilRows) {
  throw Unsupported("scattered GPU multigrid: not built with CUDA");
}

std::array<std::vector<double>, 3> level_axis_tables(Mode, int, double, double) {
  throw Unsupported("scattered GPU multigrid: not built with CUDA");
}

}  // namespace splinebench::scattered::gpu
