// gpu_naive, gpu_flex, gpu_flex_fixed, gpu_lines, gpu_texture and gpu_texture_binned against
// the double oracle: every D = 1..6, every mode, channels 1/2/4, field batches, odd sizes (1, 2, 3, 5,
// 17, 1000), white-noise samples, queries in range, outside the grid, non-finite and huge.
// The global-load implementations (gpu_naive, gpu_lines, and gpu_flex's default evaluation) must
// meet cpu_scalar's float32 tolerances (<= 1e-5 max|f|); gpu_texture the bound of its
// 8-bit blend weights (texture_field.cu), recomputed here from the oracle's coefficients.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "gpu_case.hpp"
#include "gpu_common/texture_field.hpp"
#include "splinebench/registry.hpp"

namespace splinebench::gpu_tests {
namespace {

std::vector<std::vector<std::int64_t>> test_shapes() {
  return {
      {1}, {2}, {3}, {5}, {17}, {1000},
      {1, 5}, {2, 3}, {17, 5}, {3, 1000}, {5, 17},
      {5, 17, 3}, {1, 2, 3}, {17, 17, 17}, {2, 5, 1},
      {5, 3, 17, 2}, {2, 2, 2, 2}, {3, 5, 2, 17},
      {3, 5, 2, 4, 3}, {1, 2, 3, 5, 2},
      {3, 2, 5, 3, 2, 4}, {1, 1, 1, 1, 1, 1}, {2, 3, 2, 2, 3, 2},
  };
}

std::vector<CaseSpec> all_cases() {
  std::vector<CaseSpec> cases;
  std::uint64_t seed = 100;
  for (const char* impl : {"gpu_naive", "gpu_flex", "gpu_flex_fixed", "gpu_lines", "gpu_texture", "gpu_texture_binned"})
    for (const auto& extents : test_shapes())
      for (Mode mode : kAllModes)
        for (int channels : {1, 2, 4}) {
          CaseSpec s;
          s.impl = impl;
          s.extents = extents;
          s.channels = channels;
          s.fields = channels == 1 ? 1 : channels == 2 ? 3 : 2;  // batches of fields too
          s.mode = mode;
          s.seed = seed++;
          cases.push_back(s);
        }
  return cases;
}

// gpu_texture's bound, from the oracle's coefficients instead of the implementation's
// own measurements (texture_field.cu states the derivation).
double texture_bound(const CaseSpec& spec, const CaseResult& r, double f32_interp_tolerance) {
  const GridShape shape = GridShape::make(spec.extents, spec.channels);
  const double factor = gpu::TextureField::interp_error_factor(shape, spec.fields, spec.mode);
  const double arith = (8.0 * shape.dims + 16.0) * 0x1p-24 * r.max_coeff;
  return (factor * r.max_coeff_diff + arith) / r.max_f + f32_interp_tolerance;
}

class GpuAccuracy : public ::testing::TestWithParam<CaseSpec> {};

TEST_P(GpuAccuracy, MatchesOracle) {
  SB_REQUIRE_CUDA_DEVICE();
  const CaseSpec& spec = GetParam();
  const CaseResult r = run_case(spec);
  EXPECT_EQ(r.nan_mismatches, 0) << "NaN exactly where a coordinate is non-finite";
  EXPECT_EQ(r.unwritten, 0) << "every output at a finite coordinate is written";
  EXPECT_LE(r.prefilter_rel_l2, r.tolerance.prefilter_rel_l2) << r.tolerance.basis;
  EXPECT_LE(r.interp_max_rel_to_maxf, r.tolerance.interp_max_rel_to_maxf) << r.tolerance.basis;
  const GridShape case_shape = GridShape::make(spec.extents, spec.channels);
  if (spec.impl.rfind("gpu_texture", 0) != 0) {  // global loads: the float32 tolerance
    const Tolerance f32 = make_implementation("cpu_scalar")->tolerance(case_shape);
    EXPECT_LE(r.interp_max_rel_to_maxf, f32.interp_max_rel_to_maxf) << f32.basis;
    EXPECT_LE(r.tolerance.interp_max_rel_to_maxf, f32.interp_max_rel_to_maxf) << r.tolerance.basis;
  } else {
    const GridShape shape = GridShape::make(spec.extents, spec.channels);
    const double f32 = make_implementation("cpu_scalar")->tolerance(shape).interp_max_rel_to_maxf;
    const double bound = texture_bound(spec, r, f32);
    EXPECT_LE(r.interp_max_rel_to_maxf, bound);
    // The implementation measures the same quantities in float on the device; its
    // tolerance must not be looser than the bound computed here.
    EXPECT_LE(r.tolerance.interp_max_rel_to_maxf, bound * 1.001 + 1e-12) << r.tolerance.basis;
    RecordProperty("error_over_bound", std::to_string(r.interp_max_rel_to_maxf / bound));
  }
  RecordProperty("interp_max_rel_to_maxf", std::to_string(r.interp_max_rel_to_maxf));
}

INSTANTIATE_TEST_SUITE_P(AllShapes, GpuAccuracy, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<CaseSpec>& info) { return case_name(info.param); });

// A larger white-noise volume with many queries: the texture error against its bound,
// printed so the GPU check log documents it.
TEST(GpuTextureError, NoiseVolumeWithinBound) {
  SB_REQUIRE_CUDA_DEVICE();
  for (Mode mode : kAllModes) {
    CaseSpec spec;
    spec.impl = "gpu_texture";
    spec.extents = {48, 40, 56};
    spec.mode = mode;
    spec.queries = 200000;
    spec.seed = 7;
    const CaseResult r = run_case(spec);
    const GridShape shape = GridShape::make(spec.extents, 1);
    const double factor = gpu::TextureField::interp_error_factor(shape, 1, mode);
    const double hw_bound = factor * r.max_coeff_diff / r.max_f;
    const double f32 = make_implementation("cpu_scalar")->tolerance(shape).interp_max_rel_to_maxf;
    std::cout << "texture error " << to_string(mode) << " 48x40x56 noise: max|s-s_ref|/max|f| = "
              << r.interp_max_rel_to_maxf << ", bound " << texture_bound(spec, r, f32) << " (hardware part "
              << hw_bound << " = " << factor << " * max|dc| " << r.max_coeff_diff << " / max|f| " << r.max_f
              << "), measured/hardware bound = " << r.interp_max_rel_to_maxf / hw_bound << "\n";
    EXPECT_EQ(r.nan_mismatches, 0);
    EXPECT_LE(r.interp_max_rel_to_maxf, texture_bound(spec, r, f32));
    // The bound is about the 8-bit weights, so the error must be visible but below it:
    // an error far under 2^-12 of the bound would mean the texture path is not in use.
    EXPECT_GT(r.interp_max_rel_to_maxf, hw_bound * 0x1p-12);
  }
}

}  // namespace
}  // namespace splinebench::gpu_tests
