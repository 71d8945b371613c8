// The GPU solvers' interface in a build without CUDA.
#include "splinebench/error.hpp"
#include "splinebench/scattered/gpu_cg.hpp"

namespace splinebench::scattered::gpu {

std::string device_unavailable_reason() { return "not built with CUDA"; }

CgResult conjugate_gradient_f32(const NormalEquations&, const IterationControl&, PhaseTimes&) {
  throw Unsupported("scattered GPU CG: not built with CUDA");
}

}  // namespace splinebench::scattered::gpu

#include "splinebench/scattered/gpu_assembly.hpp"

namespace splinebench::scattered::gpu {

std::string_view to_string(AssemblyMethod method) { return method == AssemblyMethod::atomic ? "atomic" : "gather"; }

NormalEquations assemble_on_device(const Problem&, AssemblyMethod, PhaseTimes&) {
  throw Unsupported("scattered GPU assembly: not built with CUDA");
}

}  // namespace splinebench::scattered::gpu
