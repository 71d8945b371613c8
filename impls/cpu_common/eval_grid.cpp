#include "eval_grid.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "splinebench/bspline_math.hpp"
#include "splinebench/error.hpp"

namespace splinebench::cpu {

namespace {

// AMD family 0x1A (Zen 5), from CPUID.
bool is_amd_zen5() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d) == 0) return false;
  char vendor[12];
  std::memcpy(vendor, &b, 4);
  std::memcpy(vendor + 4, &d, 4);
  std::memcpy(vendor + 8, &c, 4);
  if (std::memcmp(vendor, "AuthenticAMD", 12) != 0) return false;
  if (__get_cpuid(1, &a, &b, &c, &d) == 0) return false;
  const unsigned base = (a >> 8) & 0xF;
  const unsigned family = base == 0xF ? base + ((a >> 20) & 0xFF) : base;
  return family == 0x1A;
#else
  return false;
#endif
}

}  // namespace

bool prefetch_rows_pays(int dims, std::int64_t field_bytes) {
  static const bool zen5 = is_amd_zen5();
  constexpr std::int64_t kZen5L3 = std::int64_t{32} << 20;
  return !(zen5 && dims >= 3 && field_bytes <= kZen5L3);
}

EvalGrid make_eval_grid(const GridShape& shape, Mode mode) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
  if (shape.values() > kMax)
    throw Unsupported("one field holds " + std::to_string(shape.values()) +
                      " values; the 32-bit gather offsets of the SIMD evaluation address at most 2^31-1");
  EvalGrid g;
  g.dims = shape.dims;
  g.channels = shape.channels;
  g.mode = mode;
  g.prefetch_rows = prefetch_rows_pays(shape.dims, shape.values() * static_cast<std::int64_t>(sizeof(float)));
  for (int d = 0; d < shape.dims; ++d) {
    const std::int64_t period = bspline::mode_period(static_cast<int>(mode), shape.extent[d]);
    if (period > kMax) throw Unsupported("axis " + std::to_string(d) + " is too long for 32-bit folding");
    g.axis[d].extent = static_cast<std::int32_t>(shape.extent[d]);
    g.axis[d].stride = static_cast<std::int32_t>(shape.stride(d));
    g.axis[d].period = static_cast<std::int32_t>(period);
  }
  return g;
}

namespace {

// Sum over the taps of axes [level, D): 4 terms per level, so rounding grows with D.
void accumulate(const EvalGrid& g, int level, const float* c, const std::int64_t (&offset)[kMaxDims][4],
                const float (&w)[kMaxDims][4], float* out) {
  const int C = g.channels;
  if (level == g.dims) {
    for (int ch = 0; ch < C; ++ch) out[ch] = c[ch];
    return;
  }
  float acc[4] = {0, 0, 0, 0};
  for (int t = 0; t < 4; ++t) {
    float part[4];
    accumulate(g, level + 1, c + offset[level][t], offset, w, part);
    for (int ch = 0; ch < C; ++ch) acc[ch] += w[level][t] * part[ch];
  }
  for (int ch = 0; ch < C; ++ch) out[ch] = acc[ch];
}

}  // namespace

void evaluate_point_scalar(const EvalGrid& g, const float* coeffs, const float* x, float* out) {
  const int m = static_cast<int>(g.mode);
  std::int64_t offset[kMaxDims][4];
  float w[kMaxDims][4];
  for (int d = 0; d < g.dims; ++d) {
    if (!std::isfinite(x[d])) {
      for (int ch = 0; ch < g.channels; ++ch) out[ch] = std::numeric_limits<float>::quiet_NaN();
      return;
    }
    const float fl = std::floor(x[d]);
    bspline::weights<float>(x[d] - fl, w[d]);
    // fmod in double is exact (fl and the period are exact there), so any finite
    // coordinate folds without overflowing the integer conversion.
    const auto cell = static_cast<std::int64_t>(
        std::fmod(static_cast<double>(fl), static_cast<double>(g.axis[d].period)));
    for (int t = 0; t < 4; ++t)
      offset[d][t] = g.axis[d].stride * bspline::fold_index(m, cell + t - 1, g.axis[d].extent);
  }
  accumulate(g, 0, coeffs, offset, w, out);
}

}  // namespace splinebench::cpu
