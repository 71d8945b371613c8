// cpu_simd prefilter kernels (Highway, compiled once per x86 target and dispatched at
// run time). Lines sit in vector lanes:
//   - every axis but the last: the lines are adjacent in memory, so lane j of a vector
//     is line j and a row of samples is one contiguous load; no reshuffling at all;
//   - the last (contiguous) axis: a group of as many lines as lanes is gathered into a
//     transposed scratch block (sample k of every line in one vector), filtered there
//     the same way, and gathered back row by row.
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

void FilterRows(float* HWY_RESTRICT data, std::int64_t rows, int C, const LinePlan& plan,
                float* HWY_RESTRICT scratch) {
  if (plan.identity) return;
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const std::int64_t NL = static_cast<std::int64_t>(hn::Lanes(df));
  const std::int64_t n = plan.n;
  const std::int64_t row_floats = n * C;
  const std::int64_t lines = rows * C;
  // Too long to transpose, or too few lines to fill a quarter of a vector: one by one.
  if (n > kMaxTransposedLength || 4 * lines < NL) {
    for (std::int64_t l = 0; l < lines; ++l) filter_line_scalar(data + (l / C) * row_floats + l % C, C, plan);
    return;
  }
  if (C == NL) {  // a row is already NL lines side by side (4 channels on 128-bit vectors)
    for (std::int64_t r = 0; r < rows; ++r) FilterColumnsFull(df, data + r * row_floats, C, C, plan);
    return;
  }
  HWY_ALIGN std::int32_t gather_in[hn::MaxLanes(di)];
  HWY_ALIGN std::int32_t gather_out[hn::MaxLanes(di)];
  const bool row_writeback = NL % C == 0;  // false only for 1-lane targets
  for (std::int64_t j = 0; j < NL; ++j) gather_out[j] = static_cast<std::int32_t>((j / C) * NL + j % C);
  const auto out_index = hn::Load(di, gather_out);
  for (std::int64_t l0 = 0; l0 < lines; l0 += NL) {
    const std::int64_t valid = std::min(NL, lines - l0);
    const std::int64_t first = (l0 / C) * row_floats + l0 % C;  // offset of line l0
    // Lane i reads line l0 + i; lanes past the last line repeat it and are not written back.
    for (std::int64_t i = 0; i < NL; ++i) {
      const std::int64_t l = l0 + std::min(i, valid - 1);
      gather_in[i] = static_cast<std::int32_t>((l / C) * row_floats + l % C - first);
    }
    const auto in_index = hn::Load(di, gather_in);
    const float* src = data + first;
    for (std::int64_t k = 0; k < n; ++k) hn::Store(hn::GatherIndex(df, src + k * C, in_index), df, scratch + k * NL);
    FilterColumnsFull(df, scratch, NL, NL, plan);
    if (row_writeback && valid == NL) {
      // Row r of the group, floats [p0, p0 + NL): sample p/C, channel p%C sits at
      // scratch[(p/C)*NL + r*C + p%C].
      for (std::int64_t r = 0; r < NL / C; ++r) {
        float* row = data + (l0 / C + r) * row_floats;
        std::int64_t p = 0;
        for (; p + NL <= row_floats; p += NL)
          hn::StoreU(hn::GatherIndex(df, scratch + (p / C) * NL + r * C, out_index), df, row + p);
        for (; p < row_floats; ++p) row[p] = scratch[(p / C) * NL + r * C + p % C];
      }
    } else {
      for (std::int64_t i = 0; i < valid; ++i) {
        const std::int64_t l = l0 + i;
        float* line = data + (l / C) * row_floats + l % C;
        for (std::int64_t k = 0; k < n; ++k) line[k * C] = scratch[k * NL + i];
      }
    }
  }
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
