// TextureField's layout planning (texture_layout.hpp) on the host, no GPU needed:
// shapes within the limits keep the plain layouts, lines longer than the device's
// texture limits are folded into overlapping segments in which every blended pair of
// texels is whole (checked with the same index helpers the kernels use), batches with
// more rows or layers than allowed are stacked along the other axes, and only batches
// no array can hold are refused. The limits are those an H100 reports.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu_common/texture_layout.hpp"

namespace splinebench::gpu {
namespace {

// cudaDevAttrMaxTexture* on an H100 (compute capability 9.0).
TextureLimits h100_limits() {
  TextureLimits l;
  l.width_2d = 131072, l.height_2d = 65536;
  l.width_layered = 32768, l.height_layered = 32768, l.layers = 2048;
  l.width_3d = 16384, l.height_3d = 16384, l.depth_3d = 16384;
  return l;
}

TextureLayout plan_ok(const std::vector<std::int64_t>& extents, std::int64_t fields, Mode mode,
                      const TextureLimits& lim = h100_limits(), int channels = 1) {
  TextureLayout layout;
  const std::string why = plan_texture_layout(GridShape::make(extents, channels), fields, mode, lim, layout);
  EXPECT_EQ(why, "");
  return layout;
}

// Along one array axis: every pair (j, j+1) of padded texels lies in the segment the
// kernels pick for it, at neighbouring positions, and the packing puts exactly those
// texels there; the last texel, fetched alone, is stored where it is looked for.
void expect_pairs_whole(const TextureLayout& L, int a) {
  const int line = L.line[a], stride = L.stride[a], segments = L.segments[a], brick = L.brick_extent[a];
  ASSERT_GE(segments, 1);
  if (segments > 1) {
    EXPECT_LE((segments - 1) * stride, line - 2) << "no segment may start past the last pair";
    EXPECT_GE(segments * stride, line - 1) << "the segments cover every pair";
  }
  for (int j = 0; j < line; ++j) {
    const int r = fold_segment(j, stride, segments);
    ASSERT_GE(r, 0);
    ASSERT_LT(r, segments);
    const int local = j - r * stride;
    ASSERT_GE(local, 0) << "j " << j;
    ASSERT_LT(local, brick) << "j " << j;
    ASSERT_EQ(folded_texel(r, local, stride, line), j) << "j " << j;
    if (j + 1 < line) {
      ASSERT_LT(local + 1, brick) << "pair (" << j << ", " << j + 1 << ") crosses the end of segment " << r;
      ASSERT_EQ(folded_texel(r, local + 1, stride, line), j + 1) << "j " << j;
    }
  }
}

TEST(TextureLayout, PlainLayoutsWithinLimits) {
  {
    const TextureLayout L = plan_ok({1000}, 3, Mode::mirror);
    EXPECT_FALSE(L.folded);
    EXPECT_FALSE(L.bricked);
    EXPECT_EQ(L.texels, (std::array<std::int64_t, 3>{1000, 3, 0}));
    EXPECT_EQ(L.tiles, (std::array<std::int32_t, 3>{1, 3, 1}));
  }
  {
    const TextureLayout L = plan_ok({1000}, 1, Mode::periodic);
    EXPECT_EQ(L.texels, (std::array<std::int64_t, 3>{1001, 1, 0}));
  }
  {
    const TextureLayout L = plan_ok({33, 18}, 4, Mode::periodic);
    EXPECT_FALSE(L.bricked);
    EXPECT_EQ(L.texels, (std::array<std::int64_t, 3>{19, 34, 4}));
  }
  {
    const TextureLayout L = plan_ok({12, 7, 10}, 2, Mode::mirror);
    EXPECT_FALSE(L.bricked);
    EXPECT_EQ(L.brick_extent, (std::array<std::int32_t, 3>{10, 7, 12}));
    EXPECT_EQ(L.texels, (std::array<std::int64_t, 3>{10, 7, 24}));
  }
  {  // a line exactly at the limit is not folded
    const TextureLayout L = plan_ok({131072}, 1, Mode::mirror);
    EXPECT_FALSE(L.folded);
    EXPECT_EQ(L.texels[0], 131072);
  }
}

// More 3-D slabs than the depth limit holds: tiled along height (the plain 3-D kernel).
TEST(TextureLayout, SlabsBeyondDepthLimitTile) {
  const std::int64_t dz = 16384 / 16 + 3;
  const TextureLayout L = plan_ok({17, dz, 2, 3}, 1, Mode::mirror);
  EXPECT_FALSE(L.bricked);
  EXPECT_EQ(L.bricks, 17);
  EXPECT_EQ(L.tiles, (std::array<std::int32_t, 3>{1, 2, 15}));
  EXPECT_EQ(L.texels, (std::array<std::int64_t, 3>{3, 4, 15 * dz}));
}

// The 1-D signal of 1 048 576 samples (over the 2-D width limit of 131 072).
TEST(TextureLayout, LongLineIsFolded) {
  for (Mode mode : kAllModes) {
    const TextureLayout L = plan_ok({1048576}, 1, mode);
    const int line = 1048576 + (mode == Mode::periodic ? 1 : 0);
    EXPECT_TRUE(L.folded);
    EXPECT_TRUE(L.bricked);
    EXPECT_EQ(L.line[0], line);
    EXPECT_EQ(L.brick_extent[0], kFoldWidth);
    EXPECT_EQ(L.stride[0], kFoldWidth - 1);
    EXPECT_EQ(L.segments[0], (line - 1 + kFoldWidth - 2) / (kFoldWidth - 1));
    EXPECT_EQ(L.bricks, L.segments[0]);
    EXPECT_EQ(L.texels, (std::array<std::int64_t, 3>{kFoldWidth, L.segments[0], 0}));
    expect_pairs_whole(L, 0);
    EXPECT_NE(describe(L).find("folded"), std::string::npos) << describe(L);
  }
  // Several fields: each field's segments are consecutive rows.
  const TextureLayout L = plan_ok({1048576}, 5, Mode::half, h100_limits(), 4);
  EXPECT_EQ(L.bricks, 5 * L.segments[0]);
  EXPECT_EQ(L.tiles[1], 5 * L.segments[0]);
}

// The (7, 100003) grid (last axis over the layered width limit of 32 768).
TEST(TextureLayout, LongRowsOfA2DGridAreFolded) {
  for (Mode mode : kAllModes) {
    const TextureLayout L = plan_ok({7, 100003}, 3, mode, h100_limits(), 2);
    const int pad = mode == Mode::periodic ? 1 : 0;
    EXPECT_TRUE(L.folded);
    EXPECT_TRUE(L.bricked);
    EXPECT_EQ(L.segments[1], 1) << "the short axis is not folded";
    EXPECT_EQ(L.brick_extent[1], 7 + pad);
    EXPECT_EQ(L.segments[0], (100003 + pad - 1 + kFoldWidth - 2) / (kFoldWidth - 1));
    EXPECT_EQ(L.bricks, 3 * L.segments[0]);
    EXPECT_EQ(L.tiles, (std::array<std::int32_t, 3>{1, 1, static_cast<std::int32_t>(3 * L.segments[0])}));
    expect_pairs_whole(L, 0);
    expect_pairs_whole(L, 1);
  }
  // Both axes long: bricks of 4096 x 4096 texels.
  const TextureLayout L = plan_ok({40000, 50000}, 1, Mode::mirror);
  EXPECT_GT(L.segments[0], 1);
  EXPECT_GT(L.segments[1], 1);
  expect_pairs_whole(L, 0);
  expect_pairs_whole(L, 1);
}

TEST(TextureLayout, Long3DAxesAreFolded) {
  for (const auto& extents : {std::vector<std::int64_t>{5, 3, 20000}, std::vector<std::int64_t>{5, 20000, 3},
                              std::vector<std::int64_t>{20000, 3, 5}, std::vector<std::int64_t>{2, 3, 4, 17000}})
    for (Mode mode : kAllModes) {
      const TextureLayout L = plan_ok(extents, 2, mode);
      EXPECT_TRUE(L.folded);
      EXPECT_TRUE(L.bricked);
      for (int a = 0; a < 3; ++a) {
        EXPECT_LE(L.brick_extent[a], 16384);
        expect_pairs_whole(L, a);
      }
      EXPECT_LE(L.texels[0], 16384);
      EXPECT_LE(L.texels[1], 16384);
      EXPECT_LE(L.texels[2], 16384);
    }
}

// A device whose limit is below the fold width folds into segments of the limit.
TEST(TextureLayout, FoldsWithinSmallLimits) {
  TextureLimits small = h100_limits();
  small.width_2d = 1000;
  const TextureLayout L = plan_ok({5000}, 2, Mode::periodic, small);
  EXPECT_EQ(L.brick_extent[0], 1000);
  EXPECT_EQ(L.stride[0], 999);
  expect_pairs_whole(L, 0);
}

// More fields than rows (D = 1) or layers (D = 2): the bricks stack along the next axis.
TEST(TextureLayout, BatchesBeyondRowsOrLayersStack) {
  {
    const TextureLayout L = plan_ok({1000}, 70000, Mode::mirror);
    EXPECT_FALSE(L.folded);
    EXPECT_TRUE(L.bricked);
    EXPECT_EQ(L.tiles, (std::array<std::int32_t, 3>{2, 65536, 1}));
    EXPECT_EQ(L.texels, (std::array<std::int64_t, 3>{2000, 65536, 0}));
  }
  {
    const TextureLayout L = plan_ok({2, 3}, 2049, Mode::half);
    EXPECT_FALSE(L.folded);
    EXPECT_TRUE(L.bricked);
    EXPECT_EQ(L.tiles, (std::array<std::int32_t, 3>{1, 2, 2048}));
    EXPECT_EQ(L.texels, (std::array<std::int64_t, 3>{3, 4, 2048}));
  }
}

// Refused only when no array of the device holds the batch; the message names the limits.
TEST(TextureLayout, RefusesWhatNoArrayHolds) {
  TextureLayout L;
  std::string why = plan_texture_layout(GridShape::make({1000}), std::int64_t{65536} * 132, Mode::mirror,
                                        h100_limits(), L);
  EXPECT_NE(why.find("do not fit"), std::string::npos) << why;
  EXPECT_NE(why.find("131072x65536"), std::string::npos) << why;
  why = plan_texture_layout(GridShape::make({4}), std::int64_t{1} << 31, Mode::mirror, h100_limits(), L);
  EXPECT_NE(why.find("too many texture bricks"), std::string::npos) << why;
  why = plan_texture_layout(GridShape::make({std::int64_t{1} << 30}), 1, Mode::mirror, h100_limits(), L);
  EXPECT_NE(why.find("2^30"), std::string::npos) << why;
}

// Folding keeps the texel coordinates small, so the bound's rounding term follows the
// array extent (4096 texels), not the line length.
TEST(TextureLayout, ErrorFactorFollowsTheArrayExtent) {
  const TextureLayout folded = plan_ok({1048576}, 1, Mode::mirror);
  EXPECT_DOUBLE_EQ(interp_error_factor(folded), 0x1p-8 + 0x1p-21 * (kFoldWidth + 1.0));
  const TextureLayout plain = plan_ok({1000, 30}, 1, Mode::mirror);
  EXPECT_DOUBLE_EQ(interp_error_factor(plain), 2 * 0x1p-8 + 0x1p-21 * (30 + 1.0) + 0x1p-21 * (1000 + 1.0));
}

}  // namespace
}  // namespace splinebench::gpu
