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

// A ring launch's dependencies (RingDesc): per unit of each pass, the units of the
// other pass it waits for, as the kernel computes them.
struct RingUnits {
  const RingDesc& R;
  std::int64_t need(int pass) const { return pass == 1 ? R.xy_tiles : R.z_tiles; }
  std::int64_t tiles(int pass) const { return pass == 0 ? R.xy_tiles : R.z_tiles; }
  // Whether every unit that (pass, g) waits for is complete in `emitted`.
  bool ready(int pass, std::int64_t g, const std::vector<std::int64_t>& emitted) const {
    std::int64_t first = 0, last = -1;
    ring_waits(R, pass, g, first, last);
    for (std::int64_t u = first; u <= last; ++u)
      if (emitted[static_cast<std::size_t>((1 - pass) * R.units + u)] != need(pass)) return false;
    return true;
  }
};

// A random order of a ring launch's tickets in which every unit comes after the units
// it waits for: units whose waits are met are picked at random, tile by tile (their
// tiles shuffled), so units of both passes and many slots interleave.
std::vector<std::int64_t> ring_order(const LaunchDesc& L, std::mt19937_64& rng) {
  const RingDesc& R = L.pass[0].ring;
  const RingUnits units{R};
  const std::int64_t total = ring_tickets(R);
  // [pass * units + unit] -> the unit's natural tickets (tile ids of the order).
  std::vector<std::vector<std::int64_t>> ids(static_cast<std::size_t>(2 * R.units));
  for (std::int64_t t = 0; t < total; ++t) {
    const RingTicket rt = ring_ticket(R, t);
    ids[static_cast<std::size_t>(rt.pass * R.units + rt.unit)].push_back(t);
  }
  for (auto& unit : ids) std::shuffle(unit.begin(), unit.end(), rng);
  std::vector<std::int64_t> emitted(ids.size(), 0);
  std::vector<char> queued(ids.size(), 0);
  std::vector<std::int64_t> ready;  // pass * units + unit
  auto offer = [&](int pass, std::int64_t g) {
    if (g < 0 || g >= R.units) return;
    const auto key = static_cast<std::size_t>(pass * R.units + g);
    if (!queued[key] && units.ready(pass, g, emitted)) {
      queued[key] = 1;
      ready.push_back(static_cast<std::int64_t>(key));
    }
  };
  for (std::int64_t g = 0; g < R.units; ++g) offer(0, g);
  std::vector<std::int64_t> order;
  order.reserve(static_cast<std::size_t>(total));
  while (!ready.empty()) {
    const std::size_t pick = std::uniform_int_distribution<std::size_t>(0, ready.size() - 1)(rng);
    const auto key = static_cast<std::size_t>(ready[pick]);
    order.push_back(ids[key][static_cast<std::size_t>(emitted[key]++)]);
    if (emitted[key] == static_cast<std::int64_t>(ids[key].size())) {
      ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(pick));
      // The units that may wait for this one (ring_waits read backwards).
      const int pass = static_cast<int>(static_cast<std::int64_t>(key) / R.units);
      const std::int64_t g = static_cast<std::int64_t>(key) % R.units;
      for (std::int64_t d = -1; d <= 1; ++d) {
        if (pass == 0) offer(1, g + d);
        else offer(0, g + R.slots + d);
      }
    }
  }
  return order;
}

}  // namespace

std::vector<std::int64_t> adversarial_order(const LaunchDesc& L, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  if (L.ring) return ring_order(L, rng);
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
  if (L.ring) {
    const RingDesc& R = L.pass[0].ring;
    const RingUnits units{R};
    std::vector<std::int64_t> emitted(static_cast<std::size_t>(2 * R.units), 0);
    for (std::int64_t t : order) {
      if (t < 0 || t >= total || seen[static_cast<std::size_t>(t)]) return "order is not a permutation of the tiles";
      seen[static_cast<std::size_t>(t)] = 1;
      const RingTicket rt = ring_ticket(R, t);
      if (!units.ready(rt.pass, rt.unit, emitted))
        return "tile " + std::to_string(t) + " comes before a ring unit it waits for";
      ++emitted[static_cast<std::size_t>(rt.pass * R.units + rt.unit)];
    }
    return "";
  }
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
