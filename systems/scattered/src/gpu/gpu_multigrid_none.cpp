// Without CUDA: the test entry points of MG-PCG's direct coarsest solve say so (the rest
// of the GPU multigrid's are in gpu_none.cpp).
#include "splinebench/error.hpp"
#include "splinebench/scattered/gpu_multigrid.hpp"

namespace splinebench::scattered::gpu {

namespace {
[[noreturn]] void no_cuda() { throw Unsupported("scattered GPU multigrid: not built with CUDA"); }
}  // namespace

SparseMatrix level_matrix_host(const Problem&, int, int) { no_cuda(); }
std::vector<double> galerkin_level_stencil_host(const Problem&, int, int) { no_cuda(); }
std::vector<double> galerkin_level_stencil_device(const Problem&, int, int) { no_cuda(); }
SparseMatrix galerkin_level_matrix_host(const Problem&, int, int) { no_cuda(); }
std::vector<double> level_matrix_dense_host(const Problem&, int, int) { no_cuda(); }
std::vector<double> coarsest_inverse_host(const Problem&, int, int) { no_cuda(); }
std::vector<float> apply_coarsest_host(const Problem&, int, int, const std::vector<float>&) { no_cuda(); }
std::vector<float> coarsest_inverse_device(const Problem&, int, int) { no_cuda(); }
std::vector<float> apply_coarsest(const Problem&, int, int, const std::vector<float>&) { no_cuda(); }
std::vector<double> sweep_dense_host(const std::vector<double>&, std::int64_t) { no_cuda(); }
DeviceSweeps sweep_dense_device(const std::vector<double>&, std::int64_t, CoarsestSweeps) { no_cuda(); }

}  // namespace splinebench::scattered::gpu
