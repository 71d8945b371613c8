// cpu_sse prefilter kernels: 4 lines in the 4 lanes of an SSE register, the historical
// way. Every axis but the last: 4 adjacent lines are one 16-byte load per sample. The
// last (contiguous) axis: 4 rows are transposed 4x4 at a time into a scratch block
// (sample k of the 4 lines in one register; four such groups side by side), filtered
// there, and transposed back; 2-channel rows pair up, 4-channel rows need no transpose.
#include "cpu_sse/sse_kernels.hpp"

#if defined(__SSE4_1__)
#include <smmintrin.h>

#include <algorithm>
#include <cstdint>

#include "cpu_common/line_plan.hpp"

namespace splinebench::cpu::sse {
namespace {

// Both recursions on `lanes` (a multiple of 4) adjacent lines: line j's sample k is
// base[k * rs + j]. Rows 4 ahead are prefetched: a column block's rows are a slab
// apart, which the hardware prefetcher does not follow.
void filter_columns_full(float* base, std::int64_t rs, std::int64_t lanes, const LinePlan& plan) {
  const std::int64_t n = plan.n;
  const __m128 z = _mm_set1_ps(plan.z);
  const __m128 gain = _mm_set1_ps(plan.gain);
  for (std::int64_t j = 0; j < lanes; j += 4) {
    __m128 acc = _mm_setzero_ps();
    for (const InitTerm& t : plan.causal)
      acc = _mm_add_ps(acc, _mm_mul_ps(_mm_set1_ps(t.weight), _mm_loadu_ps(base + t.index * rs + j)));
    _mm_storeu_ps(base + j, acc);
  }
  for (std::int64_t k = 1; k < n; ++k) {
    float* row = base + k * rs;
    const float* prev = row - rs;
    if (k + 4 < n)
      for (std::int64_t j = 0; j < lanes; j += 16)
        _mm_prefetch(reinterpret_cast<const char*>(row + 4 * rs + j), _MM_HINT_T0);
    for (std::int64_t j = 0; j < lanes; j += 4)
      _mm_storeu_ps(row + j, _mm_add_ps(_mm_mul_ps(gain, _mm_loadu_ps(row + j)),
                                        _mm_mul_ps(z, _mm_loadu_ps(prev + j))));
  }
  float* last = base + (n - 1) * rs;
  for (std::int64_t j = 0; j < lanes; j += 4) {
    __m128 acc = _mm_setzero_ps();
    for (const InitTerm& t : plan.anticausal)
      acc = _mm_add_ps(acc, _mm_mul_ps(_mm_set1_ps(t.weight), _mm_loadu_ps(base + t.index * rs + j)));
    _mm_storeu_ps(last + j, acc);
  }
  for (std::int64_t k = n - 2; k >= 0; --k) {
    float* row = base + k * rs;
    const float* next = row + rs;
    for (std::int64_t j = 0; j < lanes; j += 4)
      _mm_storeu_ps(row + j, _mm_mul_ps(z, _mm_sub_ps(_mm_loadu_ps(next + j), _mm_loadu_ps(row + j))));
  }
}

void filter_columns(float* base, std::int64_t rs, std::int64_t lanes, const LinePlan& plan, float* scratch) {
  if (plan.identity) return;
  const std::int64_t full = lanes / 4 * 4;
  if (full > 0) filter_columns_full(base, rs, full, plan);
  const std::int64_t rest = lanes - full;
  if (rest == 0) return;
  const std::int64_t n = plan.n;
  if (n > kMaxTransposedLength) {
    for (std::int64_t j = full; j < lanes; ++j) filter_line_scalar(base + j, rs, plan);
    return;
  }
  // The 1-3 leftover lines padded with zero lines to one register.
  for (std::int64_t k = 0; k < n; ++k)
    for (std::int64_t j = 0; j < 4; ++j) scratch[k * 4 + j] = j < rest ? base[k * rs + full + j] : 0.0f;
  filter_columns_full(scratch, 4, 4, plan);
  for (std::int64_t k = 0; k < n; ++k)
    for (std::int64_t j = 0; j < rest; ++j) base[k * rs + full + j] = scratch[k * 4 + j];
}

// Scratch holds sample k of 16 lines in row k (ws = 16 floats): four groups of 4
// lines, so each step of the recursion has four independent registers in flight.
constexpr std::int64_t kGroups = 4;
constexpr std::int64_t ws = 4 * kGroups;

// Four 1-channel rows r[0..3] <-> s[k * ws + i] = r[i][k] (s: one group's columns).
void rows_to_scratch_c1(float* const r[4], std::int64_t n, float* s) {
  std::int64_t k = 0;
  for (; k + 4 <= n; k += 4) {
    __m128 a = _mm_loadu_ps(r[0] + k), b = _mm_loadu_ps(r[1] + k);
    __m128 c = _mm_loadu_ps(r[2] + k), d = _mm_loadu_ps(r[3] + k);
    _MM_TRANSPOSE4_PS(a, b, c, d);
    _mm_storeu_ps(s + ws * k, a);
    _mm_storeu_ps(s + ws * (k + 1), b);
    _mm_storeu_ps(s + ws * (k + 2), c);
    _mm_storeu_ps(s + ws * (k + 3), d);
  }
  for (; k < n; ++k) _mm_storeu_ps(s + ws * k, _mm_setr_ps(r[0][k], r[1][k], r[2][k], r[3][k]));
}

void scratch_to_rows_c1(const float* s, std::int64_t n, float* const r[4]) {
  std::int64_t k = 0;
  for (; k + 4 <= n; k += 4) {
    __m128 a = _mm_loadu_ps(s + ws * k), b = _mm_loadu_ps(s + ws * (k + 1));
    __m128 c = _mm_loadu_ps(s + ws * (k + 2)), d = _mm_loadu_ps(s + ws * (k + 3));
    _MM_TRANSPOSE4_PS(a, b, c, d);
    _mm_storeu_ps(r[0] + k, a);
    _mm_storeu_ps(r[1] + k, b);
    _mm_storeu_ps(r[2] + k, c);
    _mm_storeu_ps(r[3] + k, d);
  }
  for (; k < n; ++k)
    for (int i = 0; i < 4; ++i) r[i][k] = s[ws * k + i];
}

// Two 2-channel rows a, b <-> s[k * ws + ...] = (a[k].0, a[k].1, b[k].0, b[k].1).
void rows_to_scratch_c2(const float* a, const float* b, std::int64_t n, float* s) {
  std::int64_t k = 0;
  for (; k + 2 <= n; k += 2) {
    const __m128 va = _mm_loadu_ps(a + 2 * k), vb = _mm_loadu_ps(b + 2 * k);
    _mm_storeu_ps(s + ws * k, _mm_movelh_ps(va, vb));
    _mm_storeu_ps(s + ws * (k + 1), _mm_movehl_ps(vb, va));
  }
  if (k < n) _mm_storeu_ps(s + ws * k, _mm_setr_ps(a[2 * k], a[2 * k + 1], b[2 * k], b[2 * k + 1]));
}

void scratch_to_rows_c2(const float* s, std::int64_t n, float* a, float* b) {
  std::int64_t k = 0;
  for (; k + 2 <= n; k += 2) {
    const __m128 s0 = _mm_loadu_ps(s + ws * k), s1 = _mm_loadu_ps(s + ws * (k + 1));
    _mm_storeu_ps(a + 2 * k, _mm_movelh_ps(s0, s1));
    _mm_storeu_ps(b + 2 * k, _mm_movehl_ps(s1, s0));
  }
  if (k < n) {
    a[2 * k] = s[ws * k];
    a[2 * k + 1] = s[ws * k + 1];
    b[2 * k] = s[ws * k + 2];
    b[2 * k + 1] = s[ws * k + 3];
  }
}

void filter_rows(float* data, std::int64_t rows, int C, const LinePlan& plan, float* scratch) {
  if (plan.identity) return;
  const std::int64_t n = plan.n;
  const std::int64_t row_floats = n * C;
  auto row = [&](std::int64_t r) { return data + r * row_floats; };
  if (C == 4) {  // a row already holds its 4 lines side by side
    for (std::int64_t r = 0; r < rows; ++r) filter_columns_full(row(r), 4, 4, plan);
    return;
  }
  const std::int64_t group = 4 / C;  // rows per register
  const std::int64_t block = kGroups * group;  // rows per scratch block
  std::int64_t r = 0;
  if (n <= kMaxTransposedLength) {
    for (; r + block <= rows; r += block) {
      for (std::int64_t g = 0; g < kGroups; ++g) {
        const std::int64_t rg = r + g * group;
        if (C == 1) {
          float* const rs[4] = {row(rg), row(rg + 1), row(rg + 2), row(rg + 3)};
          rows_to_scratch_c1(rs, n, scratch + 4 * g);
        } else {
          rows_to_scratch_c2(row(rg), row(rg + 1), n, scratch + 4 * g);
        }
      }
      filter_columns_full(scratch, ws, ws, plan);
      for (std::int64_t g = 0; g < kGroups; ++g) {
        const std::int64_t rg = r + g * group;
        if (C == 1) {
          float* const rs[4] = {row(rg), row(rg + 1), row(rg + 2), row(rg + 3)};
          scratch_to_rows_c1(scratch + 4 * g, n, rs);
        } else {
          scratch_to_rows_c2(scratch + 4 * g, n, row(rg), row(rg + 1));
        }
      }
    }
    // Leftover whole registers, one group at a time.
    for (; r + group <= rows; r += group) {
      if (C == 1) {
        float* const rs[4] = {row(r), row(r + 1), row(r + 2), row(r + 3)};
        rows_to_scratch_c1(rs, n, scratch);
        filter_columns_full(scratch, ws, 4, plan);
        scratch_to_rows_c1(scratch, n, rs);
      } else {
        rows_to_scratch_c2(row(r), row(r + 1), n, scratch);
        filter_columns_full(scratch, ws, 4, plan);
        scratch_to_rows_c2(scratch, n, row(r), row(r + 1));
      }
    }
  }
  // Rows that do not fill a register (or lines too long for scratch): one line at a time.
  for (; r < rows; ++r)
    for (int c = 0; c < C; ++c) filter_line_scalar(row(r) + c, C, plan);
}

}  // namespace

bool kernels_built() { return true; }
PrefilterKernels prefilter_kernels() { return {&filter_columns, &filter_rows}; }

}  // namespace splinebench::cpu::sse

#else  // no SSE4.1 in this build

namespace splinebench::cpu::sse {
bool kernels_built() { return false; }
PrefilterKernels prefilter_kernels() { return {nullptr, nullptr}; }
}  // namespace splinebench::cpu::sse

#endif
