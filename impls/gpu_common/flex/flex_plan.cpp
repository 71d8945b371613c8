#include "gpu_common/flex/flex_plan.hpp"

#include <algorithm>
#include <sstream>

#include "splinebench/error.hpp"

namespace splinebench::gpu::flex {
namespace {

constexpr std::int64_t kMaxAxis = std::int64_t{1} << 30;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::int64_t round_up(std::int64_t a, std::int64_t b) { return ceil_div(a, b) * b; }
std::int64_t product(const GridShape& s, int from, int to) {  // extents [from, to)
  std::int64_t p = 1;
  for (int d = from; d < to; ++d) p *= s.extent[d];
  return p;
}
// Floats for a row of n positions with one padding float every 32 (fp_skew<C > 1>).
int skewed(int n) { return n + (n - 1) / 32 + 1; }
// Smallest m >= n with m = residue (mod 32): channel planes of one footprint then start
// in different banks, so lanes of one warp that differ in channel do not collide.
int with_residue(int n, int residue) { return n + ((residue - n % 32) % 32 + 32) % 32; }

// Outputs per tile along a stream axis of length ns, for `base` tiles per range: the
// range whose tiles fill the device in the fewest waves of the shortest tiles
// (each tile also streams 2 kHalo extra planes).
std::int64_t choose_range(std::int64_t ns, std::int64_t base, int resident) {
  std::int64_t best = ns;
  double best_cost = 0;
  bool first = true;
  const std::int64_t max_ranges = std::min<std::int64_t>(ns, 4096);
  for (std::int64_t k = 1; k <= max_ranges; ++k) {
    const std::int64_t range = ceil_div(ns, k);
    if (k > 1 && range == ceil_div(ns, k - 1)) continue;
    const std::int64_t tiles = base * ceil_div(ns, range);
    const double waves = static_cast<double>(ceil_div(tiles, std::max(resident, 1)));
    const double cost = waves * static_cast<double>(range + 2 * kHalo);
    if (first || cost < best_cost) {
      best = range;
      best_cost = cost;
      first = false;
    }
  }
  return best;
}

// Slice groups of a pass (P.group consecutive slices of one field per group).
std::int64_t slice_groups(const PassDesc& P) {
  return (P.slices / P.slices_per_field) * ceil_div(P.slices_per_field, P.group);
}

void finish_stream(PassDesc& P, std::int64_t base_tiles, const DeviceLimits& lim) {
  P.groups_per_field = ceil_div(P.slices_per_field, P.group);
  const std::int64_t groups = slice_groups(P);
  P.s_range = choose_range(P.ns, groups * base_tiles, lim.resident_blocks);
  P.s_tiles = ceil_div(P.ns, P.s_range);
  P.tiles_per_slice = P.s_tiles * base_tiles;
  P.tiles = P.tiles_per_slice * groups;
}

// Slices per register stream_x tile. A sub-block's time hardly depends on how many of
// the block's threads have a column, so narrow planes put several slices side by side
// to run the pass in fewer waves. Never at the cost of more stream ranges than one slice
// per tile (each range reads 2 kHalo extra rows): of the groups that keep the ranges,
// the one with the fewest waves; of equal ones the smallest (more blocks in flight).
int choose_group(const PassDesc& P, const DeviceLimits& lim) {
  const int most = static_cast<int>(std::min<std::int64_t>(kThreads / P.ncols, P.slices_per_field));
  const int resident = std::max(lim.resident_blocks, 1);
  std::int64_t ranges = 0, best_waves = 0;
  int best = 1;
  for (int group = 1; group <= std::max(most, 1); group *= 2) {
    PassDesc G = P;
    G.group = group;
    const std::int64_t base = slice_groups(G) * P.x_tiles;
    const std::int64_t range = choose_range(P.ns, base, resident);
    const std::int64_t n = ceil_div(P.ns, range), waves = ceil_div(base * n, resident);
    if (group == 1) {
      ranges = n;
      best_waves = waves;
    } else if (n <= ranges && waves < best_waves) {
      best = group;
      best_waves = waves;
    }
  }
  return best;
}

// Ring, causal state and the layout total for the stream kinds.
void stream_smem(PassDesc& P, int used) {
  SmemLayout& L = P.smem;
  L.ring = used;
  L.ring_len = P.p + kHalo;
  L.cz = L.ring + L.ring_len * P.ncols;
  L.total = L.cz + P.ncols;
}

// Floats for a footprint channel row of n positions (fp_skew() in tile/footprint.cuh):
// C == 1 pads 4 floats every 32 (and stays a multiple of 4), C > 1 one float.
int fp_skewed(int n, int C) { return C == 1 ? n + 4 * ((n - 1) / 32) + 4 : skewed(n); }

// rows / stream_x: footprint rows of sx + 2 kHalo samples per channel, skewed, and the
// filtered rows g interleaved by channel. C == 1 rows are 16-byte aligned and 4 floats
// past a multiple of 32 (consecutive planes' 16-byte groups in different bank groups).
void segment_smem(PassDesc& P, int C) {
  SmemLayout& L = P.smem;
  L.fp_chan = with_residue(fp_skewed(P.sx + 2 * kHalo, C), C == 1 ? 4 : 32 / C);
  L.fp_plane = C * L.fp_chan;
  L.fp[0] = 0;
  L.fp[1] = P.p * L.fp_plane;
  L.g_plane = fp_skewed(P.sx * C, C);  // g_skew(); C == 1: a multiple of 4
  L.g = 2 * P.p * L.fp_plane;
  L.total = L.g + P.p * L.g_plane;
}

void check_fits(const PassDesc& P, const DeviceLimits& lim) {
  const std::int64_t bytes = static_cast<std::int64_t>(P.smem.total) * 4;
  if (bytes > lim.smem_bytes) {
    std::ostringstream m;
    m << "gpu_flex: a " << to_string(P.kind) << " tile needs " << bytes << " bytes of shared memory, the device "
      << "allows " << lim.smem_bytes;
    throw Unsupported(m.str());
  }
}

PassDesc rows_pass(const GridShape& s, std::int64_t fields, const DeviceLimits& lim) {
  const int C = s.channels;
  PassDesc P;
  P.kind = TileKind::rows;
  P.nx = s.extent[s.dims - 1];
  P.slices = fields * (s.points() / P.nx);  // rows
  P.slice_stride = P.nx * C;
  // Row units of at most kRowUnitValues values (keeps a sub-block near kRowsItems items).
  const std::int64_t max_sx =
      std::max<std::int64_t>(kSegment, (FlexPolicy::kRowUnitValues / C) / kSegment * kSegment);
  P.sx = static_cast<std::int32_t>(std::min(round_up(P.nx, kSegment), max_sx));
  P.x_tiles = ceil_div(P.nx, P.sx);
  P.units = P.slices * P.x_tiles;
  const int items_per_unit = C * (P.sx / kSegment);
  P.p = std::clamp(FlexPolicy::kRowsItems / items_per_unit, 1, 64);
  // Sub-blocks per tile: enough tiles for a few per resident block, at most 8.
  const std::int64_t subblocks = ceil_div(P.units, P.p);
  const std::int64_t per_tile = std::clamp<std::int64_t>(subblocks / (4 * std::max(lim.resident_blocks, 1)), 1, 8);
  P.units_per_tile = per_tile * P.p;
  P.tiles = ceil_div(P.units, P.units_per_tile);
  P.tiles_per_slice = P.tiles;  // rows tiles run across slices; no per-field counters
  segment_smem(P, C);
  return P;
}

PassDesc stream_x_pass(const GridShape& s, std::int64_t fields, const DeviceLimits& lim) {
  const int C = s.channels, D = s.dims;
  PassDesc P;
  P.kind = TileKind::stream_x;
  P.nx = s.extent[D - 1];
  P.ns = s.extent[D - 2];
  P.s_stride = P.nx * C;
  P.slice_stride = P.ns * P.s_stride;
  P.slices_per_field = product(s, 0, D - 2);
  P.slices = fields * P.slices_per_field;
  const std::int64_t max_sx = (FlexPolicy::kPatchValues / C) / kSegment * kSegment;
  P.sx = static_cast<std::int32_t>(std::min(round_up(P.nx, kSegment), max_sx));
  P.x_tiles = ceil_div(P.nx, P.sx);
  P.ncols = P.sx * C;
  if (P.ncols <= kThreads) {
    // The register tile (tile/stream_x_registers.cuh): one column per thread (with two
    // the window spills, which measured slower than the ring); the largest group, then
    // the deepest pipeline (at most kXStages buffers of kRegP rows per slice) that fits.
    PassDesc R = P;
    R.p = kRegP;
    R.regs = 1;
    for (int group = choose_group(P, lim); group >= 1; group /= 2) {
      R.group = group;
      R.ncols = group * P.ncols;
      segment_smem(R, C);
      const SmemLayout two = R.smem;
      const int rows = R.p * group;
      // Footprint buffers, g (two buffers for two teams), xfold, and the teams' mbarriers.
      auto lay_out = [&](int stages, int teams) {
        R.smem = two;
        R.smem.fp_stages = stages;
        R.smem.fp[1] = rows * R.smem.fp_plane;
        R.smem.g = stages * rows * R.smem.fp_plane;
        R.teams = teams;
        R.smem.xfold = R.smem.g + (1 + teams) * rows * R.smem.g_plane;
        R.smem.total = R.smem.xfold + static_cast<std::int32_t>(round_up(R.sx + 2 * kHalo, 4));
        if (teams > 0) {
          // 8 bytes each (total is a multiple of 4 floats: 16-byte aligned).
          R.smem.bars = R.smem.total;
          R.smem.total += 2 * team_bar_count(stages);
        }
        return static_cast<std::int64_t>(R.smem.total) * 4 <= lim.smem_bytes;
      };
      for (int stages = FlexPolicy::kXStages; stages >= 2; --stages) {
        for (int teams = 1; teams >= 0; --teams) {
          if (!lay_out(stages, teams)) continue;
          finish_stream(R, R.x_tiles, lim);
          // Two teams only for tiles of kTeamsMinSubblocks sub-blocks or more (each tile
          // fills and drains the teams' pipeline once); the ranges do not depend on it.
          const std::int64_t subblocks = ceil_div(R.s_range + 2 * kHalo, kRegP);
          if (teams > 0 && subblocks < FlexPolicy::kTeamsMinSubblocks) lay_out(stages, 0);
          return R;
        }
      }
    }
    // Not even two buffers fit: the shared-memory ring below, with fewer rows.
  }
  // The shared-memory ring: the most planes per sub-block (at most kRegP) whose buffers
  // fit; two adjacent columns per thread where the block has two columns per thread (the
  // groups of two are contiguous and aligned in g only for one channel).
  for (P.p = kRegP;; --P.p) {
    segment_smem(P, C);
    stream_smem(P, P.smem.total);
    if (P.p == 1 || static_cast<std::int64_t>(P.smem.total) * 4 <= lim.smem_bytes) break;
  }
  P.vec = C == 1 && P.ncols >= 2 * kThreads ? 2 : 1;
  finish_stream(P, P.x_tiles, lim);
  return P;
}

PassDesc stream_only_pass(const GridShape& s, std::int64_t fields, int axis, const DeviceLimits& lim) {
  const int C = s.channels;
  PassDesc P;
  P.kind = TileKind::stream_only;
  P.ns = s.extent[axis];
  P.inner = product(s, axis + 1, s.dims) * C;
  P.s_stride = P.inner;
  P.slice_stride = P.ns * P.inner;
  P.slices_per_field = product(s, 0, axis);
  P.slices = fields * P.slices_per_field;
  P.w = static_cast<std::int32_t>(std::min<std::int64_t>(P.inner, FlexPolicy::kChunkWidth));
  P.w_tiles = ceil_div(P.inner, P.w);
  P.ncols = P.w;
  // The register tile (tile/stream_only_registers.cuh): no shared memory; two columns
  // per thread where the chunk has two per thread and an even width, else one.
  P.p = kRegP;
  P.regs = P.w % 2 == 0 && P.ncols >= 2 * kThreads ? 2 : 1;
  SmemLayout& L = P.smem;
  if (P.regs == 2 && P.w == 2 * kThreads) {
    // Whole chunks fed by bulk copies (tile/stream_only_bulk.cuh): kBulkStages buffers of
    // kRegP planes (fewer where shared memory is short, at least 2) and their mbarriers.
    for (int stages = FlexPolicy::kBulkStages; stages >= 2; --stages) {
      L.fp_plane = P.w;
      L.fp[0] = 0;
      L.fp[1] = kRegP * P.w;
      L.fp_stages = stages;
      L.bars = stages * kRegP * P.w;  // a multiple of 2 floats: 8-byte aligned
      L.total = L.bars + 2 * stages;
      if (static_cast<std::int64_t>(L.total) * 4 <= lim.smem_bytes) {
        P.bulk = 1;
        break;
      }
    }
    if (P.bulk == 0) L = SmemLayout{};
  }
  finish_stream(P, P.w_tiles, lim);
  return P;
}

}  // namespace

std::string_view to_string(TileKind kind) {
  switch (kind) {
    case TileKind::rows: return "rows";
    case TileKind::stream_x: return "stream_x";
    case TileKind::stream_only: return "stream_only";
  }
  return "?";
}

Plan make_plan(const GridShape& shape, std::int64_t fields, Mode mode, Variant variant, const DeviceLimits& limits) {
  shape.validate();
  if (fields < 1) throw Error("gpu_flex: fields must be >= 1");
  const int C = shape.channels;
  if (C != 1 && C != 2 && C != 4) throw Error("gpu_flex: channels must be 1, 2 or 4, got " + std::to_string(C));
  for (int d = 0; d < shape.dims; ++d)
    if (shape.extent[d] >= kMaxAxis)
      throw Unsupported("gpu_flex: axis " + std::to_string(d) + " has " + std::to_string(shape.extent[d]) +
                        " samples; at most 2^30 - 1 supported");

  Plan plan;
  plan.fields = fields;
  const int D = shape.dims;
  if (variant == Variant::flexible && D >= 2) {
    plan.passes.push_back(stream_x_pass(shape, fields, limits));
    for (int axis = D - 3; axis >= 0; --axis) plan.passes.push_back(stream_only_pass(shape, fields, axis, limits));
  } else {
    plan.passes.push_back(rows_pass(shape, fields, limits));
    for (int axis = D - 2; axis >= 0; --axis) plan.passes.push_back(stream_only_pass(shape, fields, axis, limits));
  }
  for (auto& P : plan.passes) {
    P.channels = C;
    P.mode = static_cast<int>(mode);
    check_fits(P, limits);
    plan.smem_floats = std::max(plan.smem_floats, P.smem.total);
  }
  return plan;
}

void bind_buffers(Plan& plan, const float* in, float* out, float* tmp) {
  const std::size_t n = plan.passes.size();
  if (n > 1 && !tmp) throw Error("gpu_flex: a plan of several passes needs a temporary buffer");
  for (std::size_t i = 0; i < n; ++i) {
    PassDesc& P = plan.passes[i];
    P.dst = (n - 1 - i) % 2 == 0 ? out : tmp;
    P.src = i == 0 ? in : plan.passes[i - 1].dst;
  }
}

LaunchDesc make_launch(const Plan& plan) {
  if (plan.passes.size() > static_cast<std::size_t>(kMaxPasses)) throw Error("gpu_flex: too many passes for one launch");
  LaunchDesc L;
  L.passes = static_cast<std::int32_t>(plan.passes.size());
  L.fields = plan.fields;
  L.smem_floats = plan.smem_floats;
  L.pass_begin[0] = 0;
  for (int k = 0; k < L.passes; ++k) {
    L.pass[k] = plan.passes[k];
    L.pass_begin[k + 1] = L.pass_begin[k] + plan.passes[k].tiles;
  }
  return L;
}

std::string describe(const Plan& plan) {
  std::ostringstream o;
  for (const auto& P : plan.passes) {
    o << to_string(P.kind) << ": ";
    switch (P.kind) {
      case TileKind::rows:
        o << P.slices << " rows of " << P.nx << ", units of " << P.sx << " samples, " << P.units_per_tile
          << " units/tile";
        break;
      case TileKind::stream_x:
        o << P.slices << " slices, " << P.ns << " planes, x " << P.sx << "-sample patches (" << P.x_tiles << ")";
        break;
      case TileKind::stream_only:
        o << P.slices << " slices, " << P.ns << " planes, " << P.w << "-column chunks (" << P.w_tiles << ")";
        break;
    }
    if (P.kind != TileKind::rows) o << ", ranges of " << P.s_range << " (" << P.s_tiles << ")";
    o << ", p=" << P.p;
    if (P.vec > 1) o << ", vec=" << P.vec;
    if (P.regs > 0) o << ", registers x" << P.regs;
    if (P.bulk > 0) o << ", bulk copies, " << P.smem.fp_stages << " stages";
    if (P.kind == TileKind::stream_x && P.regs > 0)
      o << ", " << P.smem.fp_stages << " load stages" << (P.teams > 0 ? ", x and y teams" : "");
    if (P.group > 1) o << ", " << P.group << " slices per tile";
    o << ", " << P.tiles << " tiles, " << P.smem.total * 4 << " B shared; ";
  }
  return o.str();
}

Traffic traffic(const Plan& plan) {
  Traffic t;
  for (const auto& P : plan.passes) {
    const int C = P.channels;
    double written = 0, read = 0;
    switch (P.kind) {
      case TileKind::rows:
        written = static_cast<double>(P.slices) * P.nx * C;
        read = static_cast<double>(P.units) * (P.sx + 2 * kHalo) * C;
        break;
      case TileKind::stream_x:
      case TileKind::stream_only: {
        const double planes = static_cast<double>(P.ns) + static_cast<double>(P.s_tiles) * 2 * kHalo;
        double per_plane = 0;  // values read per plane over all tiles of one range
        if (P.kind == TileKind::stream_x) per_plane = static_cast<double>(P.x_tiles) * (P.sx + 2 * kHalo) * C;
        if (P.kind == TileKind::stream_only) per_plane = static_cast<double>(P.inner);
        // A field's short last slice group loads its last slice again for the missing ones.
        read = static_cast<double>(slice_groups(P) * P.group) * planes * per_plane;
        written = static_cast<double>(P.slices) * P.ns * (P.kind == TileKind::stream_only ? P.inner : 0);
        if (P.kind == TileKind::stream_x) written = static_cast<double>(P.slices) * P.ns * P.nx * C;
        break;
      }
    }
    t.read_bytes += 4 * read;
    t.write_bytes += 4 * written;
  }
  return t;
}

}  // namespace splinebench::gpu::flex
