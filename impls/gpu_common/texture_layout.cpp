// Planning of TextureField's array layout (texture_layout.hpp): which axes fold, how
// the bricks tile the array, and the error factor of the result.
#include "gpu_common/texture_layout.hpp"

#include <algorithm>
#include <sstream>

#include "gpu_common/axis_limits.hpp"

namespace splinebench::gpu {
namespace {

// One filtered axis: a single brick when the padded line fits `limit`, else segments
// of kFoldWidth texels (or of the limit, on a device that small) overlapping by one.
struct AxisFold {
  std::int32_t line = 1, segments = 1, stride = 1, brick = 1;
};

AxisFold fold_axis(std::int64_t line, std::int64_t limit) {
  AxisFold f;
  f.line = static_cast<std::int32_t>(line);
  if (line <= limit) {
    f.brick = f.line;
    f.stride = std::max<std::int32_t>(1, f.line - 1);
    return f;
  }
  const std::int64_t width = std::min<std::int64_t>(kFoldWidth, limit);
  f.brick = static_cast<std::int32_t>(width);
  f.stride = static_cast<std::int32_t>(width - 1);
  // Segments r = 0..R-1 cover padded texels up to R*S, so every pair (j, j+1) with
  // j <= L - 2 sits in one of them.
  f.segments = static_cast<std::int32_t>((line - 1 + f.stride - 1) / f.stride);
  return f;
}

}  // namespace

std::string plan_texture_layout(const GridShape& shape, std::int64_t fields, Mode mode, const TextureLimits& lim,
                                TextureLayout& layout) {
  const int D = shape.dims;
  layout = TextureLayout{};
  layout.dims = D;
  layout.channels = shape.channels;
  layout.mode = static_cast<int>(mode);
  layout.fields = fields;
  layout.pad = mode == Mode::periodic ? 1 : 0;
  for (int d = 0; d < D; ++d) {
    if (shape.extent[d] >= kMaxAxisLength) return "axis longer than 2^30 - 1 samples";
    layout.extent[d] = static_cast<std::int32_t>(shape.extent[d]);
  }
  const int filtered = std::min(D, 3);
  // Array axis a (x, y, z) carries grid axis D-1-a; its texel limit by array kind.
  std::array<std::int64_t, 3> axis_limit{};
  std::int64_t stack_limit = 0;  // bricks along the stacking axis (rows / layers / depth)
  if (D == 1) {
    axis_limit = {lim.width_2d, 1, 1};
    stack_limit = lim.height_2d;
  } else if (D == 2) {
    axis_limit = {lim.width_layered, lim.height_layered, 1};
    stack_limit = lim.layers;
  } else {
    axis_limit = {lim.width_3d, lim.height_3d, lim.depth_3d};
  }
  std::int64_t per_slab = 1;
  for (int a = 0; a < filtered; ++a) {
    const AxisFold f = fold_axis(shape.extent[D - 1 - a] + layout.pad, axis_limit[a]);
    layout.line[a] = f.line;
    layout.segments[a] = f.segments;
    layout.stride[a] = f.stride;
    layout.brick_extent[a] = f.brick;
    layout.folded = layout.folded || f.segments > 1;
    per_slab *= f.segments;
  }
  for (int a = filtered; a < 3; ++a) layout.brick_extent[a] = 1;
  std::int64_t outer = 1;
  for (int d = 0; d < D - 3; ++d) outer *= shape.extent[d];
  layout.slabs = fields * outer;
  layout.bricks = layout.slabs * per_slab;

  const std::int64_t bx = layout.brick_extent[0], by = layout.brick_extent[1], bz = layout.brick_extent[2];
  // Brick indices and texel offsets along the stacking axis are 32-bit in the kernels.
  if (layout.bricks >= (std::int64_t{1} << 31) / bz)
    return "too many texture bricks (" + std::to_string(layout.bricks) + ") to index";
  // Stack along z (D >= 2) or y (D = 1) first, then y, then x.
  std::int64_t tx = 0, ty = 0, tz = 0;
  if (D == 1) {
    tz = 1;
    ty = std::min(layout.bricks, stack_limit);
    tx = (layout.bricks + ty - 1) / ty;
  } else {
    const std::int64_t depth_limit = D == 2 ? stack_limit : lim.depth_3d;
    tz = std::min(layout.bricks, depth_limit / bz);
    const std::int64_t columns = (layout.bricks + tz - 1) / tz;
    ty = std::min(columns, axis_limit[1] / by);
    tx = (columns + ty - 1) / ty;
  }
  const std::int64_t width_limit = axis_limit[0];
  if (tx * bx > width_limit) {
    std::ostringstream msg;
    msg << layout.bricks << " bricks of " << bx << "x" << by << "x" << bz << " texels";
    if (D == 1) msg << " (one per row)";
    msg << " do not fit one " << (D == 1 ? "2-D" : D == 2 ? "layered 2-D" : "3-D") << " array within this device's "
        << "limits " << width_limit << "x" << (D == 1 ? stack_limit : axis_limit[1]);
    if (D >= 2) msg << "x" << (D == 2 ? stack_limit : lim.depth_3d);
    return msg.str();
  }
  layout.tiles = {static_cast<std::int32_t>(tx), static_cast<std::int32_t>(ty), static_cast<std::int32_t>(tz)};
  layout.texels = {tx * bx, ty * by, D == 1 ? 0 : tz * bz};
  // The plain layouts have direct kernels; the 3-D one already handles tiled slabs.
  layout.bricked = layout.folded || (D == 1 && tx > 1) || (D == 2 && (tx > 1 || ty > 1));
  return "";
}

double interp_error_factor(const TextureLayout& layout) {
  double factor = 0;
  for (int a = 0; a < std::min(layout.dims, 3); ++a)
    factor += 0x1p-8 + 0x1p-21 * (static_cast<double>(layout.texels[a]) + 1.0);
  return factor;
}

std::string describe(const TextureLayout& L) {
  std::ostringstream s;
  const int filtered = std::min(L.dims, 3);
  if (L.folded) {
    s << "axes over the texture limits folded into segments of " << kFoldWidth << " texels overlapping by one (";
    bool first = true;
    for (int a = 0; a < filtered; ++a) {
      if (L.segments[a] <= 1) continue;
      s << (first ? "" : ", ") << "axis " << L.dims - 1 - a << ": " << L.line[a] << " texels in " << L.segments[a]
        << " segments";
      first = false;
    }
    s << "); ";
  }
  s << (L.dims == 1 ? "2-D array " : L.dims == 2 ? "layered 2-D array " : "3-D array ") << L.texels[0] << "x"
    << L.texels[1];
  if (L.dims >= 2) s << "x" << L.texels[2];
  s << " texels";
  if (L.bricked || L.dims >= 3)
    s << ", " << L.bricks << (L.bricks == 1 ? " brick" : " bricks") << " of " << L.brick_extent[0] << "x"
      << L.brick_extent[1] << "x" << L.brick_extent[2];
  return s.str();
}

}  // namespace splinebench::gpu
