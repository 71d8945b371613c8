#include "splinebench/iir2d/accuracy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "splinebench/error.hpp"
#include "splinebench/iir2d/strip_order.hpp"

namespace splinebench::iir2d {

Accuracy compare(const std::vector<float>& y, const std::vector<double>& y_ref) {
  if (y.size() != y_ref.size()) throw Error("iir2d: compare of images of different sizes");
  Accuracy a;
  bool bad = false;
  for (std::size_t n = 0; n < y.size(); ++n) {
    const double r = y_ref[n];
    if (std::isfinite(r)) a.max_ref = std::max(a.max_ref, std::fabs(r));
    if (std::isnan(y[n]) && std::isfinite(r)) {
      ++a.unwritten;
      continue;
    }
    if (!std::isfinite(y[n]) || !std::isfinite(r)) {
      ++a.nonfinite;
      bad = true;
      continue;
    }
    a.max_abs = std::max(a.max_abs, std::fabs(static_cast<double>(y[n]) - r));
  }
  if (bad || a.unwritten) a.max_rel = std::numeric_limits<double>::quiet_NaN();
  else a.max_rel = a.max_ref > 0 ? a.max_abs / a.max_ref : a.max_abs;
  return a;
}

double error_bound(int depth, double gain) {
  if (gain >= 1.0) return std::numeric_limits<double>::infinity();
  const double u = std::ldexp(1.0, -24);
  const double nu = depth * u;
  return nu / (1.0 - nu) * (1.0 + 2.0 * gain) / (1.0 - gain);
}

int gpu_sum_depth(int M) {
  const int terms = M * M - 1;
  const int per_lane = (terms + 31) / 32;
  return (per_lane + 3) / 4 + 2 + 5 + 1;
}

int sequential_sum_depth(int M) { return M * M; }

int strip_sum_depth(int M) { return M + strip_terms_per_warp(M) + 2 + (1 + (M - 1 + 31) / 32) + 3; }

namespace {
// The worst-case bound of a sum chain of depth d, with what the chain is made of.
Tolerance depth_tolerance(int d, double gain, const char* chain) {
  Tolerance t;
  t.max_rel = error_bound(d, gain);
  std::ostringstream b;
  b << "worst case gamma_d (1 + 2g) / (1 - g) with summation depth d = " << d << " (" << chain
    << ") and g = sum|b| = " << gain << " (systems/iir2d/include/splinebench/iir2d/accuracy.hpp)";
  t.basis = b.str();
  return t;
}
}  // namespace

Tolerance gpu_tolerance(int M, double gain) {
  return depth_tolerance(gpu_sum_depth(M), gain, "32 lanes x 4 accumulators, warp tree, + x");
}

Tolerance strip_tolerance(int M, double gain) {
  return depth_tolerance(strip_sum_depth(M), gain,
                         "per-row fma chains, 4 warps' ranges, strips top-down, + x and the two chain terms");
}

}  // namespace splinebench::iir2d
