// The CPU prefilter driver's fused pass over the last two axes (slab by slab while a
// slab stays in L2) must give exactly the coefficients of the axis-by-axis passes: same
// lines, same arithmetic, same axis order. Checked bit for bit with the dispatched
// cpu_simd kernels and the cpu_sse kernels on white noise, every mode, channels 1/2/4,
// 3-D..5-D, 1 and 2 threads, plus shapes that must not fuse (an identity axis, a slab
// over the limit). Lengths are odd on purpose: rows that do not fill a vector group.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/printers.hpp"
#include "cpu_common/prefilter_driver.hpp"
#include "cpu_simd/simd_kernels.hpp"
#include "cpu_sse/sse_kernels.hpp"
#include "splinebench/datasets.hpp"

using namespace splinebench;

namespace {

using Extents = std::vector<std::int64_t>;

std::vector<float> prefiltered(const cpu::PrefilterKernels& kernels, const GridShape& shape, std::int64_t fields,
                               Mode mode, int threads, bool fuse, PhaseTimes& times) {
  std::vector<float> data = datasets::make_field(datasets::FieldKind::noise, shape, fields, 77);
  cpu::prefilter_blocked(shape, fields, data.data(), mode, kernels, threads, times, fuse);
  return data;
}

}  // namespace

class PrefilterFusion : public ::testing::TestWithParam<std::tuple<Mode, Extents, int, int>> {};

TEST_P(PrefilterFusion, BitIdenticalToAxisByAxis) {
  const auto& [mode, extents, channels, threads] = GetParam();
  const GridShape shape = GridShape::make(extents, channels);
  const std::int64_t fields = 2;
  for (const auto& [name, kernels] : {std::pair{"cpu_simd", cpu::simd::prefilter_kernels()},
                                      std::pair{"cpu_sse", cpu::sse::prefilter_kernels()}}) {
    if (std::string(name) == "cpu_sse" && !cpu::sse::kernels_built()) continue;  // no SSE4.1 on this target
    PhaseTimes separate_times, fused_times;
    const std::vector<float> separate = prefiltered(kernels, shape, fields, mode, threads, false, separate_times);
    const std::vector<float> fused = prefiltered(kernels, shape, fields, mode, threads, true, fused_times);
    ASSERT_EQ(separate.size(), fused.size());
    EXPECT_EQ(std::memcmp(separate.data(), fused.data(), separate.size() * sizeof(float)), 0)
        << name << ": fused pass differs from the axis-by-axis passes";
    // Every axis still reports its phase (the per-axis tables need them).
    for (int d = 0; d < shape.dims; ++d) EXPECT_TRUE(fused_times.has(phase::prefilter_axis(d))) << name << " axis " << d;
    EXPECT_TRUE(fused_times.has(phase::prefilter)) << name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, PrefilterFusion,
    ::testing::Combine(::testing::Values(Mode::mirror, Mode::half, Mode::periodic),
                       ::testing::Values(Extents{5, 17, 33}, Extents{3, 40, 24}, Extents{2, 3, 64, 65},
                                         Extents{2, 2, 3, 9, 7}, Extents{4, 1, 30}, Extents{3, 300, 500}),
                       ::testing::Values(1, 2, 4), ::testing::Values(1, 2)),
    [](const auto& info) {
      return std::string(to_string(std::get<0>(info.param))) + "_" +
             GridShape::make(std::get<1>(info.param)).to_string() + "_C" + std::to_string(std::get<2>(info.param)) +
             "_T" + std::to_string(std::get<3>(info.param));
    });
