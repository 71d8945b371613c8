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

struct BulkBars;  // tile/stream_only_bulk.cuh

// Runs every pass of `plan` (buffers bound to host memory with bind_buffers). For a
// flexible plan, tiles run in ticket order, or in `order` (ticket -> tile) when given,
// all in one block (flex_kernel launched with one block), which keeps its bulk
// mbarriers from tile to tile as the kernel does; a fixed plan runs a block per tile. A
// tile whose dependencies are not finished when its ticket comes throws Error (on the
// device it would wait for a tile taken later), as does a wait on an mbarrier for a
// phase that has not completed (block_ops.cuh). Shared memory is filled with NaN before
// each tile, but for the barriers the block keeps, so a value read before it is written
// poisons the result.
void emulate(const Plan& plan, Variant variant, const std::vector<std::int64_t>* order = nullptr);

// The steps of emulate(), for tests: a block runs tile `tile` of pass P with shared
// memory `smem` (at least the plan's smem_floats; poisoned as above) and the barriers it
// kept from its earlier tiles, `bars` (flex_kernel's; null: a block of one tile, as
// fixed_kernel's); emulate_block_end retires them as the block leaves the kernel.
void emulate_tile(const PassDesc& P, std::int64_t tile, std::vector<float>& smem, BulkBars* bars);
void emulate_block_end(std::vector<float>& smem, BulkBars& bars);

}  // namespace splinebench::gpu::flex
