// Evaluating a field split along axis 0 into slabs: each slab keeps its planes and a
// 3-plane overlap (one plane before, two after, as the mode's extension has them), and a
// query goes to the slab whose extended planes hold its whole 4-tap footprint along
// axis 0. Header-only, usable from device code.
//
// Slab [start, start + len) of a line of n planes keeps len + 3 extended planes: local
// plane j holds the line's plane fold(start - 1 + j), j = 0 .. len + 2.
#pragma once

#include <cstdint>

#include "splinebench/bspline_math.hpp"

namespace splinebench::slab {

// The line's plane held by local extended plane j of the slab starting at `start`.
SPLINEBENCH_HD std::int64_t extended_plane(int mode, std::int64_t start, std::int64_t j, std::int64_t n) {
  return bspline::fold_index(mode, start - 1 + j, n);
}

// Where a query's axis-0 taps live. `cell` is floor(x) reduced modulo the mode's period,
// as the evaluators fold it; the taps are the planes fold(cell + t - 1), t = 0..3.
// `home` is the plane whose slab holds all four in its extended planes; local_tap(t)
// gives tap t's local extended plane in that slab.
struct TapHome {
  std::int64_t home = 0;
  bool periodic = false;
};

SPLINEBENCH_HD TapHome tap_home(int mode, std::int64_t cell, std::int64_t n) {
  TapHome h;
  if (mode == 2) {  // periodic: the taps are home-1 .. home+2, unwrapped by the extension
    h.periodic = true;
    h.home = bspline::fold_index(mode, cell, n);
    return h;
  }
  // mirror, half: the fold of four consecutive integers is at most four consecutive planes
  std::int64_t lo = bspline::fold_index(mode, cell - 1, n);
  for (int t = 1; t < 4; ++t) {
    const std::int64_t i = bspline::fold_index(mode, cell + t - 1, n);
    lo = i < lo ? i : lo;
  }
  h.home = lo + 1 < n ? lo + 1 : n - 1;
  return h;
}

// Tap t's local extended plane in the slab starting at `start` (which holds h.home).
SPLINEBENCH_HD std::int64_t local_tap(int mode, const TapHome& h, std::int64_t cell, int t, std::int64_t start,
                                      std::int64_t n) {
  if (h.periodic) return h.home + t - 1 - (start - 1);
  return bspline::fold_index(mode, cell + t - 1, n) - (start - 1);
}

// The slab holding plane k: the last start <= k (starts increasing from 0).
SPLINEBENCH_HD int slab_of(const std::int64_t* starts, int slabs, std::int64_t k) {
  int lo = 0, hi = slabs - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (starts[mid] <= k) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

}  // namespace splinebench::slab
