// cpu_simd on every Highway target compiled in and supported by this CPU (e.g. AVX3,
// AVX2, SSE4, SSSE3, EMU128), not only the one the dispatcher would pick: each is
// forced with hwy::SetSupportedTargetsForTest and checked against the oracle on every
// D, mode and channel count (bounds: the declared Tolerance, as in
// test_cpu_simd_vs_oracle.cpp), also on queries that take the paired-gather path
// (interior_rows.hpp), and run_facts() must name the target that ran.
#include "cpu_simd/hwy_targets.hpp"  // the same target set as the kernels

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "common/implementation_check.hpp"
#include "hwy/targets.h"
#include "simd/interior_rows.hpp"
#include "splinebench/registry.hpp"

using namespace splinebench;
using namespace splinebench::testing;

namespace {

std::string fact(const Implementation& impl, const std::string& key) {
  for (const std::string& f : impl.run_facts())
    if (f.rfind(key + "=", 0) == 0) return f.substr(key.size() + 1);
  return "";
}

// Restores the real CPU's targets however the test ends.
struct TargetScope {
  explicit TargetScope(std::int64_t target) { hwy::SetSupportedTargetsForTest(target); }
  ~TargetScope() { hwy::SetSupportedTargetsForTest(0); }
};

}  // namespace

class SimdTargets : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(SimdTargets, EveryDimensionModeAndChannelCount) {
  const TargetScope scope(GetParam());
  const std::string target = hwy::TargetName(GetParam());
  const std::vector<std::vector<std::int64_t>> shapes = {{17}, {7, 19}, {5, 3, 18}, {3, 5, 2, 7},
                                                         {2, 3, 5, 3, 2}, {3, 2, 3, 2, 2, 5}};
  for (const auto& extents : shapes)
    for (const int channels : {1, 2, 4})
      for (const Mode mode : kAllModes) {
        ImplementationPtr impl = make_implementation("cpu_simd");
        ASSERT_EQ(fact(*impl, "isa"), target);
        CheckCase c;
        c.shape = GridShape::make(extents, channels);
        c.mode = mode;
        c.kind = datasets::FieldKind::smooth;
        c.fields = 2;
        c.queries_per_pattern = 23;
        c.seed = 300 + channels;
        const Tolerance tol = impl->tolerance(c.shape);
        const CheckResult r = check_against_oracle(*impl, c);
        EXPECT_EQ(r.unwritten_coefficients, 0);
        EXPECT_EQ(r.unwritten_values, 0);
        EXPECT_LE(r.prefilter_rel_l2, tol.prefilter_rel_l2)
            << target << " " << c.shape.to_string() << " C=" << channels << " " << to_string(mode);
        EXPECT_LE(r.interp_max_rel_to_maxf, tol.interp_max_rel_to_maxf)
            << target << " " << c.shape.to_string() << " C=" << channels << " " << to_string(mode);
      }
  // The paired-gather path, which mixed queries reach only on some vectors.
  for (const auto& extents : interior_row_shapes())
    for (const int channels : {1, 2})
      for (const Mode mode : kAllModes) {
        ImplementationPtr impl = make_implementation("cpu_simd");
        const GridShape shape = GridShape::make(extents, channels);
        const InteriorRowCheck r = check_interior_rows(*impl, shape, mode);
        EXPECT_EQ(r.unwritten, 0);
        EXPECT_LE(r.max_error, r.bound) << target << " " << shape.to_string() << " C=" << channels << " "
                                        << to_string(mode);
      }
  std::printf("[ target   ] %s checked\n", target.c_str());
}

INSTANTIATE_TEST_SUITE_P(Compiled, SimdTargets, ::testing::ValuesIn(hwy::SupportedAndGeneratedTargets()),
                         [](const auto& info) { return std::string(hwy::TargetName(info.param)); });

// More than one target must be exercised on an x86 machine with SSE4 or better.
TEST(SimdTargetsList, SeveralTargetsAreTested) {
  const auto targets = hwy::SupportedAndGeneratedTargets();
  std::string names;
  for (auto t : targets) names += std::string(hwy::TargetName(t)) + " ";
  std::printf("[ targets  ] %s\n", names.c_str());
#if defined(__x86_64__)
  EXPECT_GE(targets.size(), 2u) << names;
#endif
}
