// cpu_scalar against the double oracle on fresh data (never zeros), through the common
// interface as the harness drives it: every D 1..6, every mode, channels 1/2/4, three
// fields per batch, short lines (N = 1..4) alone and as one axis of multi-D grids, odd
// sizes; queries inside, outside (the extension) and on the edges; NaN-poisoned outputs.
//
// Bounds (cpu_scalar's declared Tolerance, which must be no looser than these):
//   prefilter rel L2 <= f32_accuracy::prefilter_rel_l2_bound(shape): per-pass rounding
//     (white, <= 8u RMS) amplified by the later passes' RMS noise gain (~2 per axis).
//     This depends on the data: smooth fields (coefficients ~ samples) see the full
//     amplification, ~3e-6 in 6-D; on white noise the samples are amplified exactly like
//     the rounding errors, so there the relative error only adds up per pass: <= 8u D,
//     asserted as well (4.8e-7 in 1-D, 2.9e-6 in 6-D);
//   interpolation max |s - s_ref| <= 1e-5 max|f| (cpu_scalar's stated estimate), on smooth
//     and on noise fields.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "common/accuracy.hpp"
#include "common/implementation_check.hpp"
#include "common/printers.hpp"
#include "splinebench/datasets.hpp"
#include "splinebench/error.hpp"
#include "splinebench/f32_accuracy.hpp"
#include "splinebench/registry.hpp"

using namespace splinebench;
using namespace splinebench::testing;
using datasets::FieldKind;

namespace {

constexpr double kSpecInterpBound = 1e-5;
// White-noise fields: relative errors add per pass (see the header comment).
double noise_prefilter_bound(int dims) { return f32_accuracy::kPassRmsError * dims; }

ImplementationPtr make_cpu_scalar() { return make_implementation("cpu_scalar"); }

}  // namespace

using Extents = std::vector<std::int64_t>;
class CpuScalarVsOracle : public ::testing::TestWithParam<std::tuple<Mode, Extents, int, FieldKind>> {};

TEST_P(CpuScalarVsOracle, PrefilterAndInterpolationWithinBounds) {
  const auto& [mode, extents, channels, kind] = GetParam();
  CheckCase c;
  c.shape = GridShape::make(extents, channels);
  c.mode = mode;
  c.kind = kind;
  c.fields = 3;
  c.queries_per_pattern = c.shape.dims >= 5 ? 40 : 100;
  c.seed = 1000 + c.shape.values() * 7 + static_cast<int>(mode) * 3 + static_cast<int>(kind);

  ImplementationPtr impl = make_cpu_scalar();
  const Tolerance declared = impl->tolerance(c.shape);
  ASSERT_LE(declared.prefilter_rel_l2, f32_accuracy::prefilter_rel_l2_bound(c.shape))
      << "declared tolerance looser than the bound";
  ASSERT_LE(declared.interp_max_rel_to_maxf, kSpecInterpBound) << "declared tolerance looser than the bound";

  const CheckResult r = check_against_oracle(*impl, c);
  std::printf("[ measured ] %s %s C=%d %s: prefilter rel L2 %.3g, interp max/max|f| %.3g\n",
              std::string(to_string(mode)).c_str(), c.shape.to_string().c_str(), channels,
              std::string(datasets::to_string(kind)).c_str(), r.prefilter_rel_l2, r.interp_max_rel_to_maxf);
  EXPECT_EQ(r.unwritten_coefficients, 0) << "coefficients left unwritten (NaN poison survived)";
  EXPECT_EQ(r.unwritten_values, 0) << "values left unwritten (NaN poison survived)";
  EXPECT_LE(r.prefilter_rel_l2, declared.prefilter_rel_l2);
  if (kind == FieldKind::noise) {
    EXPECT_LE(r.prefilter_rel_l2, noise_prefilter_bound(c.shape.dims));
  }
  EXPECT_LE(r.interp_max_rel_to_maxf, declared.interp_max_rel_to_maxf);
}

// Short axes (1..4) alone and mixed with longer odd ones, in every D.
INSTANTIATE_TEST_SUITE_P(
    AllCases, CpuScalarVsOracle,
    ::testing::Combine(::testing::Values(Mode::mirror, Mode::half, Mode::periodic),
                       ::testing::Values(Extents{1}, Extents{2}, Extents{3}, Extents{4}, Extents{257},  //
                                         Extents{1, 7}, Extents{2, 9}, Extents{3, 4}, Extents{33, 17},  //
                                         Extents{1, 2, 3}, Extents{4, 9, 2}, Extents{17, 3, 11},        //
                                         Extents{3, 4, 2, 5}, Extents{1, 6, 4, 3},                      //
                                         Extents{2, 3, 4, 3, 2}, Extents{4, 1, 3, 2, 5},                //
                                         Extents{3, 2, 4, 1, 3, 2}, Extents{4, 3, 4, 3, 4, 3}),
                       ::testing::Values(1, 2, 4), ::testing::Values(FieldKind::smooth, FieldKind::noise)),
    [](const auto& info) {
      return std::string(to_string(std::get<0>(info.param))) + "_" +
             GridShape::make(std::get<1>(info.param)).to_string() + "_C" +
             std::to_string(std::get<2>(info.param)) + "_" +
             std::string(datasets::to_string(std::get<3>(info.param)));
    });

// Coefficients handed in with prefilter = false give bit-identical values to the
// prefiltering path (the same floats feed the same evaluation).
TEST(CpuScalar, GivenCoefficientsPathMatchesPrefilterPath) {
  for (const Mode mode : kAllModes)
    for (const Extents& extents : {Extents{6}, Extents{5, 3}, Extents{3, 2, 4, 2}}) {
      const GridShape shape = GridShape::make(extents, 2);
      CheckCase c{shape, mode, FieldKind::noise, 2, 50, 17};
      ImplementationPtr impl = make_cpu_scalar();
      const CheckResult r = check_against_oracle(*impl, c);

      ImplementationPtr again = make_cpu_scalar();
      PhaseTimes times;
      again->prepare(shape, c.fields, r.coefficients.data(), mode, /*prefilter=*/false, times);
      EXPECT_FALSE(times.has(phase::prefilter)) << "prefilter=false must not prefilter";
      std::vector<float> coeffs(r.coefficients.size());
      poison(coeffs);
      again->read_coefficients(coeffs.data(), times);
      EXPECT_EQ(coeffs, r.coefficients);
      std::vector<float> values(r.values.size());
      poison(values);
      again->evaluate(r.coords.data(), r.queries, values.data(), times);
      EXPECT_EQ(values, r.values) << to_string(mode) << " " << shape.to_string();
    }
}

// A field's results do not depend on the other fields of its batch.
TEST(CpuScalar, FieldsInABatchAreIndependent) {
  const GridShape shape = GridShape::make({5, 4, 3}, 4);
  const std::int64_t fields = 3;
  const std::vector<float> batch = datasets::make_field(FieldKind::noise, shape, fields, 5);
  const std::vector<float> coords = mixed_queries(shape, 60, 8);
  const std::int64_t n = static_cast<std::int64_t>(coords.size()) / shape.dims;
  PhaseTimes times;
  ImplementationPtr impl = make_cpu_scalar();
  impl->prepare(shape, fields, batch.data(), Mode::half, true, times);
  std::vector<float> all(static_cast<std::size_t>(fields * n * shape.channels));
  impl->evaluate(coords.data(), n, all.data(), times);
  for (std::int64_t f = 0; f < fields; ++f) {
    ImplementationPtr single = make_cpu_scalar();
    single->prepare(shape, 1, batch.data() + f * shape.values(), Mode::half, true, times);
    std::vector<float> one(static_cast<std::size_t>(n * shape.channels));
    single->evaluate(coords.data(), n, one.data(), times);
    EXPECT_TRUE(std::equal(one.begin(), one.end(), all.begin() + f * n * shape.channels)) << "field " << f;
  }
}

// NaN or infinite coordinates (on any axis) give NaN in every channel of every field;
// the finite queries around them are unaffected.
TEST(CpuScalar, NonFiniteCoordinatesGiveNaN) {
  const float bad[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                       -std::numeric_limits<float>::infinity()};
  for (const Extents& extents : {Extents{9}, Extents{4, 5, 3}, Extents{2, 3, 2, 3, 2, 3}})
    for (const int channels : {1, 4}) {
      const GridShape shape = GridShape::make(extents, channels);
      const int D = shape.dims;
      const std::int64_t fields = 2;
      std::vector<float> coords = mixed_queries(shape, 20, 3);
      const std::int64_t n = static_cast<std::int64_t>(coords.size()) / D;
      // Every third query gets a non-finite value on one axis.
      std::vector<bool> is_bad(static_cast<std::size_t>(n), false);
      for (std::int64_t q = 0; q < n; q += 3) {
        coords[(q / 3 % D) * n + q] = bad[q / 3 % 3];
        is_bad[q] = true;
      }
      const std::vector<float> field = datasets::make_field(FieldKind::smooth, shape, fields, 4);
      PhaseTimes times;
      ImplementationPtr impl = make_cpu_scalar();
      impl->prepare(shape, fields, field.data(), Mode::mirror, true, times);
      std::vector<float> values(static_cast<std::size_t>(fields * n * channels));
      impl->evaluate(coords.data(), n, values.data(), times);

      std::vector<double> c = to_double(field);
      oracle::prefilter_f64(shape, fields, c.data(), Mode::mirror);
      std::vector<double> expected(values.size());
      oracle::evaluate_f64(shape, fields, c.data(), Mode::mirror, coords.data(), n, expected.data());
      for (std::int64_t f = 0; f < fields; ++f)
        for (std::int64_t q = 0; q < n; ++q)
          for (int ch = 0; ch < channels; ++ch) {
            const std::int64_t i = (f * n + q) * channels + ch;
            if (is_bad[q]) {
              EXPECT_TRUE(std::isnan(values[i])) << shape.to_string() << " query " << q;
              EXPECT_TRUE(std::isnan(expected[i])) << "oracle, query " << q;
            } else {
              EXPECT_NEAR(values[i], expected[i], kSpecInterpBound * max_abs(field)) << "query " << q;
            }
          }
    }
}

// Bad input is refused with a clear error, not undefined behaviour.
TEST(CpuScalar, RejectsBadInput) {
  ImplementationPtr impl = make_cpu_scalar();
  PhaseTimes times;
  const std::vector<float> data(64, 1.0f);
  GridShape empty_axis = GridShape::make({4, 4});
  empty_axis.extent[1] = 0;
  EXPECT_THROW(impl->prepare(empty_axis, 1, data.data(), Mode::mirror, true, times), Error);
  const GridShape three_channels = GridShape::make({4}, 3);
  EXPECT_THROW(impl->prepare(three_channels, 1, data.data(), Mode::mirror, true, times), Unsupported);
  EXPECT_THROW(GridShape::make({2, 2, 2, 2, 2, 2, 2}), Error);
}

// An axis longer than 2^24 has an extension period that float cannot represent
// (mirror 2N-2, half 2N, periodic N, N odd): folding a coordinate beyond one period must
// still use the exact period. Coefficients are given (prefilter = false) to keep this
// fast; the oracle evaluates the same coefficients.
TEST(CpuScalar, FoldsFarCoordinatesOnAxesLongerThanFloatPrecision) {
  const std::int64_t n = (std::int64_t{1} << 24) + 3;
  const GridShape shape = GridShape::make({n});
  const std::vector<float> coeffs = random_values<float>(n, 9);
  const std::vector<double> coeffs_d = to_double(coeffs);
  // Floats (even integers and a few fractions) beyond one period on both sides.
  const std::vector<float> coords{2.0e7f, 3.0e7f, 3.4e7f, 5.0e7f, -2.0e7f, -3.4e7f, 6.7e7f + 4};
  const auto q = static_cast<std::int64_t>(coords.size());
  for (const Mode mode : kAllModes) {
    ImplementationPtr impl = make_cpu_scalar();
    PhaseTimes times;
    impl->prepare(shape, 1, coeffs.data(), mode, /*prefilter=*/false, times);
    std::vector<float> values(static_cast<std::size_t>(q));
    poison(values);
    impl->evaluate(coords.data(), q, values.data(), times);
    std::vector<double> expected(static_cast<std::size_t>(q));
    oracle::evaluate_f64(shape, 1, coeffs_d.data(), mode, coords.data(), q, expected.data());
    // Same coefficients: only the float weights and tap sum differ, <= (4 taps + 1 product
    // + 8 for the weight formulas) u sum w|c| <= 13 u max|c|; a wrong fold is O(max|c|).
    EXPECT_LE(max_abs_diff(values, expected), 13 * f32_accuracy::kUnitRoundoff * max_abs(coeffs))
        << to_string(mode);
  }
}
