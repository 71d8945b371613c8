#include "flex_emulate.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>

#include "gpu_common/flex/flex_tile.cuh"
#include "splinebench/error.hpp"

namespace splinebench::gpu::flex {
namespace {

// A thread block on the host: each phase runs thread 0, 1, ... to the end, which is
// what the barrier between phases guarantees on the device.
struct HostBlock {
  int threads = kThreads;
  template <class F>
  void each(F&& f) const {
    for (int t = 0; t < threads; ++t) f(t, threads);
  }
  void sync() const {}
  // A team's threads run one after the other too (Team in tile/block_ops.cuh); the tiles
  // that split into teams order their phases so that this serial order is one the device
  // allows.
  template <class F>
  void team_each(int, int count, F&& f) const {
    for (int t = 0; t < count; ++t) f(t, count);
  }
  void commit_loads() const {}
  void wait_loads(int) const {}
};

// Shared memory as a new tile finds it: NaN everywhere but the words of the barriers the
// block keeps from its earlier tiles.
void poison(std::vector<float>& smem, const BulkBars* state) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const BulkBars bars = state ? *state : BulkBars{};
  if (!bars.live()) {
    std::fill(smem.begin(), smem.end(), nan);
    return;
  }
  const auto first = static_cast<std::size_t>(bars.offset), end = first + 2 * static_cast<std::size_t>(bars.count);
  if (end > smem.size()) throw Error("gpu_flex emulation: live barriers outside shared memory");
  std::fill(smem.begin(), smem.begin() + static_cast<std::ptrdiff_t>(first), nan);
  std::fill(smem.begin() + static_cast<std::ptrdiff_t>(end), smem.end(), nan);
}

}  // namespace

void emulate_tile(const PassDesc& P, std::int64_t tile, std::vector<float>& smem, BulkBars* bars) {
  poison(smem, bars);
  const HostBlock blk;
  if (bars) bulk_bars_before_tile(blk, P, tile, smem.data(), bars);  // flex_kernel's order
  switch (P.channels) {
    case 1: run_tile<1>(blk, P, tile, smem.data(), bars); break;
    case 2: run_tile<2>(blk, P, tile, smem.data(), bars); break;
    case 4: run_tile<4>(blk, P, tile, smem.data(), bars); break;
    default: throw Error("gpu_flex emulation: channels must be 1, 2 or 4");
  }
}

void emulate_block_end(std::vector<float>& smem, BulkBars& bars) {
  bulk_bars_retire(HostBlock{}, smem.data(), bars, &bars);
}

void emulate(const Plan& plan, Variant variant, const std::vector<std::int64_t>* order) {
  std::vector<float> smem(static_cast<std::size_t>(plan.smem_floats));
  if (variant == Variant::fixed) {
    // fixed_kernel: a block per tile, which keeps no barriers.
    for (const auto& P : plan.passes)
      for (std::int64_t t = 0; t < P.tiles; ++t) emulate_tile(P, t, smem, nullptr);
    return;
  }
  const LaunchDesc L = make_launch(plan);
  const std::int64_t total = L.pass_begin[L.passes];
  if (order && static_cast<std::int64_t>(order->size()) != total) throw Error("gpu_flex emulation: order length");
  // One block takes every ticket (flex_kernel's loop with one block): what it keeps
  // from tile to tile, the bulk barriers, is kept here too.
  BulkBars bars{};
  std::vector<std::vector<std::int64_t>> done(static_cast<std::size_t>(L.passes),
                                              std::vector<std::int64_t>(static_cast<std::size_t>(L.fields), 0));
  for (std::int64_t ticket = 0; ticket < total; ++ticket) {
    const std::int64_t tile = order ? (*order)[static_cast<std::size_t>(ticket)] : ticket;
    int k = 0;
    while (tile >= L.pass_begin[k + 1]) ++k;
    const PassDesc& P = L.pass[k];
    const std::int64_t local = tile - L.pass_begin[k];
    const std::int64_t f = tile_field(P, local);
    if (k > 0 && done[k - 1][wait_field(L.pass[k - 1], f)] != tiles_per_field(L.pass[k - 1]))
      throw Error("gpu_flex emulation: ticket " + std::to_string(ticket) + " (pass " + std::to_string(k) +
                  ") would wait for a tile not yet taken");
    emulate_tile(P, local, smem, &bars);
    ++done[k][f];
  }
  emulate_block_end(smem, bars);
}

}  // namespace splinebench::gpu::flex
