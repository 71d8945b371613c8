// gpu_f64 through its f64 interface against the double oracle: fresh double noise
// (values no float can hold), double coordinates inside and outside the grid plus
// non-finite ones, every mode, D = 1..6, channels 1 and 4, batches of two fields.
// Criterion: prefilter relative L2 and interpolation max |s - s_ref| / max|f| within
// 1e-12 (both compute the same recursion and tap sums in double; the difference is
// rounding order, O(D 2^-53 3^D), and the step prefilter's pole horizon z^32, below
// 2^-59). The default f64 interface (an implementation without one) is checked too.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/accuracy.hpp"
#include "gpu_case.hpp"
#include "splinebench/error.hpp"
#include "splinebench/oracle_batch.hpp"
#include "splinebench/registry.hpp"

namespace splinebench::gpu_tests {
namespace {

constexpr double kF64Tolerance = 1e-12;

struct F64Case {
  std::vector<std::int64_t> extents;
  Mode mode;
  int channels;
};

std::vector<F64Case> f64_cases() {
  const std::vector<std::vector<std::int64_t>> shapes = {
      {1}, {2}, {3}, {5}, {1000}, {17, 5}, {3, 1000}, {2, 1}, {5, 17, 3}, {17, 17, 17},
      {5, 3, 17, 2}, {3, 5, 2, 17}, {3, 5, 2, 4, 3}, {3, 2, 5, 3, 2, 4}};
  std::vector<F64Case> cases;
  for (const auto& e : shapes)
    for (Mode mode : kAllModes)
      for (int channels : {1, 4}) cases.push_back({e, mode, channels});
  return cases;
}

std::string f64_case_name(const F64Case& c) {
  // Named like gpu_case.hpp's cases, so the device checks' sanitizer filter (one shape
  // per D, tools/device/checks.sh) reaches them.
  std::string s = "gpu_f64_D" + std::to_string(c.extents.size()) + "_";
  for (std::size_t d = 0; d < c.extents.size(); ++d) s += (d ? "x" : "") + std::to_string(c.extents[d]);
  return s + "_C" + std::to_string(c.channels) + "_" + std::string(to_string(c.mode));
}

// (D, n) double coordinates: half uniform in [0, N-1], half in the extension, then
// NaN and +-inf on a rotating axis every ninth query.
std::vector<double> f64_queries(const GridShape& shape, std::int64_t n, std::mt19937_64& rng) {
  const int D = shape.dims;
  std::vector<double> x(static_cast<std::size_t>(D * n));
  for (int d = 0; d < D; ++d) {
    const double last = static_cast<double>(shape.extent[d] - 1);
    std::uniform_real_distribution<double> inside(0.0, last), outside(-last - 3.0, 2.0 * last + 3.0);
    for (std::int64_t q = 0; q < n; ++q) x[d * n + q] = q < n / 2 ? inside(rng) : outside(rng);
  }
  const double specials[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity()};
  for (std::int64_t q = 4, k = 0; q < n; q += 9, ++k) x[(k % D) * n + q] = specials[k % 3];
  return x;
}

class GpuF64 : public ::testing::TestWithParam<F64Case> {};

TEST_P(GpuF64, F64InterfaceMatchesOracle) {
  SB_REQUIRE_CUDA_DEVICE();
  const F64Case& c = GetParam();
  const GridShape shape = GridShape::make(c.extents, c.channels);
  const std::int64_t fields = 2, n = 2000;
  std::mt19937_64 rng(0x5eed0000u + std::hash<std::string>{}(f64_case_name(c)));
  std::uniform_real_distribution<double> noise(-1.0, 1.0);
  std::vector<double> samples(static_cast<std::size_t>(fields * shape.values()));
  for (double& v : samples) v = noise(rng);
  const std::vector<double> coords = f64_queries(shape, n, rng);

  std::vector<double> ref_coeffs = samples;
  oracle::prefilter_f64(shape, fields, ref_coeffs.data(), c.mode);
  std::vector<double> ref_values(static_cast<std::size_t>(fields * n * c.channels));
  oracle::evaluate_f64(shape, fields, ref_coeffs.data(), c.mode, coords.data(), n, ref_values.data());

  const ImplementationPtr impl = make_implementation("gpu_f64");
  ASSERT_TRUE(impl->supports_f64());
  PhaseTimes times;
  impl->prepare_f64(shape, fields, samples.data(), c.mode, /*prefilter=*/true, times);
  std::vector<double> coeffs(samples.size());
  testing::poison(coeffs);
  impl->read_coefficients_f64(coeffs.data(), times);
  std::vector<double> values(ref_values.size());
  testing::poison(values);
  impl->evaluate_f64(coords.data(), n, values.data(), times);
  impl->release();

  const double max_f = testing::max_abs(samples);
  EXPECT_EQ(testing::count_nan(coeffs), 0);
  EXPECT_EQ(testing::nan_mismatches(values, ref_values), 0) << "NaN exactly at the non-finite coordinates";
  const double prefilter_rel_l2 = testing::rel_l2(coeffs, ref_coeffs);
  const double interp = testing::max_abs_diff(values, ref_values) / max_f;
  EXPECT_LE(prefilter_rel_l2, kF64Tolerance);
  EXPECT_LE(interp, kF64Tolerance);
  RecordProperty("prefilter_rel_l2", std::to_string(prefilter_rel_l2));
  RecordProperty("interp_max_rel_to_maxf", std::to_string(interp));

  // Coefficients handed in: read back bit for bit, evaluated as the oracle does.
  impl->prepare_f64(shape, fields, ref_coeffs.data(), c.mode, /*prefilter=*/false, times);
  testing::poison(coeffs);
  impl->read_coefficients_f64(coeffs.data(), times);
  EXPECT_EQ(coeffs, ref_coeffs);
  testing::poison(values);
  impl->evaluate_f64(coords.data(), n, values.data(), times);
  EXPECT_LE(testing::max_abs_diff(values, ref_values) / max_f, kF64Tolerance);
  impl->release();
}

INSTANTIATE_TEST_SUITE_P(Shapes, GpuF64, ::testing::ValuesIn(f64_cases()),
                         [](const ::testing::TestParamInfo<F64Case>& info) { return f64_case_name(info.param); });

// The f32 interface of gpu_f64: only the outputs are rounded, so the errors are those
// of one rounding (its tolerance), far below the f32 implementations'.
TEST(GpuF64, F32InterfaceRoundsOnlyTheOutputs) {
  SB_REQUIRE_CUDA_DEVICE();
  for (Mode mode : kAllModes) {
    CaseSpec spec;
    spec.impl = "gpu_f64";
    spec.extents = {17, 9, 23};
    spec.channels = 4;
    spec.fields = 2;
    spec.mode = mode;
    spec.queries = 20000;
    spec.seed = 91;
    const CaseResult r = run_case(spec);
    EXPECT_EQ(r.nan_mismatches, 0);
    EXPECT_EQ(r.unwritten, 0);
    EXPECT_LE(r.prefilter_rel_l2, r.tolerance.prefilter_rel_l2) << r.tolerance.basis;
    EXPECT_LE(r.interp_max_rel_to_maxf, r.tolerance.interp_max_rel_to_maxf) << r.tolerance.basis;
    EXPECT_LE(r.tolerance.interp_max_rel_to_maxf, 2.5e-7);  // one rounding: 2^-24 x 1.5491^3
  }
}

// Implementations without an f64 path refuse the f64 interface by name (no device needed).
TEST(F64Interface, DefaultRefusesClearly) {
  const ImplementationPtr impl = make_implementation("cpu_scalar");
  EXPECT_FALSE(impl->supports_f64());
  const GridShape shape = GridShape::make({4}, 1);
  const std::vector<double> data(4, 1.0);
  PhaseTimes times;
  try {
    impl->prepare_f64(shape, 1, data.data(), Mode::mirror, true, times);
    FAIL() << "prepare_f64 did not throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cpu_scalar: no f64 path"), std::string::npos) << e.what();
  }
  std::vector<double> out(4);
  EXPECT_THROW(impl->read_coefficients_f64(out.data(), times), Error);
  EXPECT_THROW(impl->evaluate_f64(data.data(), 1, out.data(), times), Error);
}

// The reference's f64 interface is the oracle itself, bit for bit (no device needed).
TEST(F64Interface, ReferenceIsTheOracle) {
  const GridShape shape = GridShape::make({7, 5}, 2);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> noise(-1.0, 1.0);
  std::vector<double> samples(static_cast<std::size_t>(shape.values()));
  for (double& v : samples) v = noise(rng);
  const std::vector<double> coords = f64_queries(shape, 300, rng);
  std::vector<double> ref = samples;
  oracle::prefilter_f64(shape, 1, ref.data(), Mode::half);
  std::vector<double> ref_values(600);
  oracle::evaluate_f64(shape, 1, ref.data(), Mode::half, coords.data(), 300, ref_values.data());

  const ImplementationPtr impl = make_implementation("reference");
  ASSERT_TRUE(impl->supports_f64());
  PhaseTimes times;
  impl->prepare_f64(shape, 1, samples.data(), Mode::half, true, times);
  std::vector<double> coeffs(samples.size()), values(600);
  impl->read_coefficients_f64(coeffs.data(), times);
  impl->evaluate_f64(coords.data(), 300, values.data(), times);
  EXPECT_EQ(coeffs, ref);
  EXPECT_EQ(testing::nan_mismatches(values, ref_values), 0);
  EXPECT_EQ(testing::max_abs_diff(values, ref_values), 0.0);
}

}  // namespace
}  // namespace splinebench::gpu_tests
