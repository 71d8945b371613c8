// The gpu_flex tile code run on the host (flex_emulate.hpp) against the double
// oracle, for every tile kind, every mode, short and odd lines, channels and batches,
// for both the flexible plan and the fixed baseline; plus the progress property of
// the launch orders. No GPU needed: this is what CI checks of the CUDA design.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "common/accuracy.hpp"
#include "flex_test_cases.hpp"
#include "gpu_flex/flex_emulate.hpp"
#include "gpu_flex/flex_order.hpp"
#include "gpu_flex/flex_plan.hpp"
#include "gpu_flex/flex_tile.cuh"
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

constexpr Layout3D kAllLayouts[] = {Layout3D::xy_planes, Layout3D::yx_patches, Layout3D::per_axis};

struct Result {
  std::vector<float> out;
  double rel_l2 = 0;
};

Result run_case(const FlexCase& c, Mode mode, Variant variant, const DeviceLimits& lim, const Tuning& tun,
                const std::vector<std::int64_t>* order = nullptr, std::uint64_t seed = 7) {
  const GridShape shape = GridShape::make(c.extents, c.channels);
  const std::int64_t n = shape.values() * c.fields;
  const std::vector<float> in = splinebench::testing::random_values<float>(n, seed);
  std::vector<double> ref(in.begin(), in.end());
  oracle::prefilter_f64(shape, c.fields, ref.data(), mode);
  Result r;
  r.out.assign(static_cast<std::size_t>(n), std::nanf(""));
  std::vector<float> tmp(static_cast<std::size_t>(n), std::nanf(""));
  Plan plan = make_plan(shape, c.fields, mode, variant, lim, tun);
  bind_buffers(plan, in.data(), r.out.data(), tmp.data());
  emulate(plan, variant, order);
  r.rel_l2 = splinebench::testing::rel_l2(r.out, ref);
  return r;
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
  for (Variant v : {Variant::flexible, Variant::fixed}) {
    const Result r = run_case(c, mode, v, DeviceLimits{}, Tuning{});
    EXPECT_EQ(splinebench::testing::count_nan(r.out), 0) << "unwritten or poisoned outputs";
    EXPECT_LE(r.rel_l2, tolerance(static_cast<int>(c.extents.size())))
        << (v == Variant::flexible ? "flexible" : "fixed");
  }
  // The stream filter with 2 and 4 adjacent columns per thread wherever a pass allows
  // it (the automatic choice takes them only for wide column counts).
  for (int vec : {2, 4}) {
    Tuning tun;
    tun.stream_vec = vec;
    const Result r = run_case(c, mode, Variant::flexible, DeviceLimits{}, tun);
    EXPECT_EQ(splinebench::testing::count_nan(r.out), 0) << "stream_vec " << vec;
    EXPECT_LE(r.rel_l2, tolerance(static_cast<int>(c.extents.size()))) << "stream_vec " << vec;
  }
  // D >= 3 with the other layouts of the one launch (Tuning::layout3d).
  for (Layout3D layout : kAllLayouts) {
    Tuning tun;
    tun.layout3d = layout;
    const Result r = run_case(c, mode, Variant::flexible, DeviceLimits{}, tun);
    EXPECT_EQ(splinebench::testing::count_nan(r.out), 0) << to_string(layout);
    EXPECT_LE(r.rel_l2, tolerance(static_cast<int>(c.extents.size()))) << to_string(layout);
  }
}

// Small stream ranges and chunks force many tiles per axis: range edges inside the
// data, warm-up and look-ahead planes taken from neighbouring ranges.
TEST_P(FlexEmulation, ManySmallTilesMatchOracle) {
  const auto& [c, mode] = GetParam();
  Tuning tun;
  tun.s_range = 5;
  tun.chunk_width = 7;
  tun.stream_p = 3;
  tun.rows_items = 3;
  for (Variant v : {Variant::flexible, Variant::fixed}) {
    const Result r = run_case(c, mode, v, DeviceLimits{}, tun);
    EXPECT_EQ(splinebench::testing::count_nan(r.out), 0);
    EXPECT_LE(r.rel_l2, tolerance(static_cast<int>(c.extents.size())));
  }
  for (Layout3D layout : kAllLayouts) {
    tun.layout3d = layout;
    const Result r = run_case(c, mode, Variant::flexible, DeviceLimits{}, tun);
    EXPECT_EQ(splinebench::testing::count_nan(r.out), 0) << to_string(layout);
    EXPECT_LE(r.rel_l2, tolerance(static_cast<int>(c.extents.size()))) << to_string(layout);
  }
}

// Any order that respects the dependencies gives bit-identical results, and the
// emulation (which refuses to wait) finishes: the adversarial debug order.
TEST_P(FlexEmulation, AdversarialOrderSameBits) {
  const auto& [c, mode] = GetParam();
  const GridShape shape = GridShape::make(c.extents, c.channels);
  for (int config = 0; config < 4; ++config) {
    Tuning tun;
    tun.layout3d = kAllLayouts[config % 3];
    if (config == 3) tun.stream_vec = 4;
    const Result normal = run_case(c, mode, Variant::flexible, DeviceLimits{}, tun);
    Plan plan = make_plan(shape, c.fields, mode, Variant::flexible, DeviceLimits{}, tun);
    const LaunchDesc L = make_launch(plan);
    for (std::uint64_t seed : {1u, 2u}) {
      const std::vector<std::int64_t> order = adversarial_order(L, seed);
      ASSERT_EQ(check_order(L, order), "");
      const Result r = run_case(c, mode, Variant::flexible, DeviceLimits{}, tun, &order);
      EXPECT_EQ(r.out, normal.out);
    }
  }
}

// The register stream tiles (Tuning::stream_regs = 1, the default: stream_only and
// stream_x) against the shared-memory ring (stream_regs = 0): the same bits for every
// plan that has such passes, with 1 and 2 columns per thread, whole and partial chunks,
// short and long stream ranges. Every combination is also checked against the oracle.
TEST_P(FlexEmulation, RegisterStreamTileSameBitsAsSharedRing) {
  const auto& [c, mode] = GetParam();
  const int dims = static_cast<int>(c.extents.size());
  struct Config {
    Variant v;
    Layout3D layout;
    int vec;
    int chunk;
    std::int64_t range;
  };
  const Config configs[] = {
      {Variant::flexible, Layout3D::xy_planes, 0, 1024, 0}, {Variant::fixed, Layout3D::xy_planes, 0, 1024, 0},
      {Variant::flexible, Layout3D::per_axis, 2, 1024, 0},  {Variant::fixed, Layout3D::xy_planes, 2, 6, 5},
      {Variant::flexible, Layout3D::yx_patches, 1, 7, 3},   {Variant::flexible, Layout3D::xy_planes, 4, 8, 40},
  };
  int compared = 0;  // configurations compared bit for bit
  for (const Config& k : configs) {
    Tuning tun;
    tun.layout3d = k.layout;
    tun.stream_vec = k.vec;
    tun.chunk_width = k.chunk;
    tun.s_range = k.range;
    tun.stream_regs = 1;
    const Plan plan = make_plan(GridShape::make(c.extents, c.channels), c.fields, mode, k.v, DeviceLimits{}, tun);
    bool any = false;
    for (const auto& P : plan.passes) any = any || P.regs > 0;
    const Result regs = run_case(c, mode, k.v, DeviceLimits{}, tun);
    tun.stream_regs = 0;
    const Result ring = run_case(c, mode, k.v, DeviceLimits{}, tun);
    const std::string what = std::string(k.v == Variant::fixed ? "fixed " : "flexible ") +
                             std::string(to_string(k.layout)) + " vec " + std::to_string(k.vec) + " chunk " +
                             std::to_string(k.chunk) + " range " + std::to_string(k.range);
    // Register tiles: stream_only passes (the baseline's axes but the last; flexible:
    // outer axes, D >= 3, yx_patches D >= 4), stream_x passes (flexible D = 2, and
    // xy_planes D >= 3) and one-channel stream_yx passes (yx_patches D >= 3).
    // stream_x takes the register tile where its patch (whole rows up to 1024 values)
    // has at most one column per thread.
    const std::int64_t nx = c.extents.back(), x_values = std::min<std::int64_t>((nx + 31) / 32 * 32, 1024 / c.channels);
    const bool x_regs = x_values * c.channels <= kThreads;
    const bool flexible_any = (dims == 2 && x_regs) || (dims >= 3 && k.layout != Layout3D::yx_patches) ||
                              (dims >= 4 && k.layout == Layout3D::yx_patches) ||
                              (dims >= 3 && k.layout == Layout3D::yx_patches && c.channels == 1);
    const bool expect_any = k.v == Variant::fixed ? dims >= 2 : flexible_any;
    EXPECT_EQ(any, expect_any) << what;
    EXPECT_EQ(splinebench::testing::count_nan(regs.out), 0) << what;
    EXPECT_LE(regs.rel_l2, tolerance(dims)) << what;
    ASSERT_EQ(regs.out.size(), ring.out.size());
    // The same bits are promised where the ring runs the same sub-blocks (p = kRegP).
    // A ring whose kRegP planes do not fit in shared memory (wide chunks, wide 4-channel
    // rows) runs fewer per sub-block: other anti-causal windows, so other roundings.
    tun.stream_regs = 0;
    const Plan ring_plan = make_plan(GridShape::make(c.extents, c.channels), c.fields, mode, k.v, DeviceLimits{}, tun);
    ASSERT_EQ(ring_plan.passes.size(), plan.passes.size()) << what;
    bool same_subblocks = true;
    for (std::size_t i = 0; i < plan.passes.size(); ++i) {
      if (plan.passes[i].regs > 0) same_subblocks = same_subblocks && ring_plan.passes[i].p == kRegP;
    }
    if (!same_subblocks) continue;
    ++compared;
    const std::size_t differ = count_bit_differences(regs.out, ring.out);
    EXPECT_EQ(differ, 0u) << what << ": values that differ from the shared-memory ring";
  }
  if (dims >= 2) {
    EXPECT_GT(compared, 0) << "no configuration ran the ring with kRegP planes per sub-block";
  }
}

// The register stream_yx tile (one channel, D >= 3) against the shared-memory ring
// with the same sub-blocks (plane_p = kRegP, which needs more shared memory than a GPU
// has, so only the host runs it): the same bits, for whole-axis and short stream ranges.
TEST_P(FlexEmulation, RegisterYxTileSameBitsAsRingOfSixteenPlanes) {
  const auto& [c, mode] = GetParam();
  if (c.extents.size() < 3 || c.channels != 1) GTEST_SKIP() << "stream_yx register tiles: one channel, D >= 3";
  const GridShape shape = GridShape::make(c.extents, c.channels);
  struct Config {
    std::int64_t range;
    int batch, stages;
  };
  for (const Config& k : {Config{0, 4, 2}, Config{3, 4, 2}, Config{17, 4, 2}, Config{0, 2, 3}, Config{17, 2, 4},
                          Config{0, 1, 8}, Config{3, 1, 5}}) {
    const std::int64_t range = k.range;
    Tuning tun;
    tun.layout3d = Layout3D::yx_patches;
    tun.s_range = range;
    tun.yx_batch = k.batch;
    tun.yx_stages = k.stages;
    const Plan plan = make_plan(shape, c.fields, mode, Variant::flexible, DeviceLimits{}, tun);
    ASSERT_EQ(plan.passes[0].kind, TileKind::stream_yx);
    ASSERT_EQ(plan.passes[0].regs, 2) << "the register tile";
    ASSERT_EQ(plan.passes[0].smem.fp_batch, k.batch);
    ASSERT_EQ(plan.passes[0].smem.fp_stages, k.stages);
    const Result regs = run_case(c, mode, Variant::flexible, DeviceLimits{}, tun);
    DeviceLimits big;
    big.smem_bytes = 1 << 24;
    tun.stream_regs = 0;
    tun.plane_p = kRegP;
    const Plan ring_plan = make_plan(shape, c.fields, mode, Variant::flexible, big, tun);
    ASSERT_EQ(ring_plan.passes[0].regs, 0);
    ASSERT_EQ(ring_plan.passes[0].p, kRegP);
    ASSERT_EQ(ring_plan.passes[0].s_range, plan.passes[0].s_range);
    const Result ring = run_case(c, mode, Variant::flexible, big, tun);
    const std::string what = "range " + std::to_string(range) + " batch " + std::to_string(k.batch) + " stages " +
                             std::to_string(k.stages);
    EXPECT_EQ(splinebench::testing::count_nan(regs.out), 0) << what;
    EXPECT_LE(regs.rel_l2, tolerance(static_cast<int>(c.extents.size()))) << what;
    ASSERT_EQ(regs.out.size(), ring.out.size());
    const std::size_t differ = count_bit_differences(regs.out, ring.out);
    EXPECT_EQ(differ, 0u) << what << ": values that differ from the ring";
  }
}

// Register stream_x tiles of several slices side by side (Tuning::x_group) against one
// slice per tile: the same columns through the same operations, so the same bits, with
// groups that divide the slices of a field and groups that leave a short last one.
TEST_P(FlexEmulation, GroupedStreamXTileSameBitsAsOneSlicePerTile) {
  const auto& [c, mode] = GetParam();
  const GridShape shape = GridShape::make(c.extents, c.channels);
  Tuning one;
  one.x_group = 1;
  const Plan plain = make_plan(shape, c.fields, mode, Variant::flexible, DeviceLimits{}, one);
  const PassDesc& first = plain.passes[0];
  if (first.kind != TileKind::stream_x || first.regs == 0) GTEST_SKIP() << "no register stream_x pass";
  ASSERT_EQ(first.group, 1);
  for (std::int64_t range : {std::int64_t{0}, std::int64_t{5}}) {
    for (int group : {2, 3, 4, 64}) {
      Tuning tun = one;
      tun.s_range = range;
      tun.x_group = group;
      const Plan plan = make_plan(shape, c.fields, mode, Variant::flexible, DeviceLimits{}, tun);
      const PassDesc& P = plan.passes[0];
      const std::int64_t fits = std::min<std::int64_t>(kThreads / first.ncols, first.slices_per_field);
      const std::string what = "x_group " + std::to_string(group) + " range " + std::to_string(range);
      // The group asked for, limited by the threads and the slices of a field, and
      // halved while its buffers do not fit in shared memory (they grow with the group).
      const std::int64_t want = std::max<std::int64_t>(1, std::min<std::int64_t>(group, fits));
      ASSERT_LE(P.group, want) << what;
      if (P.group < want) {
        EXPECT_GT(2 * std::int64_t{P.smem.total} * 4, DeviceLimits{}.smem_bytes) << what << ": a larger group fits";
      }
      EXPECT_EQ(P.ncols, P.group * first.ncols) << what;
      EXPECT_EQ(P.groups_per_field, (first.slices_per_field + P.group - 1) / P.group) << what;
      const Result r = run_case(c, mode, Variant::flexible, DeviceLimits{}, tun);
      EXPECT_EQ(splinebench::testing::count_nan(r.out), 0) << what;
      EXPECT_LE(r.rel_l2, tolerance(static_cast<int>(c.extents.size()))) << what;
      // Bit for bit: the stream_x pass alone (profile_pass = 0), against one slice per
      // tile over the same stream ranges (range 0 lets the planner pick them, and fewer
      // tiles may make it pick other ones: other warm-up windows).
      tun.profile_pass = 0;
      Tuning single = tun;
      single.x_group = 1;
      single.s_range = P.s_range;
      const Result grouped = run_case(c, mode, Variant::flexible, DeviceLimits{}, tun);
      const Result reference = run_case(c, mode, Variant::flexible, DeviceLimits{}, single);
      EXPECT_EQ(count_bit_differences(grouped.out, reference.out), 0u)
          << what << ": values that differ from one slice per tile";
    }
  }
}

// The register stream_x tile in two teams (Tuning::x_teams = 1: x filter and y stream
// of neighbouring sub-blocks at once, two g buffers) against the one-team tile: every
// column runs the same window steps on the same values, so the same bits, with one and
// several slices per tile, short stream ranges (tiles of 3 sub-blocks, the fewest) and
// three load stages.
TEST_P(FlexEmulation, TwoTeamStreamXTileSameBitsAsOneTeam) {
  const auto& [c, mode] = GetParam();
  const GridShape shape = GridShape::make(c.extents, c.channels);
  const Plan plain = make_plan(shape, c.fields, mode, Variant::flexible, DeviceLimits{}, Tuning{});
  if (plain.passes[0].kind != TileKind::stream_x || plain.passes[0].regs == 0)
    GTEST_SKIP() << "no register stream_x pass";
  struct Config {
    std::int64_t range;
    int group, stages;
  };
  // (Groups of 8 give the 3-D cases more columns than the y team has threads: both
  // windows of a y thread.)
  bool second_window = false;
  for (const Config& k : {Config{0, 0, 2}, Config{1, 0, 2}, Config{5, 3, 2}, Config{0, 1, 3}, Config{17, 2, 4},
                          Config{0, 8, 2}}) {
    Tuning one;
    one.s_range = k.range;
    one.x_group = k.group;
    one.x_stages = k.stages;
    one.x_teams = 0;
    Tuning two = one;
    two.x_teams = 1;
    const Plan plan = make_plan(shape, c.fields, mode, Variant::flexible, DeviceLimits{}, two);
    const Plan reference_plan = make_plan(shape, c.fields, mode, Variant::flexible, DeviceLimits{}, one);
    const PassDesc& P = plan.passes[0];
    const std::string what = "range " + std::to_string(k.range) + " group " + std::to_string(k.group) + " stages " +
                             std::to_string(k.stages);
    ASSERT_EQ(P.teams, 1) << what;
    second_window = second_window || P.ncols > kTeamY;
    ASSERT_EQ(reference_plan.passes[0].teams, 0) << what;
    // The same tiles: only the team arrangement and the second g buffer differ.
    ASSERT_EQ(P.tiles, reference_plan.passes[0].tiles) << what;
    ASSERT_EQ(P.group, reference_plan.passes[0].group) << what;
    ASSERT_EQ(P.smem.fp_stages, reference_plan.passes[0].smem.fp_stages) << what;
    EXPECT_EQ(P.smem.xfold - P.smem.g, 2 * (reference_plan.passes[0].smem.xfold - reference_plan.passes[0].smem.g))
        << what << ": two g buffers";
    const Result teams = run_case(c, mode, Variant::flexible, DeviceLimits{}, two);
    const Result reference = run_case(c, mode, Variant::flexible, DeviceLimits{}, one);
    EXPECT_EQ(splinebench::testing::count_nan(teams.out), 0) << what;
    EXPECT_LE(teams.rel_l2, tolerance(static_cast<int>(c.extents.size()))) << what;
    EXPECT_EQ(count_bit_differences(teams.out, reference.out), 0u) << what << ": values that differ from one team";
  }
  if (c.extents.size() == 3 && c.channels == 1 && c.extents[0] >= 8) {
    EXPECT_TRUE(second_window) << "no configuration gave a y-team thread two columns";
  }
}

// The stream_only register tile fed by bulk copies (Tuning::stream_bulk = 1, the
// default) against the same tile loading its own columns (stream_bulk = 0): the same
// values through the same window, so the same bits, with 2 to 4 buffers and short
// ranges. Chunks that are partial or whose rows are not 16-byte aligned take the plain
// register tile inside a bulk pass.
TEST_P(FlexEmulation, BulkStreamTileSameBitsAsRegisterTile) {
  const auto& [c, mode] = GetParam();
  const GridShape shape = GridShape::make(c.extents, c.channels);
  for (Variant v : {Variant::flexible, Variant::fixed}) {
    for (std::int64_t range : {std::int64_t{0}, std::int64_t{5}}) {
      Tuning plain;
      plain.stream_bulk = 0;
      plain.s_range = range;
      const Result reference = run_case(c, mode, v, DeviceLimits{}, plain);
      for (int stages : {2, 3, 4}) {
        Tuning tun = plain;
        tun.stream_bulk = 1;
        tun.bulk_stages = stages;
        const Plan plan = make_plan(shape, c.fields, mode, v, DeviceLimits{}, tun);
        for (const auto& P : plan.passes) {
          if (P.bulk == 0) continue;
          EXPECT_EQ(P.kind, TileKind::stream_only);
          EXPECT_EQ(P.w, 2 * kThreads);
          // The buffers asked for, or as many as fit (4 x 64 KB do not).
          EXPECT_LE(P.smem.fp_stages, stages);
          EXPECT_GE(P.smem.fp_stages, 2);
          if (P.smem.fp_stages < stages) {
            EXPECT_GT(std::int64_t{P.smem.fp_stages + 1} * kRegP * P.w * 4, DeviceLimits{}.smem_bytes);
          }
          EXPECT_LE(P.smem.total * 4, DeviceLimits{}.smem_bytes);
        }
        const Result r = run_case(c, mode, v, DeviceLimits{}, tun);
        const std::string what = std::string(v == Variant::fixed ? "fixed" : "flexible") + " range " +
                                 std::to_string(range) + " stages " + std::to_string(stages);
        EXPECT_EQ(splinebench::testing::count_nan(r.out), 0) << what;
        EXPECT_EQ(count_bit_differences(r.out, reference.out), 0u)
            << what << ": values that differ from stream_registers";
      }
    }
  }
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

// The stream_yx patch order (yx_patch_of): a permutation of the range's patches in both
// orders; with border first, the border patches (top row, bottom row, left and right
// columns) take the first positions and the interior follows row by row.
TEST(FlexPlan, YxPatchOrderIsAPermutationBorderFirst) {
  for (std::int64_t Y : {1, 2, 3, 4, 7, 16})
    for (std::int64_t X : {1, 2, 3, 5, 16})
      for (int edge_first : {0, 1}) {
        PassDesc P;
        P.kind = TileKind::stream_yx;
        P.y_tiles = Y;
        P.x_tiles = X;
        P.edge_first = edge_first;
        const std::string what = std::to_string(Y) + "x" + std::to_string(X) + " edge_first " + std::to_string(edge_first);
        std::vector<int> seen(static_cast<std::size_t>(X * Y), 0);
        const std::int64_t border = (X <= 2 || Y <= 2) ? X * Y : 2 * X + 2 * (Y - 2);
        std::int64_t last_interior = -1;
        for (std::int64_t r = 0; r < X * Y; ++r) {
          std::int64_t yt = -1, xt = -1;
          yx_patch_of(P, r, yt, xt);
          ASSERT_TRUE(yt >= 0 && yt < Y && xt >= 0 && xt < X) << what << " r " << r;
          ++seen[static_cast<std::size_t>(yt * X + xt)];
          const bool on_border = yt == 0 || yt == Y - 1 || xt == 0 || xt == X - 1;
          if (!edge_first) {
            EXPECT_EQ(yt * X + xt, r) << what;  // row by row
          } else {
            EXPECT_EQ(on_border, r < border) << what << " r " << r;
            if (!on_border) {
              EXPECT_GT(yt * X + xt, last_interior) << what << ": interior row by row";
              last_interior = yt * X + xt;
            }
          }
        }
        for (int n : seen) EXPECT_EQ(n, 1) << what;
      }
}

// The patch order changes no value: every tile computes the same outputs either way.
TEST(FlexEmulationOrder, YxBorderFirstSameBitsAsRowByRow) {
  for (const FlexCase& c : {FlexCase{{4, 130, 161}, 1, 1}, FlexCase{{3, 100, 100}, 1, 2}}) {
    Tuning tun;
    tun.layout3d = Layout3D::yx_patches;
    tun.yx_edge_first = 1;
    const Plan plan = make_plan(GridShape::make(c.extents, c.channels), c.fields, Mode::mirror, Variant::flexible,
                                DeviceLimits{}, tun);
    ASSERT_EQ(plan.passes[0].kind, TileKind::stream_yx);
    ASSERT_EQ(plan.passes[0].edge_first, 1);
    const Result border = run_case(c, Mode::mirror, Variant::flexible, DeviceLimits{}, tun);
    tun.yx_edge_first = 0;
    const Result rows = run_case(c, Mode::mirror, Variant::flexible, DeviceLimits{}, tun);
    EXPECT_LE(border.rel_l2, tolerance(3)) << c.name();
    EXPECT_EQ(count_bit_differences(border.out, rows.out), 0u) << c.name();
  }
}

// Every output is written by exactly one tile of every pass: coverage of the tiling.
TEST(FlexPlan, TilesCoverEveryOutputOnce) {
  for (const auto& c : splinebench::testing::flex_small_cases()) {
    const GridShape shape = GridShape::make(c.extents, c.channels);
    for (int config = 0; config < 5; ++config) {
      const Variant v = config == 3 ? Variant::fixed : Variant::flexible;
      Tuning tun;
      tun.s_range = 3;
      tun.chunk_width = 5;
      if (config < 3) tun.layout3d = kAllLayouts[config];
      if (config == 4) tun.x_group = 3;  // slice groups, short last groups included
      Plan plan = make_plan(shape, c.fields, Mode::half, v, DeviceLimits{}, tun);
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
            if (P.kind == TileKind::stream_yx)
              w = std::min<std::int64_t>(P.sy, P.ny - T.y0) * std::min<std::int64_t>(P.sx, P.nx - T.x0);
            if (P.kind == TileKind::stream_x) w = std::min<std::int64_t>(P.sx, P.nx - T.x0) * T.nslices;
            if (P.kind == TileKind::stream_only) w = std::min<std::int64_t>(P.w, P.inner - T.w0);
            ASSERT_GT(w, 0);
            outputs += (T.s1 - T.s0) * w;
          }
        }
        const std::int64_t per_point = P.kind == TileKind::stream_only ? 1 : c.channels;
        EXPECT_EQ(outputs * per_point, shape.values() * c.fields) << c.name() << " " << to_string(P.kind);
      }
    }
  }
}

}  // namespace

// The register stream_yx tile's swizzled footprints against its padded ones: the
// emulated tensor copies (zeros outside the plane) with the folds of the edge positions
// (PassDesc::tma 1), and the per-thread loads of the swizzled layout used where the
// source is not 16-byte aligned (2), must put the same values where the filters read
// them as the per-thread copies of the padded layout (0), so the same bits. Shapes with
// rows of a multiple of 4 floats (TMA needs them): interior and edge patches, planes
// shorter than the footprint (folds of folds), two fields, a 4-D field (its slices are
// z of one tensor), several stream ranges, every mode.
TEST(FlexEmulationTma, RegisterYxTileSwizzledFootprintsSameBits) {
  const std::vector<FlexCase> cases = {{{37, 44, 40}, 1, 1}, {{9, 36, 36}, 1, 2}, {{5, 8, 12}, 1, 1},
                                       {{3, 70, 68}, 1, 1},  {{2, 3, 33, 20}, 1, 1}};
  for (const FlexCase& c : cases) {
    const GridShape shape = GridShape::make(c.extents, c.channels);
    const std::int64_t n = shape.values() * c.fields;
    const std::vector<float> in = splinebench::testing::random_values<float>(n, 21);
    // The same values 4 bytes past a 16-byte boundary (operator new aligns to 16).
    std::vector<float> shifted(static_cast<std::size_t>(n) + 4);
    std::copy(in.begin(), in.end(), shifted.begin() + 1);
    for (Mode mode : {Mode::mirror, Mode::half, Mode::periodic}) {
      std::vector<double> ref(in.begin(), in.end());
      oracle::prefilter_f64(shape, c.fields, ref.data(), mode);
      for (std::int64_t range : {std::int64_t{0}, std::int64_t{7}}) {
        const std::string what = c.name() + " " + std::string(to_string(mode)) + " range " + std::to_string(range);
        auto run = [&](int yx_tma, const float* src, int expect_tma) {
          Tuning tun;
          tun.layout3d = Layout3D::yx_patches;
          tun.s_range = range;
          tun.yx_tma = yx_tma;
          std::vector<float> out(static_cast<std::size_t>(n), std::nanf("")), tmp(out);
          Plan plan = make_plan(shape, c.fields, mode, Variant::flexible, DeviceLimits{}, tun);
          bind_buffers(plan, src, out.data(), tmp.data());
          EXPECT_EQ(plan.passes[0].kind, TileKind::stream_yx) << what;
          EXPECT_EQ(plan.passes[0].tma, expect_tma) << what;
          emulate(plan, Variant::flexible, nullptr);
          return out;
        };
        const std::vector<float> padded = run(0, in.data(), 0);  // the default loads
        const std::vector<float> tma = run(1, in.data(), 1);
        const std::vector<float> loads = run(1, shifted.data() + 1, 2);
        EXPECT_EQ(splinebench::testing::count_nan(tma), 0) << what;
        EXPECT_LE(splinebench::testing::rel_l2(tma, ref), tolerance(static_cast<int>(c.extents.size()))) << what;
        EXPECT_EQ(count_bit_differences(tma, padded), 0u) << what << ": tensor copies";
        EXPECT_EQ(count_bit_differences(loads, padded), 0u) << what << ": per-thread loads";
      }
    }
  }
}

// TMA footprints only where rows are a multiple of 16 bytes (the planner) and the
// source is 16-byte aligned (bind_buffers; otherwise per-thread loads of the same layout).
TEST(FlexPlan, YxTmaOnlyWhereTheLayoutAllows) {
  Tuning tun;
  tun.layout3d = Layout3D::yx_patches;
  tun.yx_tma = 1;
  const std::vector<float> data(64 * 64 * 64 + 4, 1.f);
  std::vector<float> out(data.size()), tmp(data.size());
  for (auto [extents, planned] : {std::pair{std::vector<std::int64_t>{10, 20, 32}, 1},
                                  std::pair{std::vector<std::int64_t>{10, 20, 30}, 0}}) {
    Plan plan = make_plan(GridShape::make(extents, 1), 1, Mode::mirror, Variant::flexible, DeviceLimits{}, tun);
    ASSERT_EQ(plan.passes[0].tma, planned) << extents[2];
    bind_buffers(plan, data.data(), out.data(), tmp.data());
    EXPECT_EQ(plan.passes[0].tma, planned) << extents[2];
    bind_buffers(plan, data.data() + 1, out.data(), tmp.data());  // 4 bytes off 16-byte alignment
    EXPECT_EQ(plan.passes[0].tma, planned ? 2 : 0) << extents[2];
  }
}

// Planner knobs out of range are errors, not silently clamped plans.
TEST(FlexPlan, BadYxKnobsAreErrors) {
  const GridShape shape = GridShape::make({40, 40, 40}, 1);
  for (auto [batch, stages] : {std::pair{3, 2}, std::pair{0, 2}, std::pair{32, 2}, std::pair{4, 1}}) {
    Tuning tun;
    tun.layout3d = Layout3D::yx_patches;
    tun.yx_batch = batch;
    tun.yx_stages = stages;
    EXPECT_THROW(make_plan(shape, 1, Mode::mirror, Variant::flexible, DeviceLimits{}, tun), splinebench::Error)
        << "yx_batch " << batch << " yx_stages " << stages;
  }
  // More stages than fit: the deepest that does (4 planes per batch: 2 on 227 KB).
  Tuning tun;
  tun.layout3d = Layout3D::yx_patches;
  tun.yx_stages = 8;
  const Plan plan = make_plan(shape, 1, Mode::mirror, Variant::flexible, DeviceLimits{}, tun);
  EXPECT_EQ(plan.passes[0].smem.fp_stages, 2);
  EXPECT_LE(plan.passes[0].smem.total * 4, DeviceLimits{}.smem_bytes);
}

// Where the planner groups slices (Tuning::x_group = 0): narrow planes that would take
// several waves, never at the cost of more stream ranges.
// Where the default (Tuning::x_teams = -1) gives register stream_x tiles two teams:
// tiles of at least kTeamsMinSubblocks sub-blocks (512^3: 34, 256^3: 18), not shorter ones
// (128^3: 10, 48^4: 5), unless asked for; the team layout has two g buffers and the
// mbarriers, and still fits.
TEST(FlexPlan, TwoTeamsForLongStreamXTiles) {
  struct Expect {
    std::vector<std::int64_t> extents;
    int teams;
  };
  for (const Expect& e : {Expect{{512, 512, 512}, 1}, Expect{{256, 256, 256}, 1}, Expect{{128, 128, 128}, 0},
                          Expect{{48, 48, 48, 48}, 0}}) {
    for (int ask : {-1, 0, 1}) {
      Tuning tun;
      tun.x_teams = ask;
      const Plan plan = make_plan(GridShape::make(e.extents, 1), 1, Mode::mirror, Variant::flexible, DeviceLimits{}, tun);
      const PassDesc& P = plan.passes[0];
      ASSERT_EQ(P.kind, TileKind::stream_x);
      ASSERT_GT(P.regs, 0);
      const int want = ask < 0 ? e.teams : ask;
      const std::string what = std::to_string(e.extents[0]) + " x_teams " + std::to_string(ask);
      EXPECT_EQ(P.teams, want) << what;
      const std::int64_t subblocks = (P.s_range + 2 * kHalo + kRegP - 1) / kRegP;
      if (ask < 0) {
        EXPECT_EQ(P.teams > 0, subblocks >= kTeamsMinSubblocks) << what;
      }
      if (P.teams > 0) {
        EXPECT_EQ(P.smem.bars, P.smem.xfold + (P.sx + 2 * kHalo + 3) / 4 * 4) << what;
        EXPECT_EQ(P.smem.bars % 4, 0) << what << ": mbarriers 16-byte aligned";
        EXPECT_EQ(P.smem.total, P.smem.bars + 2 * team_bar_count(P.smem.fp_stages)) << what;
      }
      EXPECT_LE(P.smem.total * 4, DeviceLimits{}.smem_bytes) << what;
    }
  }
  Tuning bad;
  bad.x_teams = -2;
  EXPECT_THROW(make_plan(GridShape::make({8, 8, 8}, 1), 1, Mode::mirror, Variant::flexible, DeviceLimits{}, bad),
               splinebench::Error);
}

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
  Tuning bad;
  bad.x_group = -1;
  EXPECT_THROW(make_plan(GridShape::make({8, 8, 8}, 1), 1, Mode::mirror, Variant::flexible, DeviceLimits{}, bad),
               splinebench::Error);
}

// The bulk stream_only tile is taken where it applies: whole 1024-column chunks of an
// aligned axis run through it (and the planner falls back to stream_registers where
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
  Tuning bad;
  bad.bulk_stages = 1;
  EXPECT_THROW(make_plan(shape, 1, Mode::mirror, Variant::flexible, DeviceLimits{}, bad), splinebench::Error);
}
