// The reduced-storage bound (impls/gpu_half/half_tolerance.hpp) on the host: the
// measure-free form, the measured form per field (worst field decides), the subnormal
// floor of f16 for tiny coefficients, and NaN data giving a NaN bound.
#include <gtest/gtest.h>

#include <cmath>

#include "gpu_half/half_tolerance.hpp"
#include "splinebench/f32_accuracy.hpp"

namespace splinebench::gpu {
namespace {

TEST(HalfTolerance, Formats) {
  EXPECT_EQ(f16_format().unit_roundoff, std::ldexp(1.0, -11));
  EXPECT_EQ(bf16_format().unit_roundoff, std::ldexp(1.0, -8));
  EXPECT_EQ(f16_format().max_finite, 65504.0);
  EXPECT_EQ(f16_format().subnormal_error, std::ldexp(1.0, -25));
}

TEST(HalfTolerance, MeasureFree) {
  const GridShape shape = GridShape::make({10, 10}, 1);
  const Tolerance f32 = f32_accuracy::pass_by_pass_tolerance(shape);
  const Tolerance t = reduced_storage_tolerance(f32, shape, f16_format(), std::nullopt);
  EXPECT_DOUBLE_EQ(t.interp_max_rel_to_maxf, std::ldexp(1.0, -11) * 9 + f32.interp_max_rel_to_maxf);
  EXPECT_NEAR(t.prefilter_rel_l2, std::ldexp(1.0, -11) + f32.prefilter_rel_l2, 1e-9);
  EXPECT_NE(t.basis.find("measure-free"), std::string::npos);
}

TEST(HalfTolerance, MeasuredWorstFieldDecides) {
  const GridShape shape = GridShape::make({100}, 1);
  const Tolerance f32 = f32_accuracy::pass_by_pass_tolerance(shape);
  StoredMagnitudes m;
  m.values_per_field = 100;
  m.max_f = {1.0, 1.0};
  m.max_c = {1.5, 2.5};
  m.sum_squares_c = {50.0, 50.0};
  const Tolerance t = reduced_storage_tolerance(f32, shape, bf16_format(), m);
  EXPECT_NEAR(t.interp_max_rel_to_maxf, std::ldexp(1.0, -8) * 2.5 + f32.interp_max_rel_to_maxf, 1e-15);
}

TEST(HalfTolerance, F16SubnormalFloorForTinyFields) {
  const GridShape shape = GridShape::make({100}, 1);
  const Tolerance f32 = f32_accuracy::pass_by_pass_tolerance(shape);
  StoredMagnitudes m;
  m.values_per_field = 100;
  m.max_f = {1e-6};
  m.max_c = {1.5e-6};
  m.sum_squares_c = {100 * 1e-12};
  const Tolerance t = reduced_storage_tolerance(f32, shape, f16_format(), m);
  // The subnormal floor 2^-25 over max|f| = 1e-6 dominates: ~3 %.
  EXPECT_GT(t.interp_max_rel_to_maxf, std::ldexp(1.0, -25) / 1e-6);
  EXPECT_GT(t.prefilter_rel_l2, std::ldexp(1.0, -25) * 10 / 1e-5);
}

TEST(HalfTolerance, NanDataGivesNanBound) {
  const GridShape shape = GridShape::make({4}, 1);
  StoredMagnitudes m;
  m.values_per_field = 4;
  m.max_f = {1.0};
  m.max_c = {NAN};
  m.sum_squares_c = {1.0};
  const Tolerance t = reduced_storage_tolerance(f32_accuracy::pass_by_pass_tolerance(shape), shape, f16_format(), m);
  EXPECT_TRUE(std::isnan(t.interp_max_rel_to_maxf));
}

}  // namespace
}  // namespace splinebench::gpu
