// How the GPU MG-PCG's direct coarsest solve runs its Gauss-Jordan sweeps
// (src/gpu/coarsest_direct.hpp): by the level's size, as the solver does, or forced to one
// of its three forms, which apply the same element formula in the same order and so leave
// the same bits (for tests, and to time one against another). Apart from
// gpu_multigrid.hpp so device code can take it without that header's dependencies.
#pragma once

namespace splinebench::scattered::gpu {

// one_block: every sweep in one launch of one block; grid: every sweep in one cooperative
// launch, a grid-wide barrier between sweeps; launches: one launch per sweep.
enum class CoarsestSweeps { by_size, one_block, grid, launches };

}  // namespace splinebench::scattered::gpu
