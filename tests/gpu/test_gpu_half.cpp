// gpu_half_f16 / gpu_half_bf16 against the double oracle: the storage bound recomputed
// here from the oracle's coefficients (independently of the implementation's own
// device measurements), the storage rounding visible in both the coefficients read
// back and the values (so the reduced storage is really in use), and f16's range
// refused with a clear message.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "common/accuracy.hpp"
#include "gpu_case.hpp"
#include "gpu_half/half_tolerance.hpp"
#include "splinebench/datasets.hpp"
#include "splinebench/error.hpp"
#include "splinebench/f32_accuracy.hpp"
#include "splinebench/registry.hpp"

namespace splinebench::gpu_tests {
namespace {

gpu::StorageFormat format_for(const std::string& impl) {
  return impl == "gpu_half_f16" ? gpu::f16_format() : gpu::bf16_format();
}

std::vector<CaseSpec> half_cases() {
  const std::vector<std::vector<std::int64_t>> shapes = {
      {1}, {3}, {1000}, {17, 5}, {3, 1000}, {5, 17, 3}, {17, 17, 17}, {5, 3, 17, 2}, {3, 5, 2, 4, 3},
      {3, 2, 5, 3, 2, 4}};
  std::vector<CaseSpec> cases;
  std::uint64_t seed = 500;
  for (const char* impl : {"gpu_half_f16", "gpu_half_bf16"})
    for (const auto& e : shapes)
      for (Mode mode : kAllModes)
        for (int channels : {1, 2, 4}) {
          CaseSpec s;
          s.impl = impl;
          s.extents = e;
          s.channels = channels;
          s.fields = channels == 1 ? 1 : 2;
          s.mode = mode;
          s.seed = seed++;
          cases.push_back(s);
        }
  return cases;
}

class GpuHalf : public ::testing::TestWithParam<CaseSpec> {};

TEST_P(GpuHalf, WithinStorageBound) {
  SB_REQUIRE_CUDA_DEVICE();
  const CaseSpec& spec = GetParam();
  const CaseResult r = run_case(spec);
  const GridShape shape = GridShape::make(spec.extents, spec.channels);
  const gpu::StorageFormat fmt = format_for(spec.impl);
  const Tolerance f32 = f32_accuracy::pass_by_pass_tolerance(shape);
  EXPECT_EQ(r.nan_mismatches, 0);
  EXPECT_EQ(r.unwritten, 0);
  EXPECT_LE(r.prefilter_rel_l2, r.tolerance.prefilter_rel_l2) << r.tolerance.basis;
  EXPECT_LE(r.interp_max_rel_to_maxf, r.tolerance.interp_max_rel_to_maxf) << r.tolerance.basis;
  // Bound from the oracle's coefficients: u max|c| (the f32 coefficients are within e of
  // them) + subnormal floor, over max|f| (batch-wide: the same or looser per field).
  const double bound = (fmt.unit_roundoff * r.max_coeff * (1 + f32.prefilter_rel_l2 * 10) + fmt.subnormal_error) /
                           r.max_f + f32.interp_max_rel_to_maxf;
  EXPECT_LE(r.interp_max_rel_to_maxf, bound);
  EXPECT_LE(r.prefilter_rel_l2, fmt.unit_roundoff * (1 + f32.prefilter_rel_l2) + f32.prefilter_rel_l2 + 1e-9);
  // Every coefficient is rounded to the format: on noise the RMS relative rounding is
  // about u / sqrt(3); far below that, the stored values would not be the narrow ones.
  if (shape.values() * spec.fields >= 16) {
    EXPECT_GT(r.prefilter_rel_l2, fmt.unit_roundoff / 16);
  }
  RecordProperty("interp_max_rel_to_maxf", std::to_string(r.interp_max_rel_to_maxf));
  RecordProperty("error_over_bound", std::to_string(r.interp_max_rel_to_maxf / bound));
}

INSTANTIATE_TEST_SUITE_P(Shapes, GpuHalf, ::testing::ValuesIn(half_cases()),
                         [](const ::testing::TestParamInfo<CaseSpec>& info) { return case_name(info.param); });

// A 3-D noise volume with many queries: the error is the storage's (far above the f32
// algorithm's 1e-5 for f16 and bf16 alike) and below the bound; printed for the log.
TEST(GpuHalfError, NoiseVolumeAgainstBound) {
  SB_REQUIRE_CUDA_DEVICE();
  for (const char* impl : {"gpu_half_f16", "gpu_half_bf16"}) {
    CaseSpec spec;
    spec.impl = impl;
    spec.extents = {48, 40, 56};
    spec.queries = 200000;
    spec.seed = 17;
    const CaseResult r = run_case(spec);
    const double u = format_for(impl).unit_roundoff;
    std::cout << impl << " 48x40x56 noise: max|s-s_ref|/max|f| = " << r.interp_max_rel_to_maxf
              << ", tolerance " << r.tolerance.interp_max_rel_to_maxf << ", prefilter rel L2 " << r.prefilter_rel_l2
              << " (u = " << u << ")\n";
    EXPECT_LE(r.interp_max_rel_to_maxf, r.tolerance.interp_max_rel_to_maxf) << r.tolerance.basis;
    EXPECT_GT(r.interp_max_rel_to_maxf, u / 64) << "storage rounding not visible in the values";
  }
}

// f16 holds |c| <= 65504: a field whose coefficients exceed it is refused by name;
// bf16 (float32's range) takes the same field.
TEST(GpuHalfRange, F16RefusesOverflowBf16Accepts) {
  SB_REQUIRE_CUDA_DEVICE();
  const GridShape shape = GridShape::make({9, 11}, 1);
  std::vector<float> samples = datasets::make_field(datasets::FieldKind::noise, shape, 1, 5);
  for (float& v : samples) v *= 1e5f;
  PhaseTimes times;
  const ImplementationPtr f16 = make_implementation("gpu_half_f16");
  try {
    f16->prepare(shape, 1, samples.data(), Mode::mirror, true, times);
    FAIL() << "gpu_half_f16 accepted coefficients beyond 65504";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("65504"), std::string::npos) << e.what();
  }
  f16->release();
  const ImplementationPtr bf16 = make_implementation("gpu_half_bf16");
  EXPECT_NO_THROW(bf16->prepare(shape, 1, samples.data(), Mode::mirror, true, times));
  bf16->release();
}

}  // namespace
}  // namespace splinebench::gpu_tests
