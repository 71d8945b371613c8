// Host emulation of the gpu_flex kernels: the tile code (flex_tile.cuh) run on the
// CPU, a block's threads one after another between barriers, tiles in ticket order.
// It computes bit for bit what the device computes, so it lets the planner, the tile
// geometry and the halo arithmetic be checked against the oracle without a GPU, and
// gives the GPU tests an exact expected result.
#pragma once

#include <cstdint>
#include <vector>

#include "gpu_common/flex/flex_plan.hpp"

namespace splinebench::gpu::flex {

// Runs every pass of `plan` (buffers bound to host memory with bind_buffers). For a
// flexible plan, tiles run in ticket order, or in `order` (ticket -> tile) when given;
// a tile whose dependencies are not finished when its ticket comes throws Error (on
// the device it would wait for a tile taken later). Shared memory is filled with NaN
// before each tile, so a value read before it is written poisons the result.
void emulate(const Plan& plan, Variant variant, const std::vector<std::int64_t>* order = nullptr);

}  // namespace splinebench::gpu::flex
