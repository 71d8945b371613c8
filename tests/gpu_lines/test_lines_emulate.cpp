// gpu_lines without a GPU: the planner (impls/gpu_lines/lines_plan) and the kernels' own
// bodies run on the host (lines_emulate.hpp) against the double oracle, for every mode,
// D = 1..6 on small shapes with extents 1, 2 and 3, channels 1 and 4, two fields, every
// segment cap, the strided fallback of the contiguous axis and 64-bit indexing; plus the
// plan's properties (every output written by exactly one lane, every segment inside its
// line, the staged blocks inside their shared memory) and the folding of window indices.
// This is what CI checks of the CUDA design; tests/conformance runs the implementation on
// a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "common/accuracy.hpp"
#include "gpu_lines/lines_body.hpp"
#include "gpu_lines/lines_plan.hpp"
#include "lines_emulate.hpp"
#include "splinebench/bspline_math.hpp"
#include "splinebench/error.hpp"
#include "splinebench/oracle_batch.hpp"
#include "splinebench/registry.hpp"

using namespace splinebench;
using namespace splinebench::gpu::lines;

namespace {

// The implementation's own prefilter tolerance (GpuLines::tolerance; in a build without
// CUDA the registry has no gpu_lines to ask, and the function it returns is asked).
double implementation_tolerance(const GridShape& shape) {
#if SPLINEBENCH_WITH_CUDA
  static const ImplementationPtr impl = make_implementation("gpu_lines");
  return impl->tolerance(shape).prefilter_rel_l2;
#else
  return gpu::lines::tolerance(shape).prefilter_rel_l2;
#endif
}

// The bound: the short_lines probe's 2e-7 for D <= 3 (tighter than the tolerance there),
// the implementation's tolerance beyond.
double bound(const GridShape& shape) {
  const double tol = implementation_tolerance(shape);
  return shape.dims <= 3 ? std::min(2e-7, tol) : tol;
}

struct LinesCase {
  std::vector<std::int64_t> extents;
  int channels = 1;
  std::int64_t fields = 2;
  GridShape shape() const { return GridShape::make(extents, channels); }
  std::string name() const {
    std::string n;
    for (auto e : extents) n += (n.empty() ? "" : "x") + std::to_string(e);
    return n + "_C" + std::to_string(channels) + "_F" + std::to_string(fields);
  }
};

[[maybe_unused]] void PrintTo(const LinesCase& c, std::ostream* os) { *os << c.name(); }

std::vector<LinesCase> cases() {
  const std::vector<std::vector<std::int64_t>> shapes = {
      // D = 1: single samples, lines of 2 and 3, one and several segments at every cap
      {1}, {2}, {3}, {37}, {100}, {300},
      // D = 2
      {1, 2}, {3, 1}, {2, 3}, {9, 4}, {17, 70}, {120, 160},
      // D = 3
      {1, 1, 1}, {3, 2, 1}, {7, 2, 5}, {5, 1, 70}, {17, 33, 65},
      // D = 4 .. 6
      {1, 2, 3, 1}, {5, 3, 4, 3}, {9, 8, 7, 6},
      {2, 2, 2, 2, 2}, {4, 3, 1, 3, 2}, {9, 7, 6, 5, 4},
      {1, 2, 1, 3, 1, 2}, {3, 2, 3, 2, 2, 3}, {5, 4, 3, 4, 3, 6},
  };
  std::vector<LinesCase> out;
  for (const auto& e : shapes)
    for (const int C : {1, 4}) out.push_back({e, C, 2});
  return out;
}

// Plans a case is run with: the rule's, every cap, the contiguous axis on the strided
// fallback (no shared memory), and 64-bit indexing forced.
struct NamedPlan {
  std::string name;
  Plan plan;
};
std::vector<NamedPlan> plans_for(const LinesCase& c) {
  const GridShape shape = c.shape();
  std::vector<NamedPlan> plans;
  plans.push_back({"rule (cap " + std::to_string(choose_cap(shape)) + ")", make_plan(shape, c.fields)});
  for (const int cap : {16, 32, 64}) {
    PlanOptions o;
    o.cap = cap;
    plans.push_back({"cap " + std::to_string(cap), make_plan(shape, c.fields, o)});
  }
  PlanOptions strided;
  strided.staged_budget_bytes = 0;
  plans.push_back({"no shared memory", make_plan(shape, c.fields, strided)});
  PlanOptions wide;
  wide.force_wide = true;
  plans.push_back({"64-bit indexing", make_plan(shape, c.fields, wide)});
  return plans;
}

std::vector<float> run_emulation(const Plan& plan, const std::vector<float>& in, Mode mode) {
  std::vector<float> out(in.size()), tmp(in.size());
  splinebench::testing::poison(out);
  splinebench::testing::poison(tmp);
  emulate_plan(plan, in.data(), out.data(), tmp.data(), mode);
  return out;
}

// Worst rel L2 per D over every case, mode and plan, printed at the end.
std::map<int, double>& worst_by_dims() {
  static std::map<int, double> worst;
  return worst;
}
struct PrintWorst : ::testing::Environment {
  void TearDown() override {
    for (const auto& [dims, rel] : worst_by_dims())
      std::printf("gpu_lines emulation: worst rel L2 for D = %d: %.3e\n", dims, rel);
  }
};
[[maybe_unused]] ::testing::Environment* const kPrintWorst = ::testing::AddGlobalTestEnvironment(new PrintWorst);

// ---- folding and the lane ---------------------------------------------------------------

// One reflection, for every mode, segment length, line of S + kHalo .. S + kHalo + 200
// samples and segment of it, over the whole window: fold_index's index.
TEST(LinesLane, FoldOnceIsFoldIndexWhereOneReflectionFolds) {
  long long asked = 0, wrong = 0;
  for (int mode = 0; mode < 3; ++mode)
    for (const int S : kSegmentLengths)
      with_segment(S, [&](auto Sc) {
        constexpr int s = decltype(Sc)::value;
        for (int n = s + kHalo - 1; n <= s + kHalo + 200; ++n) {
          EXPECT_EQ(folds_once<s>(n), n >= s + kHalo);
          if (!folds_once<s>(n)) continue;
          const OneReflection F = one_reflection(mode, n);
          for (int s0 = 0; s0 < n; s0 += s)
            for (int j = s0 - kHalo; j < s0 + s + kHalo; ++j, ++asked)
              wrong += fold_once(F, j, n) != static_cast<int>(bspline::fold_index(mode, j, n));
        }
      });
  EXPECT_GT(asked, 1000000);
  EXPECT_EQ(wrong, 0);
}

// ---- the plan -----------------------------------------------------------------------------

// Every output of every pass written by exactly one lane, every segment starting inside
// its line, staged blocks within their lanes and shared memory; buffers never in place.
void check_coverage(const Plan& P, const GridShape& shape, std::int64_t fields, const std::string& what) {
  ASSERT_EQ(P.count, shape.dims) << what;
  ASSERT_EQ(P.values, shape.values() * fields) << what;
  for (int p = 0; p < P.count; ++p) {
    const Pass& q = P.pass[p];
    const std::string at = what + ", pass " + std::to_string(p);
    ASSERT_EQ(q.axis, P.count - 1 - p) << at;
    ASSERT_EQ(q.n, shape.extent[q.axis]) << at;
    ASSERT_EQ(q.s, shape.stride(q.axis)) << at;
    ASSERT_EQ(q.outer * q.n * q.s, P.values) << at;
    ASSERT_TRUE(std::find(std::begin(kSegmentLengths), std::end(kSegmentLengths), q.S) != std::end(kSegmentLengths));
    ASSERT_LE(q.S, std::max(P.cap, 16)) << at;
    ASSERT_GE(static_cast<std::int64_t>(q.S) * q.segs, q.n) << at << ": segments short of the line";
    ASSERT_LT(static_cast<std::int64_t>(q.S) * (q.segs - 1), q.n) << at << ": a segment starts past the line";
    ASSERT_NE(src_buffer(P.count, p), dst_buffer(P.count, p)) << at << ": in place";
    if (q.staged) {
      ASSERT_EQ(q.axis, P.count - 1) << at << ": only the contiguous axis is staged";
    }
    std::vector<int> written(static_cast<std::size_t>(P.values), 0);
    std::int64_t lanes = 0;
    with_index(P, [&](auto index) {
      using Index = decltype(index);
      with_segment(q.S, [&](auto Sc) {
        constexpr int S = decltype(Sc)::value;
        if (!q.staged) {
          ASSERT_GE(q.blocks * kThreads, q.tasks) << at;
          for (std::int64_t t = 0; t < q.tasks; ++t) {
            const StridedSegment L = strided_segment<S>(q, static_cast<Index>(t));
            ASSERT_EQ(static_cast<std::int64_t>(L.stride), q.s) << at;
            ASSERT_GE(L.s0, 0) << at;
            ASSERT_LT(L.s0, q.n) << at << ": lane " << t << " outside its line";
            ++lanes;
            for (int k = 0; k < S && L.s0 + k < q.n; ++k) {
              const std::int64_t v = static_cast<std::int64_t>(L.base) + (L.s0 + k) * q.s;
              ASSERT_LT(v, P.values) << at;
              ++written[static_cast<std::size_t>(v)];
            }
          }
          return;
        }
        ASSERT_LE(static_cast<std::int64_t>(q.rows_per_block) * q.C * q.segs, kThreads) << at;
        for (std::int64_t block = 0; block < q.blocks; ++block) {
          const StagedRows<Index> R = staged_rows(q, static_cast<Index>(block));
          ASSERT_GE(R.rows, 1) << at << ": an empty block";
          ASSERT_LT(pad(R.words - 1), static_cast<int>(q.smem_bytes / 4)) << at << ": past the shared memory";
          const std::int64_t row0 = static_cast<std::int64_t>(R.row0) * q.n * q.C;
          for (int tid = 0; tid < kThreads; ++tid) {
            StagedLane L{};
            if (!staged_lane_at<S>(q, R.rows, tid, L)) continue;
            ASSERT_LT(L.s0, q.n) << at;
            ASSERT_LT(L.ch, q.C) << at;
            ++lanes;
            for (int k = 0; k < S && L.s0 + k < q.n; ++k) {
              const int word = L.row + (L.s0 + k) * q.C;
              ASSERT_LT(word, R.words) << at;
              ++written[static_cast<std::size_t>(row0 + word)];
            }
          }
        }
      });
    });
    ASSERT_EQ(lanes, q.tasks) << at << ": lanes that compute";
    const auto bad = std::count_if(written.begin(), written.end(), [](int w) { return w != 1; });
    ASSERT_EQ(bad, 0) << at << ": outputs not written exactly once";
  }
}

class LinesPlanCoverage : public ::testing::TestWithParam<LinesCase> {};

TEST_P(LinesPlanCoverage, EveryOutputOnceEverySegmentInItsLine) {
  const LinesCase& c = GetParam();
  for (const NamedPlan& p : plans_for(c)) check_coverage(p.plan, c.shape(), c.fields, c.name() + ", " + p.name);
}

INSTANTIATE_TEST_SUITE_P(Shapes, LinesPlanCoverage, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<LinesCase>& info) { return info.param.name(); });

// The probe's measured cases get the plans the probe measured (lab/evidence/h200/
// 20261130b-short-lines/sl-1.txt), and the cap rule picks the cap that was faster there.
TEST(LinesPlan, CapRuleAndTheProbesPlans) {
  const GridShape cube128 = GridShape::make({128, 128, 128});
  const GridShape hyper48 = GridShape::make({48, 48, 48, 48});
  const GridShape frames = GridShape::make({120, 160}, 4);
  const GridShape cube256 = GridShape::make({256, 256, 256});
  EXPECT_EQ(choose_cap(cube128), 32);
  EXPECT_EQ(choose_cap(hyper48), 32);
  EXPECT_EQ(choose_cap(frames), 16);
  EXPECT_EQ(choose_cap(cube256), 16);

  const Plan a = make_plan(cube128, 1);
  EXPECT_EQ(describe(a.pass[0]),
            "axis 2 n 128 stride 1: S 32 x 4 segs, staged, 65536 lanes, 256 blocks of 256, 64 rows/block, "
            "33796 B shared");
  EXPECT_EQ(describe(a.pass[2]), "axis 0 n 128 stride 16384: S 32 x 4 segs, strided, 65536 lanes, 256 blocks of 256");
  const Plan b = make_plan(hyper48, 1);
  EXPECT_EQ(describe(b.pass[0]),
            "axis 3 n 48 stride 1: S 24 x 2 segs, staged, 221184 lanes, 864 blocks of 256, 128 rows/block, "
            "25348 B shared");
  const Plan f = make_plan(frames, 100);
  EXPECT_EQ(describe(f.pass[0]),
            "axis 1 n 160 stride 4: S 16 x 10 segs, staged, 480000 lanes, 2000 blocks of 256, 6 rows/block, "
            "15844 B shared");
  EXPECT_EQ(describe(f.pass[1]), "axis 0 n 120 stride 640: S 16 x 8 segs, strided, 512000 lanes, 2000 blocks of 256");
  EXPECT_EQ(describe(f), "cap 16: x S16x10 staged, y S16x8");
  EXPECT_FALSE(a.wide);
}

TEST(LinesPlan, BadInputIsAClearError) {
  const GridShape shape = GridShape::make({8, 8});
  EXPECT_THROW(make_plan(shape, 0), Error);
  PlanOptions o;
  o.cap = 8;
  EXPECT_THROW(make_plan(shape, 1, o), Error);
  o.cap = 128;
  EXPECT_THROW(make_plan(shape, 1, o), Error);
  EXPECT_THROW(make_plan(GridShape::make({std::int64_t{1} << 30}), 1), Unsupported);
  GridShape bad = shape;
  bad.extent[1] = 0;
  EXPECT_THROW(make_plan(bad, 1), Error);
}

// Batches of 2^32 values (planned, not run): 64-bit indexing, and the last lane of every
// pass reaches the batch's last value: strided passes (RGBA 4096^2 x 64: every pass
// strided, a row's 1024 lanes being more than a block) and a staged one (4194304 x 1024).
TEST(LinesPlan, WideIndexingAboveTwoToThe31) {
  const LinesCase big[] = {{{4096, 4096}, 4, 64}, {{4194304, 1024}, 1, 1}};
  int staged = 0, strided = 0;
  for (const LinesCase& c : big) {
    const Plan P = make_plan(c.shape(), c.fields);
    ASSERT_TRUE(P.wide) << c.name();
    EXPECT_EQ(P.values, std::int64_t{1} << 32) << c.name();
    if (c.fields > 1) {
      EXPECT_FALSE(make_plan(c.shape(), 1).wide) << c.name() << ": one field is below 2^31";
    }
    for (int p = 0; p < P.count; ++p) {
      const Pass& q = P.pass[p];
      with_segment(q.S, [&](auto Sc) {
        constexpr int S = decltype(Sc)::value;
        if (q.staged) {
          ++staged;
          const auto R = staged_rows(q, static_cast<std::uint64_t>(q.blocks - 1));
          EXPECT_EQ(static_cast<std::int64_t>(R.row0) * q.n * q.C + R.words, P.values) << c.name();
          return;
        }
        ++strided;
        const auto last = strided_segment<S>(q, static_cast<std::uint64_t>(q.tasks - 1));
        EXPECT_EQ(static_cast<std::int64_t>(last.base) + (q.n - 1) * q.s, P.values - 1) << c.name() << " pass " << p;
        EXPECT_EQ(last.s0, (q.segs - 1) * S) << c.name();
      });
    }
  }
  EXPECT_EQ(staged, 1);
  EXPECT_EQ(strided, 3);
}

// ---- the emulation against the oracle -------------------------------------------------------

class LinesEmulation : public ::testing::TestWithParam<std::tuple<LinesCase, Mode>> {};

TEST_P(LinesEmulation, MatchesOracle) {
  const auto& [c, mode] = GetParam();
  const GridShape shape = c.shape();
  const std::int64_t n = shape.values() * c.fields;
  const std::vector<float> in = splinebench::testing::random_values<float>(n, 7 + static_cast<std::uint64_t>(n));
  std::vector<double> ref(in.begin(), in.end());
  oracle::prefilter_f64(shape, c.fields, ref.data(), mode);
  const double limit = bound(shape);
  std::vector<float> narrow;
  for (const NamedPlan& p : plans_for(c)) {
    const std::string what = p.name + ": " + describe(p.plan);
    const std::vector<float> out = run_emulation(p.plan, in, mode);
    EXPECT_EQ(splinebench::testing::count_nan(out), 0) << what << ": unwritten or poisoned outputs";
    const double rel = splinebench::testing::rel_l2(out, ref);
    EXPECT_LE(rel, limit) << what;
    double& worst = worst_by_dims()[shape.dims];
    worst = std::max(worst, rel);
    if (p.name.rfind("rule", 0) == 0) narrow = out;
    if (p.name == "64-bit indexing") {
      // The same plan as the rule's but for the index width: the same bits.
      ASSERT_EQ(narrow.size(), out.size());
      EXPECT_EQ(std::memcmp(narrow.data(), out.data(), out.size() * sizeof(float)), 0) << what;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, LinesEmulation,
                         ::testing::Combine(::testing::ValuesIn(cases()), ::testing::ValuesIn(kAllModes)),
                         [](const ::testing::TestParamInfo<std::tuple<LinesCase, Mode>>& info) {
                           return std::get<0>(info.param).name() + "_" +
                                  std::string(to_string(std::get<1>(info.param)));
                         });

// Rows too long for the staged pass's shared memory (x 30000 values; 7000 RGBA samples,
// 28000 values) take the strided kernel, and stay within the bound.
TEST(LinesEmulationLong, LongRowsFallBackToStrided) {
  for (const LinesCase& c : {LinesCase{{3, 30000}, 1, 2}, LinesCase{{2, 7000}, 4, 1}}) {
    const GridShape shape = c.shape();
    const Plan plan = make_plan(shape, c.fields);
    EXPECT_FALSE(plan.pass[0].staged) << c.name();
    check_coverage(plan, shape, c.fields, c.name());
    const std::vector<float> in = splinebench::testing::random_values<float>(shape.values() * c.fields, 11);
    for (const Mode mode : kAllModes) {
      std::vector<double> ref(in.begin(), in.end());
      oracle::prefilter_f64(shape, c.fields, ref.data(), mode);
      const std::vector<float> out = run_emulation(plan, in, mode);
      EXPECT_EQ(splinebench::testing::count_nan(out), 0) << c.name();
      EXPECT_LE(splinebench::testing::rel_l2(out, ref), bound(shape)) << c.name() << " " << to_string(mode);
    }
  }
}

}  // namespace
