#include "flex_order.hpp"

#include <algorithm>
#include <random>
#include <string>

#include "gpu_common/flex/flex_plan.hpp"

namespace splinebench::gpu::flex {
namespace {

// Tiles of pass k grouped by field; group (k, f) may start once group (k-1, f) is done.
struct Groups {
  std::vector<std::vector<std::vector<std::int64_t>>> tiles;  // [pass][field] -> global tile ids
};

Groups group_tiles(const LaunchDesc& L) {
  Groups g;
  g.tiles.resize(static_cast<std::size_t>(L.passes));
  for (int k = 0; k < L.passes; ++k) {
    const PassDesc& P = L.pass[k];
    const std::int64_t nf = P.kind == TileKind::rows ? 1 : L.fields;
    g.tiles[k].resize(static_cast<std::size_t>(nf));
    for (std::int64_t t = 0; t < P.tiles; ++t)
      g.tiles[k][static_cast<std::size_t>(tile_field(P, t))].push_back(L.pass_begin[k] + t);
  }
  return g;
}

}  // namespace

std::vector<std::int64_t> adversarial_order(const LaunchDesc& L, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Groups g = group_tiles(L);
  struct Ready {
    int pass;
    std::size_t field;
    std::size_t next;
  };
  std::vector<Ready> ready;
  for (auto& per_pass : g.tiles)
    for (auto& group : per_pass) std::shuffle(group.begin(), group.end(), rng);
  for (std::size_t f = 0; f < g.tiles[0].size(); ++f)
    if (!g.tiles[0][f].empty()) ready.push_back({0, f, 0});
  std::vector<std::int64_t> order;
  order.reserve(static_cast<std::size_t>(L.pass_begin[L.passes]));
  while (!ready.empty()) {
    const std::size_t pick = std::uniform_int_distribution<std::size_t>(0, ready.size() - 1)(rng);
    Ready& r = ready[pick];
    const auto& group = g.tiles[r.pass][r.field];
    order.push_back(group[r.next++]);
    if (r.next == group.size()) {
      const Ready done = r;
      ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(pick));
      // The groups of the next pass that waited for this one become ready: the same
      // field's, or every field's after a rows pass (whose one group holds all fields).
      const int next = done.pass + 1;
      if (next < L.passes) {
        for (std::size_t f = 0; f < g.tiles[next].size(); ++f)
          if (wait_field(L.pass[done.pass], static_cast<std::int64_t>(f)) == static_cast<std::int64_t>(done.field) &&
              !g.tiles[next][f].empty())
            ready.push_back({next, f, 0});
      }
    }
  }
  return order;
}

std::string check_order(const LaunchDesc& L, const std::vector<std::int64_t>& order) {
  const std::int64_t total = L.pass_begin[L.passes];
  if (static_cast<std::int64_t>(order.size()) != total) return "order has the wrong length";
  std::vector<char> seen(static_cast<std::size_t>(total), 0);
  // done[k][f]: tiles of pass k, field f already ordered.
  std::vector<std::vector<std::int64_t>> done(static_cast<std::size_t>(L.passes),
                                              std::vector<std::int64_t>(static_cast<std::size_t>(L.fields), 0));
  for (std::int64_t t : order) {
    if (t < 0 || t >= total || seen[static_cast<std::size_t>(t)]) return "order is not a permutation of the tiles";
    seen[static_cast<std::size_t>(t)] = 1;
    int k = 0;
    while (t >= L.pass_begin[k + 1]) ++k;
    const std::int64_t f = tile_field(L.pass[k], t - L.pass_begin[k]);
    if (k > 0 && done[k - 1][wait_field(L.pass[k - 1], f)] != tiles_per_field(L.pass[k - 1]))
      return "tile " + std::to_string(t) + " comes before a tile it waits for";
    ++done[k][f];
  }
  return "";
}

}  // namespace splinebench::gpu::flex
