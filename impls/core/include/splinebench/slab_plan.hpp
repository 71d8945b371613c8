// Splitting axis 0 into slabs, and what every slab driver does alike: the slab starts
// checked, the spans they give, and axes 1..D-1 filtered inside a run of planes (a line
// along those axes lies inside one plane, so a slab filters them alone). Used by the
// sequential driver (slab_prefilter.hpp), the streamed sweep (slab_streamed.hpp) and the
// ranks (slab_ranks.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "splinebench/oracle.hpp"
#include "splinebench/slab_steps.hpp"
#include "splinebench/types.hpp"

namespace splinebench::slab {

// `starts`: the first plane of each slab, strictly increasing from 0, each below n; a
// slab runs to the next start (the last to n).
inline void check_starts(const std::vector<std::int64_t>& starts, std::int64_t n, const std::string& who) {
  if (starts.empty() || starts.front() != 0) throw std::invalid_argument(who + ": the first slab starts at plane 0");
  for (std::size_t s = 1; s < starts.size(); ++s)
    if (starts[s] <= starts[s - 1] || starts[s] >= n)
      throw std::invalid_argument(who + ": slab starts must increase and stay below extent[0]");
}

// S slabs of n planes, sizes differing by at most one (the first ones larger).
inline std::vector<std::int64_t> balanced_starts(std::int64_t n, int slabs) {
  if (slabs < 1 || slabs > n) throw std::invalid_argument("balanced_starts: 1 <= slabs <= n");
  std::vector<std::int64_t> starts(static_cast<std::size_t>(slabs));
  for (int s = 0; s < slabs; ++s) starts[s] = n / slabs * s + std::min<std::int64_t>(s, n % slabs);
  return starts;
}

inline SlabSpan span_of(const std::vector<std::int64_t>& starts, int r, std::int64_t n, std::int64_t P) {
  const std::int64_t start = starts[static_cast<std::size_t>(r)];
  const std::int64_t end = r + 1 < static_cast<int>(starts.size()) ? starts[static_cast<std::size_t>(r) + 1] : n;
  return {n, start, end - start, P};
}

inline std::vector<SlabSpan> spans_of(const std::vector<std::int64_t>& starts, std::int64_t n, std::int64_t P) {
  std::vector<SlabSpan> spans;
  for (int r = 0; r < static_cast<int>(starts.size()); ++r) spans.push_back(span_of(starts, r, n, P));
  return spans;
}

inline GridShape with_planes(GridShape shape, std::int64_t planes) {
  shape.extent[0] = planes;
  return shape;
}

// Axes 1..D-1 of `planes` consecutive planes of one field of `shape` at `d`.
template <typename Real>
void filter_inner_axes(const GridShape& shape, std::int64_t planes, Real* d, Mode mode) {
  const GridShape local = with_planes(shape, planes);
  const int C = shape.channels;
  for (int axis = 1; axis < shape.dims; ++axis) {
    const std::int64_t na = shape.extent[axis], stride = local.stride(axis);
    const std::int64_t inner = stride / C, outer = local.points() / (na * inner);
    const std::vector<Real> zpow = oracle::rounded_pole_powers<Real>(2 * na + 1);
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t i = 0; i < inner; ++i)
        oracle::prefilter_line<Real>(d + o * na * stride + i * C, na, stride, C, mode, zpow);
  }
}

}  // namespace splinebench::slab
