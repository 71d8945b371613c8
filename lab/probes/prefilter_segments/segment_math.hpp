// One lane's share of the 1-D cubic B-spline prefilter by truncated halos (the truncation
// gpu_flex's tiles make, impls/gpu_flex/README.md, applied per 16 outputs): outputs
// s .. s + kSeg - 1 of a line from its folded samples s - kHalo .. s + kSeg + kHalo - 1,
// with no state from any other lane, warp or block.
//
// Why a halo can replace the carry: the causal state entering sample s is
// sum_{j>0} z^j (6 f[s - j]) over the mode's extension, and |z|^16 = 7e-10, so starting the
// recursion from zero kHalo samples earlier changes c+ by at most 7e-10 of the largest
// |c+| ahead of it, far below f32's rounding (2^-24 = 6e-8). The anti-causal state entering
// from the right is likewise a sum of z^j c+[s + kSeg - 1 + j]; those c+ are computed here
// from the right halo. The mode enters only through the folding of the halo's indices (a
// line's prefilter with the mode's boundary rule is the infinite recursion on the mode's
// extension), so every mode is the same code.
#pragma once

#include <cmath>
#include <cstdint>

#include "splinebench/bspline_math.hpp"

namespace segments {

inline constexpr int kSeg = 16;   // outputs per lane
inline constexpr int kHalo = 16;  // truncation length on each side

// in[0 .. kHalo + kSeg + kHalo - 1] = f at s - kHalo .. s + kSeg + kHalo - 1 (folded);
// out[0 .. kSeg - 1] = c at s .. s + kSeg - 1. The oracle's arithmetic (gain in the causal
// step, c[k] = z (c[k+1] - c+[k])) in f32 FMAs, in this order on every device.
SPLINEBENCH_HD void lane_outputs(const float* in, float* out) {
  const float z = static_cast<float>(splinebench::bspline::kPole);
  float cp[kSeg + kHalo];
  float st = 0.f;
  for (int k = 0; k < kHalo; ++k) st = fmaf(z, st, 6.f * in[k]);
  for (int k = 0; k < kSeg + kHalo; ++k) {
    st = fmaf(z, st, 6.f * in[kHalo + k]);
    cp[k] = st;
  }
  float c = 0.f;
  for (int k = kSeg + kHalo - 1; k >= 0; --k) {
    c = z * (c - cp[k]);
    if (k < kSeg) out[k] = c;
  }
}

}  // namespace segments
