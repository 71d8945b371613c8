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
#include "gpu_flex/flex_deps.hpp"
#include "gpu_flex/flex_emulate.hpp"
#include "gpu_flex/flex_order.hpp"
#include "gpu_flex/flex_plan.hpp"
#include "gpu_flex/flex_tile.cuh"
#include "reference/oracle_batch.hpp"
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
    // outer axes, D >= 3, yx_patches D >= 4) and stream_x passes (flexible D = 2, and
    // xy_planes D >= 3).
    // stream_x takes the register tile where its patch (whole rows up to 1024 values)
    // has at most one column per thread.
    const std::int64_t nx = c.extents.back(), x_values = std::min<std::int64_t>((nx + 31) / 32 * 32, 1024 / c.channels);
    const bool x_regs = x_values * c.channels <= kThreads;
    const bool flexible_any = (dims == 2 && x_regs) || (dims >= 3 && k.layout != Layout3D::yx_patches) ||
                              (dims >= 4 && k.layout == Layout3D::yx_patches);
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
    std::size_t differ = 0;
    for (std::size_t i = 0; i < regs.out.size(); ++i)
      if (std::memcmp(&regs.out[i], &ring.out[i], sizeof(float)) != 0) ++differ;
    EXPECT_EQ(differ, 0u) << what << ": values that differ from the shared-memory ring";
  }
  if (dims >= 2) {
    EXPECT_GT(compared, 0) << "no configuration ran the ring with kRegP planes per sub-block";
  }
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<FlexCase, Mode>>& info) {
  return std::get<0>(info.param).name() + "_" + std::string(to_string(std::get<1>(info.param)));
}

INSTANTIATE_TEST_SUITE_P(Shapes, FlexEmulation,
                         ::testing::Combine(::testing::ValuesIn(splinebench::testing::flex_small_cases()),
                                            ::testing::Values(Mode::mirror, Mode::half, Mode::periodic)),
                         case_name);

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
  for (const auto& c : splinebench::testing::flex_small_cases()) {
    const GridShape shape = GridShape::make(c.extents, c.channels);
    for (int config = 0; config < 4; ++config) {
      const Variant v = config == 3 ? Variant::fixed : Variant::flexible;
      Tuning tun;
      tun.s_range = 3;
      tun.chunk_width = 5;
      if (config < 3) tun.layout3d = kAllLayouts[config];
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
            if (P.kind == TileKind::stream_x) w = std::min<std::int64_t>(P.sx, P.nx - T.x0);
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

namespace {

// 3-D and 4-D shapes for the pipelined launch: several y ranges and z ranges of 16 or
// 32, chunks inside one y range and across two, partial last ranges, batches.
std::vector<FlexCase> pipeline_cases() {
  return {{{37, 45, 33}, 1, 1}, {{40, 70, 33}, 1, 2}, {{20, 50, 40}, 2, 1}, {{17, 19, 21}, 4, 1},
          {{3, 5, 7}, 1, 2},    {{33, 40, 16}, 1, 1}, {{5, 3, 37, 34}, 2, 2}};
}

Tuning pipeline_tuning(int y_range, int z_range, int chunk) {
  Tuning tun;
  tun.pipeline = 1;
  tun.y_range = y_range;
  tun.z_range = z_range;
  tun.chunk_width = chunk;
  tun.s_range = 1 << 20;  // every other stream pass: one range (as the reference below)
  tun.pipe_lag = 3;
  tun.z_chain = 1;
  return tun;
}

}  // namespace

namespace {
// No pass-1 tile drops a plane that a tile which may run after it reads: with chained
// z ranges only the later ranges of the same chunk, otherwise any other range of it.
void check_discard_safety(const LaunchDesc& L, Mode mode, const std::string& what) {
  const PassDesc& P1 = L.pass[1];
  for (std::int64_t a = 0; a < P1.tiles_per_slice; ++a)
    for (std::int64_t b = 0; b < P1.tiles_per_slice; ++b) {
      const TileCoords ca = tile_coords(P1, a), cb = tile_coords(P1, b);
      if (ca.group != cb.group || (P1.carry ? cb.st <= ca.st : cb.st == ca.st)) continue;
      const std::int64_t s0 = ca.st * P1.s_range, s1 = std::min(s0 + P1.s_range, P1.ns);
      const std::int64_t lo = std::max(P1.carry ? s0 : s0 + kHalo, P1.discard_lo);
      const std::int64_t hi = std::min(P1.carry ? s1 : s1 - kHalo, P1.discard_hi);
      const deps_detail::PlaneWindow w = deps_detail::plane_window(L, cb);
      for (std::int64_t p = w.first; p < w.first + w.positions; ++p) {
        const std::int64_t z = fold(static_cast<int>(mode), p, P1.ns);
        EXPECT_FALSE(z >= lo && z < hi) << what << ": range " << cb.st << " reads plane " << z
                                        << ", dropped by range " << ca.st;
      }
    }
}
}  // namespace

// The pipelined launch computes, bit for bit, what one range per axis computes: its
// ranges continue the causal state of the range before (no warm-up) and start on
// sub-block boundaries. In its own order, in the plain order and in adversarial ones.
TEST(FlexPipeline, SameBitsAsOneRangePerAxisInEveryOrder) {
  for (const FlexCase& c : pipeline_cases())
    for (Mode mode : {Mode::mirror, Mode::half, Mode::periodic})
      for (int config = 0; config < 3; ++config) {
        const Tuning tun = pipeline_tuning(config == 0 ? 16 : 32, config == 1 ? 32 : 16, config == 2 ? 96 : 1024);
        Tuning one_range = tun;
        one_range.pipeline = 0;
        const std::string what = c.name() + " " + std::string(to_string(mode)) + " config " + std::to_string(config);
        const GridShape shape = GridShape::make(c.extents, c.channels);
        Plan plan = make_plan(shape, c.fields, mode, Variant::flexible, DeviceLimits{}, tun);
        ASSERT_TRUE(plan.pipelined) << what;
        const LaunchDesc L = make_launch(plan);
        const Result reference = run_case(c, mode, Variant::flexible, DeviceLimits{}, one_range);
        for (const auto& P : make_plan(shape, c.fields, mode, Variant::flexible, DeviceLimits{}, one_range).passes)
          ASSERT_EQ(P.s_tiles, 1) << what;
        EXPECT_LE(reference.rel_l2, tolerance(shape.dims)) << what;
        // The plain order (pass after pass), the pipelined order, two adversarial ones.
        std::vector<std::vector<std::int64_t>> orders = {pipelined_order(L, tun.pipe_lag), adversarial_order(L, 1),
                                                         adversarial_order(L, 2)};
        const Result plain = run_case(c, mode, Variant::flexible, DeviceLimits{}, tun);
        EXPECT_EQ(plain.out, reference.out) << what << ": plain order";
        for (std::size_t o = 0; o < orders.size(); ++o) {
          ASSERT_EQ(check_order(L, orders[o]), "") << what << " order " << o;
          const Result r = run_case(c, mode, Variant::flexible, DeviceLimits{}, tun, &orders[o]);
          EXPECT_EQ(r.out, reference.out) << what << " order " << o;
        }
      }
}

// The plan: chained ranges of the requested size on both passes, the counters laid
// out without overlap, and the planes pass 1 may drop from L2 are read by no tile that
// can run after the one that drops them (only later ranges of the same chunk can).
TEST(FlexPipeline, PlanChainsRangesAndDropsOnlyPlanesNobodyReadsLater) {
  for (const FlexCase& c : pipeline_cases())
    for (Mode mode : {Mode::mirror, Mode::half, Mode::periodic}) {
      const GridShape shape = GridShape::make(c.extents, c.channels);
      const Tuning tun = pipeline_tuning(16, 16, 1024);
      const Plan plan = make_plan(shape, c.fields, mode, Variant::flexible, DeviceLimits{}, tun);
      const std::string what = c.name() + " " + std::string(to_string(mode));
      ASSERT_TRUE(plan.pipelined) << what;
      const PassDesc& P0 = plan.passes[0];
      const PassDesc& P1 = plan.passes[1];
      EXPECT_EQ(P0.s_range, std::min<std::int64_t>(16, P0.ns)) << what;
      EXPECT_EQ(P1.s_range, std::min<std::int64_t>(16, P1.ns)) << what;
      EXPECT_EQ(P0.carry, P0.s_tiles > 1 ? 1 : 0) << what;
      EXPECT_EQ(P1.carry, P1.s_tiles > 1 ? 1 : 0) << what;
      const LaunchDesc L = make_launch(plan);
      // Counters: every dependency and release names one inside [0, counters).
      for (int k = 0; k < L.passes; ++k)
        for (std::int64_t t = 0; t < L.pass[k].tiles; ++t) {
          for (std::int64_t i = 0; i < dep_count(L, k, t); ++i) {
            const Dep d = dep_at(L, k, t, i);
            ASSERT_TRUE(d.counter >= 0 && d.counter < L.counters) << what;
          }
          for (int i = 0; i < release_count(L, k, t); ++i) {
            const std::int64_t r = release_at(L, k, t, i);
            ASSERT_TRUE(r >= 0 && r < L.counters) << what;
          }
        }
      if (P1.discard_hi <= P1.discard_lo) continue;
      EXPECT_EQ(P1.discard_hi - P1.discard_lo, P1.ns - kHalo - (mode == Mode::mirror ? 1 : 0)) << what;
      check_discard_safety(L, mode, what);
    }
}

// Without chained z ranges (the default), the ranges of a chunk run in any order:
// no range drops a plane that another range reads, whichever runs first.
TEST(FlexPipeline, IndependentZRangesDropOnlyPlanesNoOtherRangeReads) {
  for (const FlexCase& c : pipeline_cases())
    for (Mode mode : {Mode::mirror, Mode::half, Mode::periodic}) {
      const GridShape shape = GridShape::make(c.extents, c.channels);
      Tuning tun = pipeline_tuning(16, 32, 1024);
      tun.z_chain = 0;
      const Plan plan = make_plan(shape, c.fields, mode, Variant::flexible, DeviceLimits{}, tun);
      const std::string what = c.name() + " " + std::string(to_string(mode));
      ASSERT_TRUE(plan.pipelined) << what;
      EXPECT_EQ(plan.passes[1].carry, 0) << what;
      check_discard_safety(make_launch(plan), mode, what);
      // The same bits in the pipelined order as in the plain one.
      const LaunchDesc L = make_launch(plan);
      const std::vector<std::int64_t> order = pipelined_order(L, 2);
      ASSERT_EQ(check_order(L, order), "") << what;
      EXPECT_EQ(run_case(c, mode, Variant::flexible, DeviceLimits{}, tun, &order).out,
                run_case(c, mode, Variant::flexible, DeviceLimits{}, tun).out)
          << what;
    }
}

// The pipelined plan's traffic: the intermediate field leaves the DRAM estimate.
TEST(FlexPipeline, TrafficLeavesTheIntermediateInL2) {
  const GridShape shape = GridShape::make({64, 64, 64});
  Tuning tun;
  const Traffic plain = traffic(make_plan(shape, 1, Mode::mirror, Variant::flexible, DeviceLimits{}, tun));
  EXPECT_EQ(plain.dram_read_bytes, plain.read_bytes);
  EXPECT_EQ(plain.dram_write_bytes, plain.write_bytes);
  tun.pipeline = 1;
  tun.y_range = tun.z_range = 32;
  const Traffic piped = traffic(make_plan(shape, 1, Mode::mirror, Variant::flexible, DeviceLimits{}, tun));
  const double values = static_cast<double>(shape.values());
  EXPECT_EQ(piped.dram_write_bytes / values, 4.0);
  // Pass 0 reads rows of 64 + 2 x 16 halo samples, and per plane 64 rows + one
  // look-ahead of 16 rows per range (2) + one warm-up of 16 rows (chained ranges).
  EXPECT_DOUBLE_EQ(piped.dram_read_bytes / values, 4.0 * (64 + 2 * 16) / 64 * (64 + 2 * 16 + 16) / 64);
}
