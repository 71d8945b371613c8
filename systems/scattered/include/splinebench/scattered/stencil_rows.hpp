// How the GPU multigrid's stencil product reads a row (src/gpu/stencil_level.cuh): by the
// level's size, as the solvers do, or forced to one of its two forms, which sum the same
// FMAs in the same order (for tests). Apart from gpu_multigrid.hpp so device code can take
// it without that header's dependencies.
#pragma once

namespace splinebench::scattered::gpu {

enum class StencilRows { by_size, staged, unstaged };

}  // namespace splinebench::scattered::gpu
