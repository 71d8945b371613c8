// The gpu_flex tile code run on the host (flex_emulate.hpp) against the double
// oracle, for every tile kind, every mode, short and odd lines, channels and batches,
// for both the flexible plan and the fixed baseline, as planned for devices of other
// sizes too (DeviceLimits: resident blocks and shared memory); plus the progress property
// of the launch orders. No GPU needed: this is what CI checks of the CUDA design.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "common/accuracy.hpp"
#include "flex_emulate.hpp"
#include "flex_order.hpp"
#include "flex_test_cases.hpp"
#include "gpu_common/flex/flex_plan.hpp"
#include "gpu_common/flex/flex_tile.cuh"
#include "splinebench/oracle_batch.hpp"
#include "splinebench/error.hpp"

using namespace splinebench;
using namespace splinebench::gpu::flex;
using splinebench::testing::FlexCase;

namespace {

// Tolerance, as for cpu_scalar: the same float32 recursions (about one ulp of RMS
// rounding error per axis pass: 2e-7 covers D <= 3, 5e-7 D <= 6); the halo truncation
// adds at most 1e-9 relative per axis (flex_pass.hpp).
double tolerance(int dims) { return dims <= 3 ? 2e-7 : 5e-7; }

// The planner's view of a device: `resident` blocks at once and `smem` bytes of shared
// memory per block. One block gives the longest tiles (a stream range per axis: two
// teams, slice groups); many blocks the shortest ranges; less shared memory the
// fallbacks (no bulk buffers, smaller slice groups, one team), tested below.
DeviceLimits limits(int resident, int smem = DeviceLimits{}.smem_bytes) {
  DeviceLimits lim;
  lim.resident_blocks = resident;
  lim.smem_bytes = smem;
  return lim;
}
struct NamedLimits {
  const char* name;
  DeviceLimits lim;
};
const NamedLimits kLimits[] = {{"H100", DeviceLimits{}}, {"one block", limits(1)}, {"100000 blocks", limits(100000)}};

struct Result {
  std::vector<float> out;
  double rel_l2 = 0;
};

Result run_plan(const FlexCase& c, Mode mode, Variant variant, const Plan& planned,
                const std::vector<std::int64_t>* order = nullptr, std::uint64_t seed = 7) {
  const GridShape shape = GridShape::make(c.extents, c.channels);
  const std::int64_t n = shape.values() * c.fields;
  const std::vector<float> in = splinebench::testing::random_values<float>(n, seed);
  std::vector<double> ref(in.begin(), in.end());
  oracle::prefilter_f64(shape, c.fields, ref.data(), mode);
  Result r;
  r.out.assign(static_cast<std::size_t>(n), std::nanf(""));
  std::vector<float> tmp(static_cast<std::size_t>(n), std::nanf(""));
  Plan plan = planned;
  bind_buffers(plan, in.data(), r.out.data(), tmp.data());
  emulate(plan, variant, order);
  r.rel_l2 = splinebench::testing::rel_l2(r.out, ref);
  return r;
}

Plan plan_for(const FlexCase& c, Mode mode, Variant variant, const DeviceLimits& lim) {
  return make_plan(GridShape::make(c.extents, c.channels), c.fields, mode, variant, lim);
}

Result run_case(const FlexCase& c, Mode mode, Variant variant, const DeviceLimits& lim,
                const std::vector<std::int64_t>* order = nullptr) {
  return run_plan(c, mode, variant, plan_for(c, mode, variant, lim), order);
}

// Values whose bits differ between two outputs of the same length.
std::size_t count_bit_differences(const std::vector<float>& a, const std::vector<float>& b) {
  std::size_t differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0) ++differ;
  return differ;
}

class FlexEmulation : public ::testing::TestWithParam<std::tuple<FlexCase, Mode>> {};

TEST_P(FlexEmulation, FlexibleAndFixedMatchOracle) {
  const auto& [c, mode] = GetParam();
  for (const NamedLimits& l : kLimits) {
    for (Variant v : {Variant::flexible, Variant::fixed}) {
      const std::string what = std::string(v == Variant::flexible ? "flexible, " : "fixed, ") + l.name;
      const Result r = run_case(c, mode, v, l.lim);
      EXPECT_EQ(splinebench::testing::count_nan(r.out), 0) << what << ": unwritten or poisoned outputs";
      EXPECT_LE(r.rel_l2, tolerance(static_cast<int>(c.extents.size()))) << what;
    }
  }
}

// Any order that respects the dependencies gives bit-identical results, and the
// emulation (which refuses to wait) finishes: the adversarial debug order.
TEST_P(FlexEmulation, AdversarialOrderSameBits) {
  const auto& [c, mode] = GetParam();
  for (const DeviceLimits& lim : {DeviceLimits{}, limits(1)}) {
    const Plan plan = plan_for(c, mode, Variant::flexible, lim);
    const Result normal = run_plan(c, mode, Variant::flexible, plan);
    const LaunchDesc L = make_launch(plan);
    for (std::uint64_t seed : {1u, 2u}) {
      const std::vector<std::int64_t> order = adversarial_order(L, seed);
      ASSERT_EQ(check_order(L, order), "");
      const Result r = run_plan(c, mode, Variant::flexible, plan, &order);
      EXPECT_EQ(r.out, normal.out) << lim.resident_blocks << " resident blocks, seed " << seed;
    }
  }
}

// The register stream_x tile in every arrangement the planner falls back to where shared
// memory is short (one team instead of two, fewer slices per tile, down to one team of
// one slice), planned for one block so that every arrangement has the same stream ranges:
// the same columns through the same window steps, so the same bits. Returns whether any
// plan had two teams, and whether any had more columns than the y team has threads.
struct Arrangements {
  bool teams = false, second_window = false;
};
Arrangements check_stream_x_arrangements(const FlexCase& c, Mode mode) {
  Arrangements seen;
  DeviceLimits lim = limits(1);
  Plan plan = plan_for(c, mode, Variant::flexible, lim);
  const PassDesc& first = plan.passes[0];
  if (first.kind != TileKind::stream_x || first.regs == 0) return seen;
  const Result reference = run_plan(c, mode, Variant::flexible, plan);
  EXPECT_EQ(splinebench::testing::count_nan(reference.out), 0) << c.name();
  EXPECT_LE(reference.rel_l2, tolerance(static_cast<int>(c.extents.size()))) << c.name();
  for (;;) {
    const PassDesc& P = plan.passes[0];
    const std::string what = c.name() + ": group " + std::to_string(P.group) + ", teams " + std::to_string(P.teams);
    seen.teams = seen.teams || P.teams > 0;
    seen.second_window = seen.second_window || (P.teams > 0 && P.ncols > kTeamY);
    EXPECT_EQ(P.s_tiles, 1) << what;
    EXPECT_EQ(count_bit_differences(run_plan(c, mode, Variant::flexible, plan).out, reference.out), 0u) << what;
    if (P.group == 1 && P.teams == 0) break;
    lim.smem_bytes = P.smem.total * 4 - 4;  // this arrangement no longer fits
    plan = plan_for(c, mode, Variant::flexible, lim);
    const PassDesc& next = plan.passes[0];
    EXPECT_GT(next.regs, 0) << what << ": the next arrangement is still the register tile";
    EXPECT_TRUE(next.group < P.group || (next.group == P.group && next.teams < P.teams)) << what;
    if (next.regs == 0) break;
  }
  return seen;
}

TEST_P(FlexEmulation, StreamXArrangementsSameBits) {
  const auto& [c, mode] = GetParam();
  check_stream_x_arrangements(c, mode);
}

TEST(FlexEmulationLong, TwoTeamStreamXTilesSameBitsAsOneTeam) {
  Arrangements all;
  for (const FlexCase& c : splinebench::testing::flex_long_cases()) {
    for (Mode mode : {Mode::mirror, Mode::periodic}) {
      const Arrangements seen = check_stream_x_arrangements(c, mode);
      EXPECT_TRUE(seen.teams) << c.name() << ": planned for one block, its tiles run in two teams";
      all.second_window = all.second_window || seen.second_window;
    }
  }
  EXPECT_TRUE(all.second_window) << "no case gave a y-team thread two columns";
}

// Where shared memory is too short for the register stream_x tile's buffers (devices
// smaller than the H100), its rows take the shared-memory ring with fewer planes per
// sub-block: one chain per thread where the block has a thread per column.
TEST(FlexEmulationSmall, LittleSharedMemoryTakesTheRing) {
  int ring = 0;
  for (const FlexCase& c : splinebench::testing::flex_small_cases()) {
    if (c.extents.size() < 2) continue;
    Plan plan;
    try {
      plan = plan_for(c, Mode::mirror, Variant::flexible, limits(132, 16 * 1024));
    } catch (const Unsupported&) {
      continue;  // a pass that has no fallback small enough
    }
    const PassDesc& P = plan.passes[0];
    if (P.regs > 0 || P.ncols > kThreads) continue;
    ++ring;
    EXPECT_LT(P.p, kRegP) << c.name();
    for (Mode mode : {Mode::mirror, Mode::half, Mode::periodic}) {
      const Result r = run_plan(c, mode, Variant::flexible, plan_for(c, mode, Variant::flexible, limits(132, 16 * 1024)));
      EXPECT_EQ(splinebench::testing::count_nan(r.out), 0) << c.name();
      EXPECT_LE(r.rel_l2, tolerance(static_cast<int>(c.extents.size()))) << c.name();
    }
  }
  EXPECT_GE(ring, 5) << "too few cases took the one-chain ring";
}

// The stream_only register tile fed by bulk copies (whole, aligned 1024-column chunks)
// against the same tile loading its own columns, as planned where two bulk buffers do
// not fit: the same values through the same window, so the same bits. Chunks that are
// partial or whose rows are not 16-byte aligned take the plain register tile inside a
// bulk pass.
TEST(FlexEmulationBulk, BulkStreamTileSameBitsAsRegisterTile) {
  int compared = 0;
  for (const FlexCase& c : splinebench::testing::flex_small_cases()) {
    for (Mode mode : {Mode::mirror, Mode::half, Mode::periodic}) {
      for (Variant v : {Variant::flexible, Variant::fixed}) {
        const std::string what =
            c.name() + (v == Variant::fixed ? " fixed " : " flexible ") + std::string(to_string(mode));
        const Plan bulk = plan_for(c, mode, v, DeviceLimits{});
        int bulk_floats = 0;
        for (const auto& P : bulk.passes) {
          if (P.bulk == 0) continue;
          EXPECT_EQ(P.kind, TileKind::stream_only) << what;
          EXPECT_EQ(P.w, 2 * kThreads) << what;
          EXPECT_EQ(P.smem.fp_stages, FlexPolicy::kBulkStages) << what;
          bulk_floats = std::max(bulk_floats, P.smem.total);
        }
        if (bulk_floats == 0) continue;
        // Where another pass needs that much shared memory too, it does not fit or takes
        // another arrangement with other ranges (other windows, other roundings): skipped.
        Plan plain;
        try {
          plain = plan_for(c, mode, v, limits(DeviceLimits{}.resident_blocks, bulk_floats * 4 - 4));
        } catch (const Unsupported&) {
          continue;
        }
        ASSERT_EQ(plain.passes.size(), bulk.passes.size()) << what;
        bool same_other_passes = true;
        for (std::size_t i = 0; i < bulk.passes.size(); ++i) {
          const PassDesc &a = bulk.passes[i], &b = plain.passes[i];
          if (a.bulk > 0) {
            EXPECT_EQ(b.bulk, 0) << what;
            EXPECT_EQ(b.regs, 2) << what;
            EXPECT_EQ(b.s_range, a.s_range) << what;
          } else {
            same_other_passes = same_other_passes && a.smem.total == b.smem.total && a.group == b.group &&
                                a.teams == b.teams && a.s_range == b.s_range && a.p == b.p;
          }
        }
        if (!same_other_passes) continue;
        const Result r = run_plan(c, mode, v, bulk), reference = run_plan(c, mode, v, plain);
        EXPECT_EQ(splinebench::testing::count_nan(r.out), 0) << what;
        EXPECT_EQ(count_bit_differences(r.out, reference.out), 0u) << what << ": values that differ from stream_only_registers";
        ++compared;
      }
    }
  }
  EXPECT_GE(compared, 12) << "bulk and register tiles compared in too few plans";
}

// The host's mbarriers (block_ops.cuh) keep their phases: a wait for a phase that has
// not completed (on the device: a spin for a phase nobody completes, or a return before
// the copies land), on a word that is no barrier, or a second initialisation without a
// retirement in between throws.
TEST(FlexBarrier, HostBarriersCatchWrongPhases) {
  std::uint64_t bar = 0;
  const float nan = std::nanf("");
  std::memcpy(&bar, &nan, sizeof nan);  // the emulation's poison
  EXPECT_THROW(bulk_wait(&bar, 0), splinebench::Error) << "never initialised";
  EXPECT_THROW(bulk_expect(&bar, 64), splinebench::Error) << "never initialised";
  bulk_init(&bar);
  EXPECT_THROW(bulk_wait(&bar, 0), splinebench::Error) << "phase 0 not requested";
  EXPECT_THROW(bulk_wait(&bar, 1), splinebench::Error) << "parity 1 before any phase completed";
  bulk_expect(&bar, 64);  // the host's copies land at once: phase 0 completes
  EXPECT_NO_THROW(bulk_wait(&bar, 0));
  try {
    bulk_wait(&bar, 1);
    ADD_FAILURE() << "a wait for parity 1 after phase 0 returned";
  } catch (const splinebench::Error& e) {
    EXPECT_NE(std::string(e.what()).find("wrong phase"), std::string::npos) << e.what();
  }
  bulk_expect(&bar, 64);
  EXPECT_NO_THROW(bulk_wait(&bar, 1));
  EXPECT_THROW(bulk_wait(&bar, 0), splinebench::Error);
  EXPECT_THROW(bulk_init(&bar), splinebench::Error) << "initialised again without mbarrier.inval";
  bar_retire(&bar, 1);
  EXPECT_THROW(bulk_wait(&bar, 1), splinebench::Error) << "retired";
  EXPECT_THROW(bar_retire(&bar, 1), splinebench::Error) << "retired twice";
  EXPECT_NO_THROW(bulk_init(&bar));
  EXPECT_NO_THROW(bar_retire(&bar, 1));
  // A team barrier completes a phase with its last arrival.
  team_bar_init(&bar, 3);
  team_bar_arrive(&bar);
  team_bar_arrive_on_loads(&bar);
  EXPECT_THROW(bulk_wait(&bar, 0), splinebench::Error) << "two of three arrivals";
  team_bar_arrive(&bar);
  EXPECT_NO_THROW(bulk_wait(&bar, 0));
}

// One block running bulk tiles one after another (flex_kernel's loop) keeps their
// mbarriers: initialised in the first tile, their phases carried on in the next (the
// phase counts add up), and a wrong carried parity is caught by the next tile's first
// wait. The block retires them as it leaves.
TEST(FlexBarrier, BulkTilesCarryTheirBarriersAndWrongParityIsCaught) {
  const GridShape shape = GridShape::make({40, 48, 64}, 1);  // pass 1: whole 1024-column chunks
  Plan plan = make_plan(shape, 1, Mode::mirror, Variant::flexible, DeviceLimits{});
  std::vector<float> in(static_cast<std::size_t>(shape.values()), 1.f), out(in.size()), tmp(in.size(), 1.f);
  bind_buffers(plan, in.data(), out.data(), tmp.data());
  const PassDesc& P = plan.passes[1];
  ASSERT_EQ(P.bulk, 1);
  ASSERT_GE(P.tiles, 3);
  const int S = P.smem.fp_stages;
  std::vector<float> smem(static_cast<std::size_t>(plan.smem_floats));
  auto* words = reinterpret_cast<std::uint64_t*>(smem.data() + P.smem.bars);
  // Whether tile `t` throws when the block's barriers are described by `wrong` (on a copy
  // of its shared memory: the failed tile changes the words).
  auto caught = [&](std::int64_t t, BulkBars wrong) {
    std::vector<float> copy = smem;
    try {
      emulate_tile(P, t, copy, &wrong);
    } catch (const splinebench::Error&) {
      return true;
    }
    return false;
  };
  std::vector<std::uint32_t> phases(static_cast<std::size_t>(S), 0);  // completed per barrier
  BulkBars bars{};
  for (std::int64_t t = 0; t < 2; ++t) {
    ASSERT_TRUE(takes_bulk(P, decode_tile(P, t)));
    if (t > 0) {
      // Initialised again (parities reset) where a barrier has completed an odd number of
      // phases: the wrong parity for it.
      bool odd = false;
      for (std::uint32_t n : phases) odd = odd || n % 2 == 1;
      BulkBars reset = bars;
      reset.parity = 0;
      EXPECT_EQ(caught(t, reset), odd) << "tile " << t << " with its parities reset";
      EXPECT_TRUE(odd) << "no barrier at an odd phase count: the reset is not tried";
    }
    emulate_tile(P, t, smem, &bars);
    const int nsub = static_cast<int>((decode_tile(P, t).count + kRegP - 1) / kRegP);
    ASSERT_TRUE(bars.live());
    EXPECT_EQ(bars.offset, P.smem.bars);
    EXPECT_EQ(bars.count, S);
    for (int k = 0; k < S; ++k) {
      std::uint32_t& n = phases[static_cast<std::size_t>(k)];
      n += static_cast<std::uint32_t>(k < nsub ? (nsub - k + S - 1) / S : 0);
      EXPECT_EQ(host_bar::completed(host_bar::load(words + k)), n) << "tile " << t << ", barrier " << k;
      EXPECT_EQ((bars.parity >> k) & 1u, n & 1u) << "tile " << t << ", barrier " << k;
    }
  }
  for (int k = 0; k < S; ++k) {
    BulkBars flipped = bars;
    flipped.parity ^= 1u << k;
    EXPECT_TRUE(caught(2, flipped)) << "barrier " << k << "'s parity flipped";
  }
  EXPECT_FALSE(caught(2, bars));
  emulate_block_end(smem, bars);
  EXPECT_FALSE(bars.live());
  EXPECT_THROW(bulk_wait(words, 0), splinebench::Error) << "retired";
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<FlexCase, Mode>>& info) {
  return std::get<0>(info.param).name() + "_" + std::string(to_string(std::get<1>(info.param)));
}

INSTANTIATE_TEST_SUITE_P(Shapes, FlexEmulation,
                         ::testing::Combine(::testing::ValuesIn(splinebench::testing::flex_small_cases()),
                                            ::testing::Values(Mode::mirror, Mode::half, Mode::periodic)),
                         case_name);

// The float-reciprocal quotient of filter_row_segments over its whole stated range.
TEST(FlexTile, SmallQuotientIsTheIntegerQuotient) {
  for (int d = 1; d <= 64; ++d) {
    const float inv = 1.0f / static_cast<float>(d);
    int wrong = 0;
    for (int n = 0; n < (1 << 16); ++n) wrong += small_quotient(n, inv) != n / d ? 1 : 0;
    EXPECT_EQ(wrong, 0) << "divisor " << d;
  }
}

// A dependency-breaking order is refused (the emulation would have to wait forever).
TEST(FlexOrder, OrderThatBreaksDependenciesIsRejected) {
  const GridShape shape = GridShape::make({3, 4, 5, 6});
  const Plan plan = make_plan(shape, 2, Mode::mirror, Variant::flexible, DeviceLimits{});
  const LaunchDesc L = make_launch(plan);
  ASSERT_GE(L.passes, 2);
  std::vector<std::int64_t> order;
  for (std::int64_t t = L.pass_begin[L.passes] - 1; t >= 0; --t) order.push_back(t);  // reversed
  EXPECT_NE(check_order(L, order), "");
  std::vector<float> in(static_cast<std::size_t>(shape.values() * 2), 1.f), out(in.size()), tmp(in.size());
  Plan bound = plan;
  bind_buffers(bound, in.data(), out.data(), tmp.data());
  EXPECT_THROW(emulate(bound, Variant::flexible, &order), splinebench::Error);
}

// Every output is written by exactly one tile of every pass: coverage of the tiling.
TEST(FlexPlan, TilesCoverEveryOutputOnce) {
  std::vector<FlexCase> cases = splinebench::testing::flex_small_cases();
  for (const FlexCase& c : splinebench::testing::flex_long_cases()) cases.push_back(c);
  for (const auto& c : cases) {
    const GridShape shape = GridShape::make(c.extents, c.channels);
    for (const NamedLimits& l : kLimits) {
      for (Variant v : {Variant::flexible, Variant::fixed}) {
        const Plan plan = make_plan(shape, c.fields, Mode::half, v, l.lim);
        for (const auto& P : plan.passes) {
          std::int64_t outputs = 0;
          for (std::int64_t t = 0; t < P.tiles; ++t) {
            const gpu::flex::TileSpan T = gpu::flex::decode_tile(P, t);
            if (P.kind == TileKind::rows) {
              for (std::int64_t u = T.u0; u < T.u1; ++u) {
                const std::int64_t x0 = (u % P.x_tiles) * P.sx;
                outputs += std::min<std::int64_t>(P.sx, P.nx - x0);
              }
            } else {
              std::int64_t w = 0;
              if (P.kind == TileKind::stream_x) w = std::min<std::int64_t>(P.sx, P.nx - T.x0) * T.nslices;
              if (P.kind == TileKind::stream_only) w = std::min<std::int64_t>(P.w, P.inner - T.w0);
              ASSERT_GT(w, 0);
              outputs += (T.s1 - T.s0) * w;
            }
          }
          const std::int64_t per_point = P.kind == TileKind::stream_only ? 1 : c.channels;
          EXPECT_EQ(outputs * per_point, shape.values() * c.fields) << c.name() << " " << to_string(P.kind) << ", "
                                                                     << l.name;
        }
      }
    }
  }
}

// Where the planner gives register stream_x tiles two teams: tiles of at least
// kTeamsMinSubblocks sub-blocks (512^3: 34, 256^3: 18), not shorter ones (128^3: 10,
// 48^4: 5); the team layout has two g buffers and the mbarriers, and still fits.
TEST(FlexPlan, TwoTeamsForLongStreamXTiles) {
  struct Expect {
    std::vector<std::int64_t> extents;
    int teams;
  };
  for (const Expect& e : {Expect{{512, 512, 512}, 1}, Expect{{256, 256, 256}, 1}, Expect{{128, 128, 128}, 0},
                          Expect{{48, 48, 48, 48}, 0}}) {
    const Plan plan = make_plan(GridShape::make(e.extents, 1), 1, Mode::mirror, Variant::flexible, DeviceLimits{});
    const PassDesc& P = plan.passes[0];
    ASSERT_EQ(P.kind, TileKind::stream_x);
    ASSERT_GT(P.regs, 0);
    const std::string what = std::to_string(e.extents[0]);
    EXPECT_EQ(P.teams, e.teams) << what;
    const std::int64_t subblocks = (P.s_range + 2 * kHalo + kRegP - 1) / kRegP;
    EXPECT_EQ(P.teams > 0, subblocks >= FlexPolicy::kTeamsMinSubblocks) << what;
    if (P.teams > 0) {
      EXPECT_EQ(P.smem.bars, P.smem.xfold + (P.sx + 2 * kHalo + 3) / 4 * 4) << what;
      EXPECT_EQ(P.smem.bars % 4, 0) << what << ": mbarriers 16-byte aligned";
      EXPECT_EQ(P.smem.total, P.smem.bars + 2 * team_bar_count(P.smem.fp_stages)) << what;
    }
    EXPECT_LE(P.smem.total * 4, DeviceLimits{}.smem_bytes) << what;
  }
}

// Where the planner groups slices: narrow planes that would take several waves, never at
// the cost of more stream ranges.
TEST(FlexPlan, StreamXGroupsNarrowPlanesWithoutMoreRanges) {
  struct Expect {
    std::vector<std::int64_t> extents;
    int group;
    std::int64_t tiles;
  };
  // 132 resident blocks (DeviceLimits{}): 512^3 has 512 columns per plane already;
  // 256^3 takes one wave instead of two; 128^3 would need 4 ranges per plane to fill
  // the device with groups, so it keeps one slice per tile; 48^4 has 64-column patches.
  for (const Expect& e : {Expect{{512, 512, 512}, 1, 512}, Expect{{256, 256, 256}, 2, 128},
                          Expect{{128, 128, 128}, 1, 128}, Expect{{48, 48, 48, 48}, 8, 288}}) {
    const Plan plan = make_plan(GridShape::make(e.extents, 1), 1, Mode::mirror, Variant::flexible, DeviceLimits{});
    const PassDesc& P = plan.passes[0];
    ASSERT_EQ(P.kind, TileKind::stream_x);
    ASSERT_GT(P.regs, 0);
    EXPECT_EQ(P.group, e.group) << e.extents[0];
    EXPECT_EQ(P.tiles, e.tiles) << e.extents[0];
    EXPECT_EQ(P.s_tiles, 1) << e.extents[0];
    EXPECT_LE(P.smem.total * 4, DeviceLimits{}.smem_bytes);
  }
}

// Rows wider than the block has threads keep the y window in the shared-memory ring:
// kRegP planes per sub-block where they fit (fewer for the widest patches), two adjacent
// columns per thread where one channel gives two columns per thread.
TEST(FlexPlan, WideRowsTakeTheSharedMemoryRing) {
  struct Expect {
    std::vector<std::int64_t> extents;
    int channels, p, vec;
  };
  for (const Expect& e : {Expect{{3, 1100}, 1, 8, 2}, Expect{{5, 700}, 1, 14, 1}, Expect{{6, 520}, 1, kRegP, 1},
                          Expect{{3, 300}, 2, kRegP, 1}, Expect{{19, 290}, 4, 8, 1}, Expect{{120, 160}, 4, kRegP, 1}}) {
    const Plan plan = make_plan(GridShape::make(e.extents, e.channels), 1, Mode::mirror, Variant::flexible,
                                DeviceLimits{});
    const PassDesc& P = plan.passes[0];
    const std::string what = std::to_string(e.extents[1]) + " C" + std::to_string(e.channels);
    ASSERT_EQ(P.kind, TileKind::stream_x) << what;
    EXPECT_EQ(P.regs, 0) << what;
    EXPECT_GT(P.ncols, kThreads) << what;
    EXPECT_EQ(P.p, e.p) << what;
    EXPECT_EQ(P.vec, e.vec) << what;
    EXPECT_LE(P.smem.total * 4, DeviceLimits{}.smem_bytes) << what;
  }
}

// The bulk stream_only tile is taken where it applies: whole 1024-column chunks of an
// aligned axis run through it (and the planner falls back to stream_only_registers where
// its buffers do not fit).
TEST(FlexPlan, BulkTileTakesWholeAlignedChunks) {
  const GridShape shape = GridShape::make({40, 48, 64}, 1);  // inner 3072: three whole chunks
  Plan plan = make_plan(shape, 1, Mode::mirror, Variant::flexible, DeviceLimits{});
  ASSERT_EQ(plan.passes.size(), 2u);
  const PassDesc& P = plan.passes[1];
  ASSERT_EQ(P.kind, TileKind::stream_only);
  EXPECT_EQ(P.bulk, 1);
  EXPECT_EQ(P.smem.fp_stages, 2);
  std::vector<float> in(static_cast<std::size_t>(shape.values()), 1.f), out(in.size()), tmp(in.size());
  bind_buffers(plan, in.data(), out.data(), tmp.data());
  int fits = 0;
  for (std::int64_t t = 0; t < plan.passes[1].tiles; ++t)
    fits += gpu::flex::bulk_fits(plan.passes[1], gpu::flex::decode_tile(plan.passes[1], t)) ? 1 : 0;
  EXPECT_EQ(fits, plan.passes[1].tiles);
  DeviceLimits small;
  small.smem_bytes = 100 * 1024;  // not even two buffers of 64 KB
  const Plan fallback = make_plan(shape, 1, Mode::mirror, Variant::flexible, small);
  EXPECT_EQ(fallback.passes[1].bulk, 0);
  EXPECT_EQ(fallback.passes[1].regs, 2);
}

}  // namespace
