#include "gpu_flex/flex_order.hpp"

#include <algorithm>
#include <deque>
#include <random>
#include <string>

#include "gpu_flex/flex_deps.hpp"
#include "splinebench/error.hpp"

namespace splinebench::gpu::flex {

int pass_of(const LaunchDesc& L, std::int64_t tile) {
  int k = 0;
  while (k + 1 < L.passes && tile >= L.pass_begin[k + 1]) ++k;
  return k;
}

CounterSim::CounterSim(const LaunchDesc& L) : launch_(&L), counters_(static_cast<std::size_t>(L.counters), 0u) {}

bool CounterSim::ready(std::int64_t tile) const {
  const LaunchDesc& L = *launch_;
  const int k = pass_of(L, tile);
  const std::int64_t local = tile - L.pass_begin[k];
  const std::int64_t n = dep_count(L, k, local);
  for (std::int64_t i = 0; i < n; ++i) {
    const Dep d = dep_at(L, k, local, i);
    if (counters_[static_cast<std::size_t>(d.counter)] < d.need) return false;
  }
  return true;
}

void CounterSim::finish(std::int64_t tile) {
  const LaunchDesc& L = *launch_;
  const int k = pass_of(L, tile);
  const std::int64_t local = tile - L.pass_begin[k];
  for (int i = 0; i < release_count(L, k, local); ++i) ++counters_[static_cast<std::size_t>(release_at(L, k, local, i))];
}

std::vector<std::int64_t> adversarial_order(const LaunchDesc& L, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::int64_t total = L.pass_begin[L.passes];
  // For every counter, the tiles waiting on it, by the value they need; a tile is
  // ready once all of its entries are reached.
  struct Waiter {
    std::uint32_t need;
    std::int64_t tile;
  };
  std::vector<std::vector<Waiter>> waiters(static_cast<std::size_t>(L.counters));
  std::vector<std::int64_t> unmet(static_cast<std::size_t>(total), 0);
  std::vector<std::int64_t> ready;
  for (std::int64_t t = 0; t < total; ++t) {
    const int k = pass_of(L, t);
    const std::int64_t local = t - L.pass_begin[k];
    for (std::int64_t i = 0, n = dep_count(L, k, local); i < n; ++i) {
      const Dep d = dep_at(L, k, local, i);
      if (d.need == 0) continue;
      waiters[static_cast<std::size_t>(d.counter)].push_back({d.need, t});
      ++unmet[static_cast<std::size_t>(t)];
    }
    if (unmet[static_cast<std::size_t>(t)] == 0) ready.push_back(t);
  }
  for (auto& w : waiters)
    std::sort(w.begin(), w.end(), [](const Waiter& a, const Waiter& b) { return a.need < b.need; });
  std::vector<std::uint32_t> value(static_cast<std::size_t>(L.counters), 0u);
  std::vector<std::size_t> next(static_cast<std::size_t>(L.counters), 0);
  std::vector<std::int64_t> order;
  order.reserve(static_cast<std::size_t>(total));
  while (!ready.empty()) {
    const std::size_t pick = std::uniform_int_distribution<std::size_t>(0, ready.size() - 1)(rng);
    const std::int64_t t = ready[pick];
    ready[pick] = ready.back();
    ready.pop_back();
    order.push_back(t);
    const int k = pass_of(L, t);
    const std::int64_t local = t - L.pass_begin[k];
    for (int i = 0; i < release_count(L, k, local); ++i) {
      const auto c = static_cast<std::size_t>(release_at(L, k, local, i));
      ++value[c];
      auto& w = waiters[c];
      while (next[c] < w.size() && w[next[c]].need <= value[c]) {
        const std::int64_t u = w[next[c]++].tile;
        if (--unmet[static_cast<std::size_t>(u)] == 0) ready.push_back(u);
      }
    }
  }
  if (static_cast<std::int64_t>(order.size()) != total)
    throw Error("gpu_flex: the dependency graph has a cycle (" + std::to_string(total - order.size()) +
                " tiles never ready)");
  return order;
}

std::vector<std::int64_t> pipelined_order(const LaunchDesc& L, int lag_planes) {
  if (!L.pipelined || L.passes < 2) throw Error("gpu_flex: pipelined_order needs a pipelined launch");
  const PassDesc& P0 = L.pass[0];
  const PassDesc& P1 = L.pass[1];
  // Pass-1 tiles by slice, then by the last pass-0 y range (slab) their columns reach,
  // then range, then chunk: the order in which their planes become ready.
  std::deque<std::int64_t> pending;
  std::vector<std::vector<std::int64_t>> chunks_of_slab(static_cast<std::size_t>(P0.s_tiles));
  for (std::int64_t q = 0; q < P1.w_tiles; ++q) {
    const std::int64_t w1 = std::min(q * P1.w + P1.w, P1.inner);
    chunks_of_slab[static_cast<std::size_t>(((w1 - 1) / P0.s_stride) / P0.s_range)].push_back(q);
  }
  for (std::int64_t slice = 0; slice < P1.slices; ++slice)
    for (const auto& chunks : chunks_of_slab)
      for (std::int64_t st = 0; st < P1.s_tiles; ++st)
        for (std::int64_t q : chunks)
          pending.push_back(L.pass_begin[1] + slice * P1.tiles_per_slice + st * P1.w_tiles + q);

  std::vector<std::int64_t> order;
  order.reserve(static_cast<std::size_t>(L.pass_begin[L.passes]));
  CounterSim now(L), lagged(L);  // lagged: pass-0 tiles count lag_planes planes late
  std::vector<std::int64_t> plane_tiles;
  const std::size_t lag = static_cast<std::size_t>(lag_planes) * static_cast<std::size_t>(P0.x_tiles);
  auto emit_ready = [&](const CounterSim& sim) {
    while (!pending.empty() && sim.ready(pending.front())) {
      const std::int64_t t = pending.front();
      pending.pop_front();
      order.push_back(t);
      now.finish(t);
      lagged.finish(t);
    }
  };
  for (std::int64_t slice = 0; slice < P1.slices; ++slice)
    for (std::int64_t yr = 0; yr < P0.s_tiles; ++yr)
      for (std::int64_t z = 0; z < P1.ns; ++z)
        for (std::int64_t xp = 0; xp < P0.x_tiles; ++xp) {
          const std::int64_t t = (slice * P1.ns + z) * P0.tiles_per_slice + yr * P0.x_tiles + xp;
          order.push_back(t);
          now.finish(t);
          plane_tiles.push_back(t);
          if (plane_tiles.size() > lag) lagged.finish(plane_tiles[plane_tiles.size() - 1 - lag]);
          emit_ready(lagged);
        }
  emit_ready(now);
  if (!pending.empty()) throw Error("gpu_flex: pipelined order left pass-1 tiles behind");
  for (std::int64_t t = L.pass_begin[2 < L.passes ? 2 : L.passes]; t < L.pass_begin[L.passes]; ++t) order.push_back(t);
  return order;
}

std::string check_order(const LaunchDesc& L, const std::vector<std::int64_t>& order) {
  const std::int64_t total = L.pass_begin[L.passes];
  if (static_cast<std::int64_t>(order.size()) != total) return "order has the wrong length";
  std::vector<char> seen(static_cast<std::size_t>(total), 0);
  CounterSim sim(L);
  for (std::int64_t t : order) {
    if (t < 0 || t >= total || seen[static_cast<std::size_t>(t)]) return "order is not a permutation of the tiles";
    seen[static_cast<std::size_t>(t)] = 1;
    if (!sim.ready(t)) return "tile " + std::to_string(t) + " comes before a tile it waits for";
    sim.finish(t);
  }
  return "";
}

}  // namespace splinebench::gpu::flex
