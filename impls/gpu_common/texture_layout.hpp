// Where TextureField puts a batch of coefficients inside one CUDA array, planned on the
// host from the device's texture limits. Plain C++ (no CUDA headers) so the planning
// is tested without a GPU; the index helpers marked SB_HOST_DEVICE are the very
// functions the packing and evaluation kernels call.
//
// The array holds "bricks". Along each hardware-filtered axis (the last min(D, 3) grid
// axes) the padded line of L texels (L = N, or N + 1 for periodic: a wrapped copy of
// texel 0 at index N) is either one brick, or, when L exceeds the device's limit for
// that array axis, folded into segments of kFoldWidth texels that overlap by one:
// segment r holds padded texels r*S .. r*S + S (S = kFoldWidth - 1). Every pair of
// neighbouring texels (j, j + 1) that a linear fetch blends then lies whole inside
// segment min(j / S, R - 1), so every tap stays exact; the duplicated texel is the
// only cost. A brick is one segment along each filtered axis of one slab (D >= 3: the
// last three axes of one field at one index of the outer axes; D <= 2: one field).
// Bricks are numbered slab-major, then z, y, x segment, and stacked in the array
// along depth (layers for D = 2, rows for D = 1) first, then height, then width.
//
// With every axis within the limits and the bricks fitting one stacking column, this
// is the plain layout: one row per field (D = 1), one layer per field (D = 2), slabs
// along depth (D >= 3), and the evaluation uses its direct kernels.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "splinebench/types.hpp"

#if defined(__CUDACC__)
#define SB_HOST_DEVICE __host__ __device__
#else
#define SB_HOST_DEVICE
#endif

namespace splinebench::gpu {

// Width of a folded segment. Far below every device's limit, and small enough that
// the float rounding of a texel coordinate (about 2^-21 of the array extent) stays
// under the 8-bit blend weight step; larger segments would only save duplicated texels.
inline constexpr std::int32_t kFoldWidth = 4096;

// The device's limits for arrays bound to textures (cudaDevAttrMaxTexture*).
struct TextureLimits {
  std::int64_t width_2d = 0, height_2d = 0;
  std::int64_t width_layered = 0, height_layered = 0, layers = 0;
  std::int64_t width_3d = 0, height_3d = 0, depth_3d = 0;
};

// Plain data so the evaluation kernels can take it by value. Array axes are indexed
// x (width), y (height), z (depth, or layer for D = 2).
struct TextureLayout {
  int dims = 0;                                  // D of the grid
  int channels = 1;
  int mode = 0;                                  // static_cast<int>(Mode)
  std::array<std::int32_t, 6> extent{};          // grid extents (unpadded)
  std::int32_t pad = 0;                          // 1 for periodic (wrapped copy), else 0
  std::int64_t fields = 0;
  std::int64_t slabs = 0;                        // fields * product of the outer extents (D >= 3), else fields
  std::array<std::int32_t, 3> line{1, 1, 1};     // padded line length L along x, y, z (1 where no grid axis)
  std::array<std::int32_t, 3> segments{1, 1, 1};  // R along x, y, z (1: not folded)
  std::array<std::int32_t, 3> stride{1, 1, 1};   // S along x, y, z: first padded texel of segment r is r*S
  std::int64_t bricks = 0;                       // slabs * segments x*y*z
  std::array<std::int32_t, 3> brick_extent{};    // texels of one brick along x, y, z
  std::array<std::int32_t, 3> tiles{};           // bricks along x, y, z of the array
  std::array<std::int64_t, 3> texels{};          // size of the CUDA array (x, y, z; z = 0 for D = 1)
  bool folded = false;                           // some axis has segments > 1
  bool bricked = false;                          // not the plain layout: the evaluation uses brick kernels
};

// Fills `layout` for `fields` fields of `shape` within `limits`; returns "" or why
// no layout fits (the message names the limit).
std::string plan_texture_layout(const GridShape& shape, std::int64_t fields, Mode mode, const TextureLimits& limits,
                                TextureLayout& layout);

// Bound on |texture result - exact spline| / max|c[k+1] - c[k]| for this layout: per
// filtered axis 2^-8 (blend weight) + 2^-21 (T + 1) (texel coordinate rounding, T the
// array extent along it); derivation in texture_field.cu.
double interp_error_factor(const TextureLayout& layout);

// One line for records and messages, e.g. "2-D array 1000x3 texels" or
// "1-D line of 1048576 samples folded into 257 rows of 4096 texels; 2-D array 4096x257 texels".
std::string describe(const TextureLayout& layout);

// Segment holding the blended pair (j, j + 1) of padded texels along an axis with
// `segments` segments of stride `stride` (also right for the last texel j = L - 1,
// which is only fetched alone, at blend weight 0).
SB_HOST_DEVICE inline int fold_segment(int j, int stride, int segments) {
  if (segments <= 1) return 0;
  const int r = j / stride;
  return r < segments - 1 ? r : segments - 1;
}

// Padded texel stored at position `local` of segment `segment`, clamped to the line
// (the tail of the last segment repeats the line's last texel; it is never blended in
// with a non-zero weight, but must hold a finite value).
SB_HOST_DEVICE inline int folded_texel(int segment, int local, int stride, int line) {
  const int j = segment * stride + local;
  return j < line ? j : line - 1;
}

// Texel origin of brick b in the array (bricks stacked along z, then y, then x).
SB_HOST_DEVICE inline void brick_origin(int b, const std::int32_t* tiles, const std::int32_t* brick_extent, int& x,
                                        int& y, int& z) {
  const int zt = b % tiles[2];
  const int rest = b / tiles[2];
  x = (rest / tiles[1]) * brick_extent[0];
  y = (rest % tiles[1]) * brick_extent[1];
  z = zt * brick_extent[2];
}

}  // namespace splinebench::gpu
