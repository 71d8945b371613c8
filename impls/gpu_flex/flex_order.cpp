#include "gpu_flex/flex_order.hpp"

#include <algorithm>
#include <random>
#include <string>

#include "gpu_flex/flex_plan.hpp"

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
      // The same field's group of the next pass becomes ready (a rows pass holds every
      // field in group 0; it is only ever a plan's single pass).
      for (int k = done.pass + 1; k < L.passes; ++k) {
        if (done.field < g.tiles[k].size() && !g.tiles[k][done.field].empty()) {
          ready.push_back({k, done.field, 0});
          break;
        }
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
    if (k > 0 && done[k - 1][f] != tiles_per_field(L.pass[k - 1]))
      return "tile " + std::to_string(t) + " comes before a tile it waits for";
    ++done[k][f];
  }
  return "";
}

}  // namespace splinebench::gpu::flex
