// The ring between the x-y and z passes of 3-D plans (RingDesc in flex_pass.hpp), on the
// host: the planner's choices, the interleaved ticket order and its dependencies, and
// the emulated results, bit for bit against the plan that writes the whole
// intermediate field (same stream ranges), in natural and adversarial orders.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "flex_emulate_run.hpp"
#include "flex_ring_cases.hpp"
#include "gpu_flex/flex_order.hpp"
#include "gpu_flex/flex_plan.hpp"
#include "splinebench/error.hpp"

using namespace splinebench;
using namespace splinebench::gpu::flex;
using splinebench::testing::FlexCase;
using Result = splinebench::testing::FlexResult;
using splinebench::testing::RingCase;
using splinebench::testing::ring_cases;
using splinebench::testing::ring_tuning;

namespace {

// The same passes writing the whole intermediate field: the x-y pass's y ranges are the
// bands and the z pass's ranges the slabs, so every window is the ring's.
Tuning whole_field_tuning(const RingCase& c) {
  Tuning t = ring_tuning(c);
  t.ring = 0;
  t.s_range = c.planes;
  return t;
}

class FlexRing : public ::testing::TestWithParam<std::tuple<RingCase, Mode>> {};

TEST_P(FlexRing, SameBitsAsWholeIntermediateField) {
  const auto& [c, mode] = GetParam();
  ASSERT_EQ(c.planes, c.rows) << "the whole-field plan has one range length for both passes";
  const GridShape shape = GridShape::make(c.shape.extents, c.shape.channels);
  const Plan plan = make_plan(shape, c.shape.fields, mode, Variant::flexible, DeviceLimits{}, ring_tuning(c));
  ASSERT_EQ(plan.passes.size(), 2u);
  ASSERT_EQ(plan.passes[0].ring_role, 1) << describe(plan);
  ASSERT_EQ(plan.passes[1].ring_role, 2);
  EXPECT_EQ(plan.passes[0].group, c.group);
  const Result ring = splinebench::testing::run_flex_case(c.shape, mode, Variant::flexible, DeviceLimits{},
                                                          ring_tuning(c));
  const Result whole = splinebench::testing::run_flex_case(c.shape, mode, Variant::flexible, DeviceLimits{},
                                                           whole_field_tuning(c));
  EXPECT_EQ(splinebench::testing::count_nan(ring.out), 0);
  EXPECT_LE(ring.rel_l2, splinebench::testing::flex_tolerance(3));
  EXPECT_EQ(splinebench::testing::count_bit_differences(ring.out, whole.out), 0u)
      << "values that differ from the whole-field plan";
}

TEST_P(FlexRing, AdversarialOrderSameBits) {
  const auto& [c, mode] = GetParam();
  const GridShape shape = GridShape::make(c.shape.extents, c.shape.channels);
  const Plan plan = make_plan(shape, c.shape.fields, mode, Variant::flexible, DeviceLimits{}, ring_tuning(c));
  const LaunchDesc L = make_launch(plan);
  ASSERT_EQ(L.ring, 1);
  const Result normal = splinebench::testing::run_flex_case(c.shape, mode, Variant::flexible, DeviceLimits{},
                                                            ring_tuning(c));
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const std::vector<std::int64_t> order = adversarial_order(L, seed);
    ASSERT_EQ(check_order(L, order), "") << "seed " << seed;
    const Result r = splinebench::testing::run_flex_case(c.shape, mode, Variant::flexible, DeviceLimits{},
                                                         ring_tuning(c), &order);
    EXPECT_EQ(splinebench::testing::count_bit_differences(r.out, normal.out), 0u) << "seed " << seed;
  }
}

std::string ring_case_name(const ::testing::TestParamInfo<std::tuple<RingCase, Mode>>& info) {
  return std::get<0>(info.param).name() + "_" + std::string(to_string(std::get<1>(info.param)));
}

INSTANTIATE_TEST_SUITE_P(Shapes, FlexRing,
                         ::testing::Combine(::testing::ValuesIn(ring_cases()), ::testing::Values(Mode::mirror, Mode::half)),
                         ring_case_name);

// Every ticket names a different tile, every tile of both passes has a ticket, and the
// natural order meets every wait of ring_waits.
TEST(FlexRingOrder, TicketsCoverBothPassesOnceInDependencyOrder) {
  for (const RingCase& c : ring_cases()) {
    const GridShape shape = GridShape::make(c.shape.extents, c.shape.channels);
    const Plan plan = make_plan(shape, c.shape.fields, Mode::mirror, Variant::flexible, DeviceLimits{}, ring_tuning(c));
    const LaunchDesc L = make_launch(plan);
    ASSERT_EQ(L.ring, 1) << c.name();
    const RingDesc& R = L.pass[0].ring;
    const std::int64_t total = L.pass_begin[L.passes];
    ASSERT_EQ(ring_tickets(R), total) << c.name();
    std::set<std::pair<int, std::int64_t>> seen;
    std::vector<std::int64_t> natural;
    for (std::int64_t t = 0; t < total; ++t) {
      const RingTicket rt = ring_ticket(R, t);
      const std::int64_t local = ring_local_tile(L.pass[rt.pass], rt);
      ASSERT_GE(local, 0);
      ASSERT_LT(local, L.pass[rt.pass].tiles) << c.name();
      EXPECT_TRUE(seen.insert({rt.pass, local}).second) << c.name() << ": ticket " << t << " repeats a tile";
      natural.push_back(t);
    }
    EXPECT_EQ(static_cast<std::int64_t>(seen.size()), total);
    EXPECT_EQ(check_order(L, natural), "") << c.name();
  }
}

// An order that runs a z unit before the x-y units it reads, or that overwrites a slot
// still to be read, is refused, and the emulation refuses to run it.
TEST(FlexRingOrder, OrderThatBreaksRingDependenciesIsRejected) {
  const RingCase c = ring_cases()[1];
  const GridShape shape = GridShape::make(c.shape.extents, c.shape.channels);
  const Plan plan = make_plan(shape, c.shape.fields, Mode::mirror, Variant::flexible, DeviceLimits{}, ring_tuning(c));
  const LaunchDesc L = make_launch(plan);
  ASSERT_EQ(L.ring, 1);
  const std::int64_t total = L.pass_begin[L.passes];
  std::vector<std::int64_t> reversed;
  for (std::int64_t t = total - 1; t >= 0; --t) reversed.push_back(t);
  EXPECT_NE(check_order(L, reversed), "");
  // Every x-y unit first: unit `slots` overwrites unit 0 before any z unit read it.
  std::vector<std::int64_t> xy_first;
  for (int pass : {0, 1})
    for (std::int64_t t = 0; t < total; ++t)
      if (ring_ticket(L.pass[0].ring, t).pass == pass) xy_first.push_back(t);
  EXPECT_NE(check_order(L, xy_first), "");
  const std::int64_t n = shape.values() * c.shape.fields;
  std::vector<float> in(static_cast<std::size_t>(n), 1.f), out(in.size()), tmp(in.size());
  Plan bound = plan;
  bind_buffers(bound, in.data(), out.data(), tmp.data());
  EXPECT_THROW(emulate(bound, Variant::flexible, &xy_first), splinebench::Error);
}

// The planner's own choices: the ring for the benchmark's large cubes (bands whose
// slot fits 8 MiB), none where a slab's window would leave its neighbours (periodic
// boundaries, slabs not dividing the axis) or where it is switched off.
TEST(FlexRingPlan, WhereThePlannerTakesTheRing) {
  struct Expect {
    std::vector<std::int64_t> extents;
    Mode mode;
    std::int64_t rows;  // 0: no ring
  };
  for (const Expect& e : {Expect{{512, 512, 512}, Mode::mirror, 128}, Expect{{256, 256, 256}, Mode::half, 256},
                          Expect{{512, 512, 512}, Mode::periodic, 0}, Expect{{48, 512, 512}, Mode::mirror, 0},
                          Expect{{32, 256, 256}, Mode::mirror, 0}}) {
    const Plan plan = make_plan(GridShape::make(e.extents, 1), 1, e.mode, Variant::flexible, DeviceLimits{});
    ASSERT_EQ(plan.passes.size(), 2u);
    const std::string what = std::to_string(e.extents[0]) + " " + std::string(to_string(e.mode));
    if (e.rows == 0) {
      EXPECT_EQ(plan.passes[0].ring_role, 0) << what;
      EXPECT_EQ(traffic(plan).ring_bytes, 0.0) << what;
      continue;
    }
    ASSERT_EQ(plan.passes[0].ring_role, 1) << what;
    const RingDesc& R = plan.passes[0].ring;
    EXPECT_EQ(R.rows, e.rows) << what;
    EXPECT_EQ(R.planes, 32) << what;
    EXPECT_EQ(R.slots, 4) << what;
    EXPECT_LE(R.unit_values * 4, 8 << 20) << what;
    EXPECT_EQ(plan.passes[0].s_range, R.rows) << what;
    EXPECT_EQ(plan.passes[1].s_range, R.planes) << what;
    // The ring carries the intermediate: written once, read with the z pass's halos.
    const double values = 512.0 * 512 * 512 * (e.extents[0] == 256 ? 1.0 / 8 : 1.0);
    EXPECT_DOUBLE_EQ(traffic(plan).ring_bytes, 4 * values * (1 + (R.planes + 2.0 * kHalo) / R.planes)) << what;
  }
  Tuning off;
  off.ring = 0;
  EXPECT_EQ(make_plan(GridShape::make({512, 512, 512}, 1), 1, Mode::mirror, Variant::flexible, DeviceLimits{}, off)
                .passes[0]
                .ring_role,
            0);
  Tuning bad;
  bad.ring_lag = 0;
  EXPECT_THROW(make_plan(GridShape::make({64, 16, 64}, 1), 1, Mode::mirror, Variant::flexible, DeviceLimits{}, bad),
               splinebench::Error);
}

}  // namespace
