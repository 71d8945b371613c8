// cpu_sse and cpu_simd against the double oracle through the common interface, on
// fresh data (never zeros) with NaN-poisoned outputs: every D 1..6, every mode,
// channels 1/2/4, three fields per batch; lengths that are not multiples of any
// vector width (1, 2, 3, 5, 7, 17, ...) alone and as axes of multi-D grids, shapes
// that take every kernel path (full vectors, leftover lanes, partial row groups,
// lines too long to transpose); queries inside, outside (the extension), on the
// edges, in counts that leave a partial vector, and at NaN/inf/huge coordinates.
//
// Bounds: the implementations' declared Tolerance, required to be no looser than
// cpu_scalar's (splinebench/f32_accuracy.hpp: prefilter rel L2 <= 8u RMS
// per pass times the later passes' noise gain, ~2 per axis on smooth data; on white
// noise the errors only add per pass, <= 8u D, asserted as well; interpolation
// max |s - s_ref| <= 1e-5 max|f|). Why the SIMD kernels obey the same model:
// impls/cpu_common/cpu_vector_base.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "common/accuracy.hpp"
#include "common/implementation_check.hpp"
#include "common/printers.hpp"
#include "cpu_common/query_bins.hpp"
#include "simd/interior_rows.hpp"
#include "splinebench/datasets.hpp"
#include "splinebench/error.hpp"
#include "splinebench/f32_accuracy.hpp"
#include "splinebench/registry.hpp"

using namespace splinebench;
using namespace splinebench::testing;
using datasets::FieldKind;

namespace {

constexpr double kSpecInterpBound = 1e-5;
// White-noise fields: relative errors add per pass (f32_accuracy.hpp).
double noise_prefilter_bound(int dims) { return f32_accuracy::kPassRmsError * dims; }

using Extents = std::vector<std::int64_t>;

void expect_within_declared(const std::string& impl_name, const CheckCase& c, int threads = 1) {
  ImplementationPtr impl = make_implementation(impl_name);
  impl->configure(Options{threads});
  ASSERT_TRUE(impl->availability().ok) << impl->availability().reason;
  const Tolerance declared = impl->tolerance(c.shape);
  ASSERT_LE(declared.prefilter_rel_l2, f32_accuracy::prefilter_rel_l2_bound(c.shape));
  ASSERT_LE(declared.interp_max_rel_to_maxf, kSpecInterpBound);
  const CheckResult r = check_against_oracle(*impl, c);
  std::printf("[ measured ] %s %s %s C=%d %s: prefilter rel L2 %.3g, interp max/max|f| %.3g\n", impl_name.c_str(),
              std::string(to_string(c.mode)).c_str(), c.shape.to_string().c_str(), c.shape.channels,
              std::string(datasets::to_string(c.kind)).c_str(), r.prefilter_rel_l2, r.interp_max_rel_to_maxf);
  EXPECT_EQ(r.unwritten_coefficients, 0) << "coefficients left unwritten (NaN poison survived)";
  EXPECT_EQ(r.unwritten_values, 0) << "values left unwritten (NaN poison survived)";
  EXPECT_LE(r.prefilter_rel_l2, declared.prefilter_rel_l2);
  if (c.kind == FieldKind::noise) {
    EXPECT_LE(r.prefilter_rel_l2, noise_prefilter_bound(c.shape.dims));
  }
  EXPECT_LE(r.interp_max_rel_to_maxf, declared.interp_max_rel_to_maxf);
}

std::string case_name(const std::string& impl, Mode mode, const Extents& e, int channels, FieldKind kind) {
  return impl + "_" + std::string(to_string(mode)) + "_" + GridShape::make(e).to_string() + "_C" +
         std::to_string(channels) + "_" + std::string(datasets::to_string(kind));
}

}  // namespace

class SimdVsOracle
    : public ::testing::TestWithParam<std::tuple<std::string, Mode, Extents, int, FieldKind>> {};

TEST_P(SimdVsOracle, PrefilterAndInterpolationWithinBounds) {
  const auto& [impl_name, mode, extents, channels, kind] = GetParam();
  CheckCase c;
  c.shape = GridShape::make(extents, channels);
  c.mode = mode;
  c.kind = kind;
  c.fields = 3;
  c.queries_per_pattern = 37;  // 111 queries: a partial vector at every width
  c.seed = 2000 + c.shape.values() * 7 + static_cast<int>(mode) * 3 + static_cast<int>(kind);
  expect_within_declared(impl_name, c);
}

INSTANTIATE_TEST_SUITE_P(
    AllCases, SimdVsOracle,
    ::testing::Combine(::testing::Values("cpu_sse", "cpu_simd"),
                       ::testing::Values(Mode::mirror, Mode::half, Mode::periodic),
                       ::testing::Values(Extents{1}, Extents{2}, Extents{3}, Extents{5}, Extents{7}, Extents{17},
                                         Extents{1000},                                                    //
                                         Extents{1, 7}, Extents{2, 17}, Extents{3, 5}, Extents{17, 3},     //
                                         Extents{7, 33}, Extents{40, 37}, Extents{5, 1},                   //
                                         Extents{1, 2, 3}, Extents{7, 5, 17}, Extents{17, 3, 2},           //
                                         Extents{3, 20, 40}, Extents{2, 7, 1},                             //
                                         Extents{3, 5, 2, 7}, Extents{5, 1, 3, 2},                         //
                                         Extents{2, 3, 5, 3, 2}, Extents{3, 1, 2, 7, 2},                   //
                                         Extents{3, 2, 5, 3, 2, 2}, Extents{2, 3, 2, 3, 2, 5}),
                       ::testing::Values(1, 2, 4), ::testing::Values(FieldKind::smooth, FieldKind::noise)),
    [](const auto& info) {
      return case_name(std::get<0>(info.param), std::get<1>(info.param), std::get<2>(info.param),
                       std::get<3>(info.param), std::get<4>(info.param));
    });

// Lines longer than the transposed scratch block (2^16 samples) take the line-by-line
// path, along the contiguous axis and along a strided one with leftover lanes.
class SimdLongLines : public ::testing::TestWithParam<std::tuple<std::string, Mode>> {};

TEST_P(SimdLongLines, WithinBounds) {
  const auto& [impl_name, mode] = GetParam();
  for (const Extents& e : {Extents{70001}, Extents{70001, 3}}) {
    CheckCase c;
    c.shape = GridShape::make(e, 2);
    c.mode = mode;
    c.kind = FieldKind::smooth;
    c.fields = 1;
    c.queries_per_pattern = 101;
    c.seed = 77;
    expect_within_declared(impl_name, c);
  }
}

INSTANTIATE_TEST_SUITE_P(AllModes, SimdLongLines,
                         ::testing::Combine(::testing::Values("cpu_sse", "cpu_simd"),
                                            ::testing::Values(Mode::mirror, Mode::half, Mode::periodic)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + std::string(to_string(std::get<1>(info.param)));
                         });

// Query counts below and between vector widths, and coordinates the vector path
// leaves to the scalar one (NaN, +-inf, |x| >= 2^22) mixed into vectors of ordinary
// ones: NaN exactly where a coordinate is non-finite, oracle values everywhere else.
namespace {
// Sets SPLINEBENCH_QUERY_BINNING (cpu_common/query_bins.hpp) for a scope, then restores it.
struct BinningScope {
  explicit BinningScope(const char* value) {
    const char* old = std::getenv("SPLINEBENCH_QUERY_BINNING");
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv("SPLINEBENCH_QUERY_BINNING", value, 1);
  }
  ~BinningScope() {
    if (had_) {
      setenv("SPLINEBENCH_QUERY_BINNING", old_.c_str(), 1);
    } else {
      unsetenv("SPLINEBENCH_QUERY_BINNING");
    }
  }
  bool had_ = false;
  std::string old_;
};

void check_odd_counts_and_specials(const std::string& impl_name);
}  // namespace

class SimdQueries : public ::testing::TestWithParam<std::string> {};

TEST_P(SimdQueries, OddCountsAndSpecialCoordinates) { check_odd_counts_and_specials(GetParam()); }

// The same with cpu_simd's query binning forced on: every batch, however small, is
// bin-sorted into records (3-D and below: 4 floats; 4-D and up: 8) and the kernel
// writes each value at its record's query index.
TEST(SimdQueriesBinned, OddCountsAndSpecialCoordinates) {
  const BinningScope scope("on");
  check_odd_counts_and_specials("cpu_simd");
}

INSTANTIATE_TEST_SUITE_P(Both, SimdQueries, ::testing::Values("cpu_sse", "cpu_simd"),
                         [](const auto& info) { return info.param; });

namespace {
void check_odd_counts_and_specials(const std::string& impl_name) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {nan, inf, -inf, 4194304.0f, -4194304.0f, 4194303.5f, 1e7f, -3e9f, 1e30f, -1e38f};
  for (const Extents& e : {Extents{9}, Extents{6, 5}, Extents{4, 5, 3}, Extents{2, 3, 2, 3, 2, 3}})
    for (const int channels : {1, 2, 4})
      for (const Mode mode : kAllModes)
        for (const std::int64_t n : {1, 2, 3, 5, 7, 17, 40}) {
          const GridShape shape = GridShape::make(e, channels);
          const int D = shape.dims;
          const std::int64_t fields = 2;
          std::vector<float> coords = datasets::make_queries(datasets::QueryPattern::outside, shape, n, 5 + n);
          std::vector<bool> is_nan(static_cast<std::size_t>(n), false);
          for (std::int64_t q = 1; q < n; q += 3) {  // every third query, on a rotating axis
            const float s = specials[(q / 3) % 10];
            coords[((q / 3) % D) * n + q] = s;
            is_nan[q] = !std::isfinite(s);
          }
          const std::vector<float> field = datasets::make_field(FieldKind::smooth, shape, fields, 4);
          PhaseTimes times;
          ImplementationPtr impl = make_implementation(impl_name);
          impl->prepare(shape, fields, field.data(), mode, true, times);
          std::vector<float> values(static_cast<std::size_t>(fields * n * channels));
          poison(values);
          impl->evaluate(coords.data(), n, values.data(), times);

          std::vector<double> c = to_double(field);
          oracle::prefilter_f64(shape, fields, c.data(), mode);
          std::vector<double> expected(values.size());
          oracle::evaluate_f64(shape, fields, c.data(), mode, coords.data(), n, expected.data());
          const double tol = kSpecInterpBound * max_abs(field);
          for (std::int64_t f = 0; f < fields; ++f)
            for (std::int64_t q = 0; q < n; ++q)
              for (int ch = 0; ch < channels; ++ch) {
                const std::size_t i = static_cast<std::size_t>((f * n + q) * channels + ch);
                if (is_nan[q]) {
                  EXPECT_TRUE(std::isnan(values[i])) << shape.to_string() << " query " << q;
                } else {
                  EXPECT_NEAR(values[i], expected[i], tol)
                      << impl_name << " " << to_string(mode) << " " << shape.to_string() << " C=" << channels
                      << " n=" << n << " query " << q;
                }
              }
        }
}
}  // namespace

// Grids larger than L2 with many queries: cpu_simd bin-sorts the queries before
// evaluating (cpu_common/query_bins.hpp) and scatters the values back; results must
// not change, on one thread and on several.
class SimdBinnedQueries : public ::testing::TestWithParam<Mode> {};

TEST_P(SimdBinnedQueries, LargeGridsManyQueries) {
  struct Case {
    Extents extents;
    int channels;
    std::int64_t per_pattern;
  };
  for (const Case& k : {Case{{96, 96, 96}, 1, 10000}, Case{{24, 24, 24, 24}, 2, 2000}, Case{{1024, 640}, 1, 30000}})
    for (const int threads : {1, 2}) {
      CheckCase c;
      c.shape = GridShape::make(k.extents, k.channels);
      c.mode = GetParam();
      c.kind = FieldKind::smooth;
      c.fields = 1;
      c.queries_per_pattern = k.per_pattern;
      c.seed = 91;
      ASSERT_TRUE(cpu::plan_bins(c.shape, 3 * k.per_pattern).enabled) << c.shape.to_string();
      expect_within_declared("cpu_simd", c, threads);
    }
}

// Binning forced on for small grids of every D (records of 4 and 8 floats), channel
// count and mode, on one thread and on two: the declared bounds, as without binning.
TEST(SimdBinnedForced, EveryDimensionModeAndChannelCount) {
  const BinningScope scope("on");
  for (const Extents& e : {Extents{17}, Extents{7, 33}, Extents{7, 5, 17}, Extents{3, 5, 2, 7},
                           Extents{2, 3, 5, 3, 2}, Extents{3, 2, 5, 3, 2, 2}})
    for (const int channels : {1, 2, 4})
      for (const Mode mode : kAllModes)
        for (const int threads : {1, 2}) {
          CheckCase c;
          c.shape = GridShape::make(e, channels);
          c.mode = mode;
          c.kind = FieldKind::noise;
          c.fields = 2;
          c.queries_per_pattern = 37;
          c.seed = 500 + channels;
          ASSERT_TRUE(cpu::plan_bins(c.shape, 3 * c.queries_per_pattern, cpu::bin_policy_from_env()).enabled);
          expect_within_declared("cpu_simd", c, threads);
        }
}

TEST(SimdBinningPolicy, FromEnvironment) {
  {
    const BinningScope scope("off");
    EXPECT_EQ(cpu::bin_policy_from_env(), cpu::BinPolicy::off);
    EXPECT_FALSE(cpu::plan_bins(GridShape::make({96, 96, 96}), 30000, cpu::bin_policy_from_env()).enabled);
  }
  {
    const BinningScope scope("auto");
    EXPECT_EQ(cpu::bin_policy_from_env(), cpu::BinPolicy::automatic);
    EXPECT_TRUE(cpu::plan_bins(GridShape::make({96, 96, 96}), 30000, cpu::bin_policy_from_env()).enabled);
  }
  {
    const BinningScope scope("sometimes");
    EXPECT_THROW(cpu::bin_policy_from_env(), Error);
  }
}

INSTANTIATE_TEST_SUITE_P(AllModes, SimdBinnedQueries, ::testing::Values(Mode::mirror, Mode::half, Mode::periodic),
                         [](const auto& info) { return std::string(to_string(info.param)); });

// Every lane's taps along the contiguous axis need no folding: the paired-gather path
// of cpu_simd and the row-load path of cpu_sse (interior_rows.hpp).
class SimdInteriorRows : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(SimdInteriorRows, MatchOracle) {
  const auto& [impl_name, channels] = GetParam();
  for (const Extents& e : interior_row_shapes())
    for (const Mode mode : kAllModes) {
      const GridShape shape = GridShape::make(e, channels);
      ImplementationPtr impl = make_implementation(impl_name);
      const InteriorRowCheck r = check_interior_rows(*impl, shape, mode);
      EXPECT_EQ(r.unwritten, 0);
      EXPECT_LE(r.max_error, r.bound) << impl_name << " " << to_string(mode) << " " << shape.to_string()
                                      << " C=" << channels;
    }
}

INSTANTIATE_TEST_SUITE_P(Both, SimdInteriorRows,
                         ::testing::Combine(::testing::Values("cpu_sse", "cpu_simd"), ::testing::Values(1, 2, 4)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_C" + std::to_string(std::get<1>(info.param));
                         });
