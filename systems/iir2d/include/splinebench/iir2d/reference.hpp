// CPU filters: the double-precision oracle every scheme is checked against, and a
// float32 version with sequential sums (the error model's plain case).
#pragma once

#include <vector>

#include "splinebench/iir2d/filter.hpp"

namespace splinebench::iir2d {

// y = the filter of x in double precision (x and b widened exactly). Validates first.
std::vector<double> filter_f64(const Shape& shape, const std::vector<float>& x, const Window& window,
                               Quadrant quadrant = Quadrant::pp);
std::vector<double> filter_f64(const Shape& shape, const std::vector<double>& x, const Window& window,
                               Quadrant quadrant = Quadrant::pp);

// The same loops in float32, terms summed in (k, l) row-major order.
std::vector<float> filter_f32(const Shape& shape, const std::vector<float>& x, const Window& window,
                              Quadrant quadrant = Quadrant::pp);

// float32 in the GPU schemes' summation order (cuda/device_common.cuh window_sum: 32
// lanes, 4 interleaved accumulators per lane, a tree over the lanes, x added last),
// with fused multiply-adds: the schemes' results bit for bit. ++ quadrant only.
std::vector<float> filter_f32_warp_order(const Shape& shape, const std::vector<float>& x, const Window& window);

// float32 in flex_strips' summation order (strip_order.hpp: terms grouped by source row,
// per-warp ranges of source rows, strips added top-down, the two chain terms last), with
// fused multiply-adds where the kernel has them: its results bit for bit. ++ quadrant only.
std::vector<float> filter_f32_strip_order(const Shape& shape, const std::vector<float>& x, const Window& window);

// The image flipped along axis 0 and/or axis 1 (for the quadrant checks).
template <typename T>
std::vector<T> flip(const Shape& shape, const std::vector<T>& a, bool axis0, bool axis1);

}  // namespace splinebench::iir2d
