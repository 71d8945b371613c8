// cpu_simd prefilter kernels (Highway, compiled once per x86 target and dispatched at
// run time). Lines sit in vector lanes:
//   - every axis but the last: the lines are adjacent in memory, so lane j of a vector
//     is line j and a row of samples is one contiguous load; no reshuffling at all;
//   - the last (contiguous) axis: lines are transposed into a scratch block, 4 at a
//     time with 128-bit 4x4 transposes (sample k of up to 4 vectors of lines in one
//     scratch row), filtered there the same way, and transposed back.
#include "cpu_simd/hwy_targets.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu_simd/simd_prefilter.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <algorithm>
#include <cstdint>

#include "cpu_common/line_plan.hpp"
#include "cpu_common/prefilter_driver.hpp"
#include "hwy/cache_control.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace splinebench::cpu::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Rows ahead of the causal pass to prefetch: a row of a column block is a few cache
// lines a whole slab apart, which the hardware prefetcher does not follow.
constexpr std::int64_t kPrefetchRows = 4;

// The two recursions on `lanes` (a multiple of the vector width) adjacent lines.
template <class DF>
HWY_INLINE void FilterColumnsFull(DF df, float* HWY_RESTRICT base, std::int64_t rs, std::int64_t lanes,
                                  const LinePlan& plan) {
  const std::int64_t NL = static_cast<std::int64_t>(hn::Lanes(df));
  const std::int64_t n = plan.n;
  const auto z = hn::Set(df, plan.z);
  const auto gain = hn::Set(df, plan.gain);

  // c+[0] from the initialisation terms (reads of other rows precede the store).
  for (std::int64_t j = 0; j < lanes; j += NL) {
    auto acc = hn::Zero(df);
    for (const InitTerm& t : plan.causal)
      acc = hn::MulAdd(hn::Set(df, t.weight), hn::LoadU(df, base + t.index * rs + j), acc);
    hn::StoreU(acc, df, base + j);
  }
  for (std::int64_t k = 1; k < n; ++k) {
    float* HWY_RESTRICT row = base + k * rs;
    const float* HWY_RESTRICT prev = row - rs;
    if (k + kPrefetchRows < n)
      for (std::int64_t j = 0; j < lanes; j += 16) hwy::Prefetch(row + kPrefetchRows * rs + j);
    for (std::int64_t j = 0; j < lanes; j += NL)
      hn::StoreU(hn::MulAdd(z, hn::LoadU(df, prev + j), hn::Mul(gain, hn::LoadU(df, row + j))), df, row + j);
  }
  // c[N-1] from the causal output.
  float* HWY_RESTRICT last = base + (n - 1) * rs;
  for (std::int64_t j = 0; j < lanes; j += NL) {
    auto acc = hn::Zero(df);
    for (const InitTerm& t : plan.anticausal)
      acc = hn::MulAdd(hn::Set(df, t.weight), hn::LoadU(df, base + t.index * rs + j), acc);
    hn::StoreU(acc, df, last + j);
  }
  for (std::int64_t k = n - 2; k >= 0; --k) {
    float* HWY_RESTRICT row = base + k * rs;
    const float* HWY_RESTRICT next = row + rs;
    for (std::int64_t j = 0; j < lanes; j += NL)
      hn::StoreU(hn::Mul(z, hn::Sub(hn::LoadU(df, next + j), hn::LoadU(df, row + j))), df, row + j);
  }
}

void FilterColumns(float* HWY_RESTRICT base, std::int64_t rs, std::int64_t lanes, const LinePlan& plan,
                   float* HWY_RESTRICT scratch) {
  if (plan.identity) return;
  const hn::ScalableTag<float> df;
  const std::int64_t NL = static_cast<std::int64_t>(hn::Lanes(df));
  const std::int64_t full = lanes / NL * NL;
  if (full > 0) FilterColumnsFull(df, base, rs, full, plan);
  const std::int64_t rest = lanes - full;
  if (rest == 0) return;
  const std::int64_t n = plan.n;
  if (n > kMaxTransposedLength) {  // no room to pad: the few leftover lines one by one
    for (std::int64_t j = full; j < lanes; ++j) filter_line_scalar(base + j, rs, plan);
    return;
  }
  // Leftover lines padded to one vector in scratch (padding lanes filter zeros).
  for (std::int64_t k = 0; k < n; ++k) {
    std::int64_t j = 0;
    for (; j < rest; ++j) scratch[k * NL + j] = base[k * rs + full + j];
    for (; j < NL; ++j) scratch[k * NL + j] = 0.0f;
  }
  FilterColumnsFull(df, scratch, NL, NL, plan);
  for (std::int64_t k = 0; k < n; ++k)
    for (std::int64_t j = 0; j < rest; ++j) base[k * rs + full + j] = scratch[k * NL + j];
}

// Lines filtered together along the contiguous axis: 4 vectors, so that each step of
// the recursion has independent multiply-adds in flight (one vector per scratch row
// would make every step wait for the previous one).
constexpr std::int64_t kRowGroupVectors = 4;
constexpr std::int64_t kRowScratchBytes = 32 * 1024;

#if HWY_TARGET != HWY_SCALAR
using D4 = hn::Full128<float>;

// 4x4 transpose of 128-bit vectors (rows a..d -> columns).
HWY_INLINE void Transpose4(hn::Vec<D4>& a, hn::Vec<D4>& b, hn::Vec<D4>& c, hn::Vec<D4>& d) {
  const D4 d4;
  const auto t0 = hn::InterleaveLower(d4, a, b), t1 = hn::InterleaveLower(d4, c, d);
  const auto t2 = hn::InterleaveUpper(d4, a, b), t3 = hn::InterleaveUpper(d4, c, d);
  a = hn::ConcatLowerLower(d4, t1, t0);
  b = hn::ConcatUpperUpper(d4, t1, t0);
  c = hn::ConcatLowerLower(d4, t3, t2);
  d = hn::ConcatUpperUpper(d4, t3, t2);
}

// Four lines (4 rows of 1 channel, 2 rows of 2, or 1 row of 4) starting at line l of
// rows of n samples <-> 4 columns of scratch (s[k * ws + 0..3] = sample k).
HWY_INLINE void LinesToScratch(const float* HWY_RESTRICT data, std::int64_t l, std::int64_t n, int C,
                               float* HWY_RESTRICT s, std::int64_t ws) {
  const D4 d4;
  const std::int64_t rf = n * C;
  const float* r0 = data + (l / C) * rf;
  std::int64_t k = 0;
  if (C == 1) {
    const float *r1 = r0 + rf, *r2 = r1 + rf, *r3 = r2 + rf;
    for (; k + 4 <= n; k += 4) {
      auto a = hn::LoadU(d4, r0 + k), b = hn::LoadU(d4, r1 + k), c = hn::LoadU(d4, r2 + k), d = hn::LoadU(d4, r3 + k);
      Transpose4(a, b, c, d);
      hn::Store(a, d4, s + k * ws);
      hn::Store(b, d4, s + (k + 1) * ws);
      hn::Store(c, d4, s + (k + 2) * ws);
      hn::Store(d, d4, s + (k + 3) * ws);
    }
    for (; k < n; ++k) {
      s[k * ws] = r0[k];
      s[k * ws + 1] = r1[k];
      s[k * ws + 2] = r2[k];
      s[k * ws + 3] = r3[k];
    }
  } else if (C == 2) {
    const float* r1 = r0 + rf;
    for (; k + 2 <= n; k += 2) {
      const auto a = hn::LoadU(d4, r0 + 2 * k), b = hn::LoadU(d4, r1 + 2 * k);
      hn::Store(hn::ConcatLowerLower(d4, b, a), d4, s + k * ws);
      hn::Store(hn::ConcatUpperUpper(d4, b, a), d4, s + (k + 1) * ws);
    }
    for (; k < n; ++k) {
      s[k * ws] = r0[2 * k];
      s[k * ws + 1] = r0[2 * k + 1];
      s[k * ws + 2] = r1[2 * k];
      s[k * ws + 3] = r1[2 * k + 1];
    }
  } else {  // C == 4: sample k's 4 channels are the 4 lines
    for (; k < n; ++k) hn::Store(hn::LoadU(d4, r0 + 4 * k), d4, s + k * ws);
  }
}

HWY_INLINE void ScratchToLines(const float* HWY_RESTRICT s, std::int64_t ws, std::int64_t n, int C,
                               float* HWY_RESTRICT data, std::int64_t l) {
  const D4 d4;
  const std::int64_t rf = n * C;
  float* r0 = data + (l / C) * rf;
  std::int64_t k = 0;
  if (C == 1) {
    float *r1 = r0 + rf, *r2 = r1 + rf, *r3 = r2 + rf;
    for (; k + 4 <= n; k += 4) {
      auto a = hn::Load(d4, s + k * ws), b = hn::Load(d4, s + (k + 1) * ws);
      auto c = hn::Load(d4, s + (k + 2) * ws), d = hn::Load(d4, s + (k + 3) * ws);
      Transpose4(a, b, c, d);
      hn::StoreU(a, d4, r0 + k);
      hn::StoreU(b, d4, r1 + k);
      hn::StoreU(c, d4, r2 + k);
      hn::StoreU(d, d4, r3 + k);
    }
    for (; k < n; ++k) {
      r0[k] = s[k * ws];
      r1[k] = s[k * ws + 1];
      r2[k] = s[k * ws + 2];
      r3[k] = s[k * ws + 3];
    }
  } else if (C == 2) {
    float* r1 = r0 + rf;
    for (; k + 2 <= n; k += 2) {
      const auto a = hn::Load(d4, s + k * ws), b = hn::Load(d4, s + (k + 1) * ws);
      hn::StoreU(hn::ConcatLowerLower(d4, b, a), d4, r0 + 2 * k);
      hn::StoreU(hn::ConcatUpperUpper(d4, b, a), d4, r1 + 2 * k);
    }
    for (; k < n; ++k) {
      r0[2 * k] = s[k * ws];
      r0[2 * k + 1] = s[k * ws + 1];
      r1[2 * k] = s[k * ws + 2];
      r1[2 * k + 1] = s[k * ws + 3];
    }
  } else {
    for (; k < n; ++k) hn::StoreU(hn::Load(d4, s + k * ws), d4, r0 + 4 * k);
  }
}
#endif  // HWY_TARGET != HWY_SCALAR

void FilterRows(float* HWY_RESTRICT data, std::int64_t rows, int C, const LinePlan& plan,
                float* HWY_RESTRICT scratch) {
  if (plan.identity) return;
  const std::int64_t n = plan.n;
  const std::int64_t row_floats = n * C;
  const std::int64_t lines = rows * C;
  std::int64_t done = 0;  // lines filtered so far
#if HWY_TARGET == HWY_SCALAR
  (void)scratch;
#else
  const hn::ScalableTag<float> df;
  const std::int64_t NL = static_cast<std::int64_t>(hn::Lanes(df));
  // Lines go to scratch in groups of 4 (one 128-bit transpose per 4 samples), a block
  // of `width` lines at a time; the few lines that do not fill a group of 4 are left
  // to the scalar loop below.
  if (n <= kMaxTransposedLength && lines >= 4) {
    // Scratch row width: up to kRowGroupVectors vectors, as long as the block stays in
    // L1 (the filter makes two passes over it), and no wider than the lines need.
    const std::int64_t fit_l1 = std::max<std::int64_t>(1, kRowScratchBytes / (4 * n * NL)) * NL;
    const std::int64_t width = std::min({kRowGroupVectors * NL, fit_l1, (lines / 4 + NL / 4 - 1) / (NL / 4) * NL});
    const std::int64_t whole = lines / 4 * 4;
    for (std::int64_t l0 = 0; l0 < whole; l0 += width) {
      const std::int64_t count = std::min(width, whole - l0);  // a multiple of 4
      for (std::int64_t g = 0; g < width; g += 4) {
        if (g < count) {
          LinesToScratch(data, l0 + g, n, C, scratch + g, width);
        } else {  // no lines left for these lanes: filter zeros
          for (std::int64_t k = 0; k < n; ++k) hn::Store(hn::Zero(D4()), D4(), scratch + k * width + g);
        }
      }
      FilterColumnsFull(df, scratch, width, width, plan);
      for (std::int64_t g = 0; g < count; g += 4) ScratchToLines(scratch + g, width, n, C, data, l0 + g);
    }
    done = whole;
  }
  // The 1-3 lines that do not fill a group of 4, padded with zero lines to one vector:
  // the same vector arithmetic (multiply-adds) as every other line, so a line's result
  // does not depend on how the rows were split into calls (the driver's fused slab pass
  // relies on that to stay bit-identical to the axis-by-axis passes).
  if (n <= kMaxTransposedLength && done < lines) {
    const std::int64_t rest = lines - done;
    auto sample = [&](std::int64_t l, std::int64_t k) -> float& { return data[(l / C) * row_floats + k * C + l % C]; };
    for (std::int64_t k = 0; k < n; ++k)
      for (std::int64_t j = 0; j < NL; ++j) scratch[k * NL + j] = j < rest ? sample(done + j, k) : 0.0f;
    FilterColumnsFull(df, scratch, NL, NL, plan);
    for (std::int64_t k = 0; k < n; ++k)
      for (std::int64_t j = 0; j < rest; ++j) sample(done + j, k) = scratch[k * NL + j];
    done = lines;
  }
#endif
  for (std::int64_t l = done; l < lines; ++l) filter_line_scalar(data + (l / C) * row_floats + l % C, C, plan);
}

}  // namespace splinebench::cpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "cpu_simd/simd_kernels.hpp"

namespace splinebench::cpu::simd {

HWY_EXPORT(FilterColumns);
HWY_EXPORT(FilterRows);

namespace {
void filter_columns(float* base, std::int64_t rs, std::int64_t lanes, const LinePlan& plan, float* scratch) {
  HWY_DYNAMIC_DISPATCH(FilterColumns)(base, rs, lanes, plan, scratch);
}
void filter_rows(float* data, std::int64_t rows, int channels, const LinePlan& plan, float* scratch) {
  HWY_DYNAMIC_DISPATCH(FilterRows)(data, rows, channels, plan, scratch);
}
}  // namespace

PrefilterKernels prefilter_kernels() { return {&filter_columns, &filter_rows}; }

}  // namespace splinebench::cpu::simd
#endif  // HWY_ONCE
