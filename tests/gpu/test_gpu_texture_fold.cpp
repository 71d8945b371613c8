// gpu_texture on shapes over the device's texture array limits, which it folds into
// overlapping segments (texture_layout.hpp) instead of refusing: the 1-D signal of
// 1 048 576 samples and the (7, 100003) grid, lines just over this device's own
// limits in 1-D, 2-D and 3-D, and batches with more fields than rows or layers. Each
// against the double oracle with queries packed around every segment boundary (where
// the two fetches of one axis land in different segments), in range and outside, for
// gpu_texture, gpu_texture_binned and, as the reference point, gpu_naive.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "gpu_case.hpp"
#include "gpu_common/texture_field.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/datasets.hpp"
#include "splinebench/registry.hpp"

namespace splinebench::gpu_tests {
namespace {

// Coordinates along a folded axis: around every segment start r*S (padded index =
// sample index there), on both sides, plus their images under the mode's extension
// (reflected or shifted by a period), which reach the same texels through the
// reversed or wrapped pairs.
std::vector<float> boundary_coordinates(const gpu::TextureLayout& L, int array_axis, std::int64_t n, Mode mode) {
  std::vector<float> xs;
  const double offsets[] = {-2.75, -2.0, -1.5, -1.0, -0.25, 0.0, 0.5, 1.0, 1.75, 2.25};
  for (int r = 1; r < L.segments[array_axis]; ++r) {
    const double b = static_cast<double>(r) * L.stride[array_axis];
    for (double d : offsets) {
      const double x = b + d;
      xs.push_back(static_cast<float>(x));
      if (mode == Mode::mirror) xs.push_back(static_cast<float>(-x));
      if (mode == Mode::half) xs.push_back(static_cast<float>(-1.0 - x));
      if (mode == Mode::periodic) xs.push_back(static_cast<float>(x - static_cast<double>(n)));
    }
  }
  // The last samples of the line: the wrapped copy (periodic) and the reflection at N - 1.
  for (double d : {-2.5, -1.0, -0.5, 0.0, 0.25, 1.5}) xs.push_back(static_cast<float>(static_cast<double>(n - 1) + d));
  return xs;
}

// (D, n) queries: axis `axis` takes `xs`, the other axes uniform in and around the grid.
std::vector<float> queries_along(const GridShape& shape, int axis, const std::vector<float>& xs, std::uint64_t seed) {
  const int D = shape.dims;
  const std::int64_t n = static_cast<std::int64_t>(xs.size());
  const auto random = datasets::make_queries(datasets::QueryPattern::outside, shape, n, seed);
  std::vector<float> coords(static_cast<std::size_t>(D * n));
  for (int d = 0; d < D; ++d)
    for (std::int64_t q = 0; q < n; ++q) coords[d * n + q] = d == axis ? xs[q] : random[d * n + q];
  return coords;
}

// The texture bound from the oracle's coefficients (as in test_gpu_accuracy.cpp).
double texture_bound(const CaseSpec& spec, const CaseResult& r) {
  const GridShape shape = GridShape::make(spec.extents, spec.channels);
  const double f32 = make_implementation("cpu_scalar")->tolerance(shape).interp_max_rel_to_maxf;
  const double factor = gpu::TextureField::interp_error_factor(shape, spec.fields, spec.mode);
  const double arith = (8.0 * shape.dims + 16.0) * 0x1p-24 * r.max_coeff;
  return (factor * r.max_coeff_diff + arith) / r.max_f + f32;
}

// Runs `spec` on the three GPU implementations with queries around the boundaries of
// the folded grid axis `axis` (array axis D-1-axis) and checks them against the oracle.
void check_folded(CaseSpec spec, int axis) {
  const GridShape shape = GridShape::make(spec.extents, spec.channels);
  const gpu::TextureLayout L = gpu::TextureField::plan(shape, spec.fields, spec.mode);
  const int array_axis = shape.dims - 1 - axis;
  ASSERT_TRUE(L.folded) << describe(L);
  ASSERT_GT(L.segments[array_axis], 1) << describe(L);
  const auto xs = boundary_coordinates(L, array_axis, shape.extent[axis], spec.mode);
  auto coords = queries_along(shape, axis, xs, spec.seed + 3);
  // Then the usual mix (in range, outside, non-finite, huge) after them.
  const auto mixed = make_test_queries(shape, 2000, spec.seed + 5);
  const std::int64_t a = static_cast<std::int64_t>(xs.size()), b = 2000;
  spec.coords.assign(static_cast<std::size_t>(shape.dims * (a + b)), 0.0f);
  for (int d = 0; d < shape.dims; ++d) {
    std::copy_n(coords.begin() + d * a, a, spec.coords.begin() + d * (a + b));
    std::copy_n(mixed.begin() + d * b, b, spec.coords.begin() + d * (a + b) + a);
  }
  for (const char* impl : {"gpu_texture", "gpu_texture_binned", "gpu_naive"}) {
    spec.impl = impl;
    const std::string what = case_name(spec) + " (" + describe(L) + ")";
    CaseResult r;
    ASSERT_NO_THROW(r = run_case(spec)) << what;
    EXPECT_EQ(r.nan_mismatches, 0) << what;
    EXPECT_EQ(r.unwritten, 0) << what;
    EXPECT_LE(r.prefilter_rel_l2, r.tolerance.prefilter_rel_l2) << what;
    EXPECT_LE(r.interp_max_rel_to_maxf, r.tolerance.interp_max_rel_to_maxf) << what << ": " << r.tolerance.basis;
    if (std::string(impl) != "gpu_naive") {
      EXPECT_LE(r.interp_max_rel_to_maxf, texture_bound(spec, r)) << what;
      EXPECT_NE(r.tolerance.basis.find("folded"), std::string::npos) << r.tolerance.basis;
      // 8-bit blend weights on white noise leave errors far above float rounding: the
      // values came through hardware-filtered fetches.
      EXPECT_GT(r.interp_max_rel_to_maxf, 1e-5) << what;
    }
  }
}

int attribute(cudaDeviceAttr a) {
  int dev = 0, v = 0;
  SB_CUDA_CHECK(cudaGetDevice(&dev));
  SB_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, dev));
  return v;
}

// The 1-D signal of 1 048 576 samples that gpu_texture used to refuse ("2-D array
// width would be 1048576 texels; this device allows at most 131072").
TEST(GpuTextureFold, LongSignal1D) {
  SB_REQUIRE_CUDA_DEVICE();
  if (1048576 <= attribute(cudaDevAttrMaxTexture2DWidth)) GTEST_SKIP() << "this device holds the line unfolded";
  std::uint64_t seed = 40;
  for (Mode mode : kAllModes) {
    CaseSpec spec;
    spec.extents = {1048576};
    spec.mode = mode;
    spec.seed = seed += 10;
    check_folded(spec, 0);
  }
  CaseSpec batch;
  batch.extents = {1048576};
  batch.channels = 2;
  batch.fields = 3;
  batch.mode = Mode::half;
  batch.seed = 90;
  check_folded(batch, 0);
}

// The (7, 100003) grid that gpu_texture used to refuse ("layered 2-D array width would
// be 100003 texels; ... at most 32768").
TEST(GpuTextureFold, LongRows2D) {
  SB_REQUIRE_CUDA_DEVICE();
  if (100003 <= attribute(cudaDevAttrMaxTexture2DLayeredWidth)) GTEST_SKIP() << "this device holds the rows unfolded";
  std::uint64_t seed = 140;
  for (Mode mode : kAllModes)
    for (int channels : {1, 4}) {
      CaseSpec spec;
      spec.extents = {7, 100003};
      spec.channels = channels;
      spec.fields = channels == 1 ? 1 : 2;
      spec.mode = mode;
      spec.seed = seed += 10;
      check_folded(spec, 1);
    }
}

// Just over this device's own limits, whatever they are: the long axis along the
// 2-D width (D = 1), the layered height (D = 2, axis 0), and each 3-D axis.
TEST(GpuTextureFold, JustOverTheDeviceLimits) {
  SB_REQUIRE_CUDA_DEVICE();
  const std::int64_t w2 = attribute(cudaDevAttrMaxTexture2DWidth);
  const std::int64_t hl = attribute(cudaDevAttrMaxTexture2DLayeredHeight);
  const std::int64_t w3 = attribute(cudaDevAttrMaxTexture3DWidth), h3 = attribute(cudaDevAttrMaxTexture3DHeight),
                     d3 = attribute(cudaDevAttrMaxTexture3DDepth);
  struct Shape {
    std::vector<std::int64_t> extents;
    int axis;
  };
  const Shape shapes[] = {{{w2 + 1}, 0},       {{hl + 2, 3}, 0},     {{3, 2, w3 + 1}, 2},
                          {{2, h3 + 1, 3}, 1}, {{d3 + 3, 2, 2}, 0},  {{2, 2, 3, w3 + 1}, 3}};
  std::uint64_t seed = 240;
  for (const Shape& s : shapes)
    for (Mode mode : kAllModes) {
      CaseSpec spec;
      spec.extents = s.extents;
      spec.mode = mode;
      spec.seed = seed += 10;
      check_folded(spec, s.axis);
    }
}

// More fields than a 2-D array has rows (D = 1) or a layered array has layers (D = 2):
// the bricks stack along the next array axis (gpu_texture used to refuse the layers).
TEST(GpuTextureFold, BatchesBeyondRowsAndLayers) {
  SB_REQUIRE_CUDA_DEVICE();
  const std::int64_t rows = attribute(cudaDevAttrMaxTexture2DHeight);
  const std::int64_t layers = attribute(cudaDevAttrMaxTexture2DLayeredLayers);
  struct Batch {
    std::vector<std::int64_t> extents;
    std::int64_t fields;
  };
  for (const Batch& b : {Batch{{5}, rows + 3}, Batch{{2, 3}, layers + 1}})
    for (Mode mode : {Mode::mirror, Mode::periodic})
      for (const char* impl : {"gpu_texture", "gpu_texture_binned"}) {
        CaseSpec spec;
        spec.impl = impl;
        spec.extents = b.extents;
        spec.fields = b.fields;
        spec.mode = mode;
        spec.queries = 200;
        const GridShape shape = GridShape::make(spec.extents);
        EXPECT_TRUE(gpu::TextureField::plan(shape, spec.fields, mode).bricked);
        CaseResult r;
        ASSERT_NO_THROW(r = run_case(spec)) << case_name(spec);
        EXPECT_EQ(r.nan_mismatches, 0) << case_name(spec);
        EXPECT_EQ(r.unwritten, 0) << case_name(spec);
        EXPECT_LE(r.interp_max_rel_to_maxf, r.tolerance.interp_max_rel_to_maxf) << case_name(spec);
        EXPECT_LE(r.interp_max_rel_to_maxf, texture_bound(spec, r)) << case_name(spec);
      }
}

}  // namespace
}  // namespace splinebench::gpu_tests
