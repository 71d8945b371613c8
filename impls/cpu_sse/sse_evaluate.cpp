// cpu_sse evaluation kernel: 4 queries in the 4 lanes of an SSE register. Weights and
// folded tap offsets are computed 4-wide; SSE has no gather, so each tap is 4 scalar
// loads assembled into a register (the historical form of a "gathered tap"). The taps
// are summed nested per axis (4 terms per level, like cpu_scalar); D <= 3 is fully
// unrolled, D >= 4 walks the outer axes with an odometer around an unrolled 3-D core.
#include "cpu_sse/sse_kernels.hpp"

#if defined(__SSE4_1__)
#include <smmintrin.h>

#include <algorithm>
#include <cstdint>

namespace splinebench::cpu::sse {
namespace {

struct AxisTaps {
  __m128 w[4];     // weights of taps i-1 .. i+2
  __m128i off[4];  // offsets (floats) of the folded taps along this axis
};

// k mod period, reflected by the mode (bspline::fold_index, 4-wide). Exact for
// |k| <= 2^22 + 2: the float quotient k * (1/p) is off by at most 0.5, so floor() is
// off by at most one, which the two corrections repair.
inline __m128i fold_index(__m128i k, const EvalAxis& ax, Mode mode) {
  const __m128i p = _mm_set1_epi32(ax.period);
  const __m128 inv_p = _mm_set1_ps(1.0f / static_cast<float>(ax.period));
  const __m128i q = _mm_cvttps_epi32(_mm_floor_ps(_mm_mul_ps(_mm_cvtepi32_ps(k), inv_p)));
  __m128i r = _mm_sub_epi32(k, _mm_mullo_epi32(q, p));
  r = _mm_add_epi32(r, _mm_and_si128(_mm_cmplt_epi32(r, _mm_setzero_si128()), p));
  r = _mm_sub_epi32(r, _mm_andnot_si128(_mm_cmplt_epi32(r, p), p));
  const __m128i outside = _mm_cmpgt_epi32(r, _mm_set1_epi32(ax.extent - 1));
  switch (mode) {
    case Mode::mirror:
      return _mm_blendv_epi8(r, _mm_sub_epi32(p, r), outside);
    case Mode::half:
      return _mm_blendv_epi8(r, _mm_sub_epi32(_mm_sub_epi32(p, r), _mm_set1_epi32(1)), outside);
    case Mode::periodic:
      break;
  }
  return r;
}

// Returns true when taps i-1 .. i+2 of all 4 lanes are inside [0, N-1] (no folding).
inline bool make_axis_taps(__m128 x, const EvalAxis& ax, Mode mode, AxisTaps& taps) {
  const __m128 fl = _mm_floor_ps(x);
  const __m128 a = _mm_sub_ps(x, fl);
  const __m128 one = _mm_set1_ps(1.0f);
  const __m128 b = _mm_sub_ps(one, a);
  const __m128 sixth = _mm_set1_ps(1.0f / 6.0f);
  const __m128 two_thirds = _mm_set1_ps(2.0f / 3.0f);
  const __m128 half = _mm_set1_ps(0.5f);
  taps.w[0] = _mm_mul_ps(_mm_mul_ps(_mm_mul_ps(b, b), b), sixth);
  taps.w[1] = _mm_sub_ps(two_thirds, _mm_mul_ps(_mm_mul_ps(_mm_mul_ps(a, a), _mm_sub_ps(_mm_set1_ps(2.0f), a)), half));
  taps.w[2] = _mm_sub_ps(two_thirds, _mm_mul_ps(_mm_mul_ps(_mm_mul_ps(b, b), _mm_add_ps(one, a)), half));
  taps.w[3] = _mm_mul_ps(_mm_mul_ps(_mm_mul_ps(a, a), a), sixth);
  const __m128i cell = _mm_cvttps_epi32(fl);  // fl is an integer below 2^22: exact
  const __m128i stride = _mm_set1_epi32(ax.stride);
  const __m128i interior = _mm_and_si128(_mm_cmpgt_epi32(cell, _mm_setzero_si128()),
                                         _mm_cmplt_epi32(cell, _mm_set1_epi32(ax.extent - 2)));
  if (_mm_movemask_ps(_mm_castsi128_ps(interior)) == 0xF) {
    taps.off[0] = _mm_mullo_epi32(_mm_sub_epi32(cell, _mm_set1_epi32(1)), stride);
    for (int t = 1; t < 4; ++t) taps.off[t] = _mm_add_epi32(taps.off[t - 1], stride);
    return true;
  }
  for (int t = 0; t < 4; ++t)
    taps.off[t] = _mm_mullo_epi32(fold_index(_mm_add_epi32(cell, _mm_set1_epi32(t - 1)), ax, mode), stride);
  return false;
}

template <int C>
inline void gather(const float* base, __m128i off, __m128 (&out)[C]) {
  const int o0 = _mm_cvtsi128_si32(off), o1 = _mm_extract_epi32(off, 1);
  const int o2 = _mm_extract_epi32(off, 2), o3 = _mm_extract_epi32(off, 3);
  for (int ch = 0; ch < C; ++ch)
    out[ch] = _mm_setr_ps(base[o0 + ch], base[o1 + ch], base[o2 + ch], base[o3 + ch]);
}

// The 4 taps along the contiguous axis of one row for the 4 queries, when they are 4
// consecutive floats per query (1 channel, no folding): one 16-byte load per query
// and a 4x4 transpose instead of 16 scalar loads; same products and sums as gather.
inline __m128 row_sum(const float* base, __m128i first, const AxisTaps& last) {
  __m128 t0 = _mm_loadu_ps(base + _mm_cvtsi128_si32(first));
  __m128 t1 = _mm_loadu_ps(base + _mm_extract_epi32(first, 1));
  __m128 t2 = _mm_loadu_ps(base + _mm_extract_epi32(first, 2));
  __m128 t3 = _mm_loadu_ps(base + _mm_extract_epi32(first, 3));
  _MM_TRANSPOSE4_PS(t0, t1, t2, t3);  // t_k = tap k of the 4 queries
  __m128 out = _mm_mul_ps(last.w[0], t0);
  out = _mm_add_ps(out, _mm_mul_ps(last.w[1], t1));
  out = _mm_add_ps(out, _mm_mul_ps(last.w[2], t2));
  return _mm_add_ps(out, _mm_mul_ps(last.w[3], t3));
}

// Sum over the taps of axes [Level, Last] at offset o, nested (4 terms per level).
// RowLoads: the last axis' taps are contiguous (see row_sum).
template <int Level, int Last, int C, bool RowLoads>
inline void nest(const float* base, const AxisTaps* taps, __m128i o, __m128 (&out)[C]) {
  if constexpr (RowLoads && Level == Last) {
    static_assert(C == 1);
    out[0] = row_sum(base, _mm_add_epi32(o, taps[Last].off[0]), taps[Last]);
  } else if constexpr (Level > Last) {
    gather<C>(base, o, out);
  } else {
    __m128 part[C];
    nest<Level + 1, Last, C, RowLoads>(base, taps, _mm_add_epi32(o, taps[Level].off[0]), part);
    for (int ch = 0; ch < C; ++ch) out[ch] = _mm_mul_ps(taps[Level].w[0], part[ch]);
    for (int t = 1; t < 4; ++t) {
      nest<Level + 1, Last, C, RowLoads>(base, taps, _mm_add_epi32(o, taps[Level].off[t]), part);
      for (int ch = 0; ch < C; ++ch) out[ch] = _mm_add_ps(out[ch], _mm_mul_ps(taps[Level].w[t], part[ch]));
    }
  }
}

template <int D, int C, bool RowLoads>
inline void sum_taps(const float* base, const AxisTaps* taps, __m128 (&out)[C]) {
  if constexpr (D <= 3) {
    nest<0, D - 1, C, RowLoads>(base, taps, _mm_setzero_si128(), out);
  } else {
    constexpr int O = D - 3;  // outer axes walked by the odometer
    __m128 acc[O][C];
    for (int l = 0; l < O; ++l)
      for (int ch = 0; ch < C; ++ch) acc[l][ch] = _mm_setzero_ps();
    int tap[O] = {};
    for (;;) {
      __m128i o = taps[0].off[tap[0]];
      for (int l = 1; l < O; ++l) o = _mm_add_epi32(o, taps[l].off[tap[l]]);
      __m128 part[C];
      nest<O, D - 1, C, RowLoads>(base, taps, o, part);
      int l = O - 1;
      for (int ch = 0; ch < C; ++ch) acc[l][ch] = _mm_add_ps(acc[l][ch], _mm_mul_ps(taps[l].w[tap[l]], part[ch]));
      while (++tap[l] == 4) {
        tap[l] = 0;
        if (l == 0) {
          for (int ch = 0; ch < C; ++ch) out[ch] = acc[0][ch];
          return;
        }
        for (int ch = 0; ch < C; ++ch) {
          acc[l - 1][ch] = _mm_add_ps(acc[l - 1][ch], _mm_mul_ps(taps[l - 1].w[tap[l - 1]], acc[l][ch]));
          acc[l][ch] = _mm_setzero_ps();
        }
        --l;
      }
    }
  }
}

// Four queries: x[d] points at their 4 coordinates along axis d; out gets 4*C values.
template <int D, int C>
inline void evaluate4(const EvalGrid& grid, const float* coeffs, const float* const* x, float* out) {
  __m128 xv[D];
  int fast = 0xF;
  const __m128 abs_mask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
  for (int d = 0; d < D; ++d) {
    xv[d] = _mm_loadu_ps(x[d]);
    // False for NaN too, so non-finite coordinates take the scalar path.
    fast &= _mm_movemask_ps(_mm_cmplt_ps(_mm_and_ps(xv[d], abs_mask), _mm_set1_ps(kVectorCoordLimit)));
  }
  if (fast != 0xF) {
    for (int i = 0; i < 4; ++i) {
      float xi[kMaxDims];
      for (int d = 0; d < D; ++d) xi[d] = x[d][i];
      evaluate_point_scalar(grid, coeffs, xi, out + i * C);
    }
    return;
  }
  AxisTaps taps[D];
  bool last_interior = false;
  for (int d = 0; d < D; ++d) last_interior = make_axis_taps(xv[d], grid.axis[d], grid.mode, taps[d]);
  __m128 v[C];
  if constexpr (C == 1) {
    if (last_interior) {
      sum_taps<D, C, true>(coeffs, taps, v);
    } else {
      sum_taps<D, C, false>(coeffs, taps, v);
    }
  } else {
    sum_taps<D, C, false>(coeffs, taps, v);
  }
  if constexpr (C == 1) {
    _mm_storeu_ps(out, v[0]);
  } else if constexpr (C == 2) {
    _mm_storeu_ps(out, _mm_unpacklo_ps(v[0], v[1]));
    _mm_storeu_ps(out + 4, _mm_unpackhi_ps(v[0], v[1]));
  } else {
    _MM_TRANSPOSE4_PS(v[0], v[1], v[2], v[3]);
    for (int i = 0; i < 4; ++i) _mm_storeu_ps(out + 4 * i, v[i]);
  }
}

// Queries this far ahead get their rows of taps prefetched (where grid.prefetch_rows:
// eval_grid.hpp): random queries on a grid larger than the caches wait on ~16 cache
// misses each, and the 4-wide code does not keep enough of them in flight by itself.
constexpr std::int64_t kPrefetchQueries = 16;

// Prefetches the rows (along the contiguous axis) of the innermost 2 axes' taps, for
// the 4 queries at xs[d] (cells clamped to the grid: a hint, never a fault).
template <int D, int C>
inline void prefetch_rows(const EvalGrid& grid, const float* coeffs, const float* const* xs) {
  __m128i base = _mm_setzero_si128();
  for (int d = 0; d < D; ++d) {
    __m128i cell = _mm_cvttps_epi32(_mm_floor_ps(_mm_loadu_ps(xs[d])));
    cell = _mm_min_epi32(_mm_max_epi32(cell, _mm_set1_epi32(1)), _mm_set1_epi32(std::max(1, grid.axis[d].extent - 3)));
    base = _mm_add_epi32(base, _mm_mullo_epi32(_mm_sub_epi32(cell, _mm_set1_epi32(1)), _mm_set1_epi32(grid.axis[d].stride)));
  }
  alignas(16) std::int32_t b[4];
  _mm_store_si128(reinterpret_cast<__m128i*>(b), base);
  const std::int64_t s0 = D >= 3 ? grid.axis[D - 3].stride : 0, s1 = D >= 2 ? grid.axis[D - 2].stride : 0;
  for (int i = 0; i < 4; ++i)
    for (int a = 0; a < (D >= 3 ? 4 : 1); ++a)
      for (int c = 0; c < (D >= 2 ? 4 : 1); ++c) {
        const float* p = coeffs + b[i] + a * s0 + c * s1;
        _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(p + 4 * C - 1), _MM_HINT_T0);
      }
}

template <int D, int C>
void evaluate_range_dc(const EvalGrid& grid, const float* coeffs, const float* coords, std::int64_t n,
                       std::int64_t q0, std::int64_t q1, float* out) {
  const float* x[D];
  const float* ahead[D];
  std::int64_t q = q0;
  for (; q + 4 <= q1; q += 4) {
    if (grid.prefetch_rows && q + kPrefetchQueries + 4 <= q1) {
      for (int d = 0; d < D; ++d) ahead[d] = coords + d * n + q + kPrefetchQueries;
      prefetch_rows<D, C>(grid, coeffs, ahead);
    }
    for (int d = 0; d < D; ++d) x[d] = coords + d * n + q;
    evaluate4<D, C>(grid, coeffs, x, out + q * C);
  }
  if (q == q1) return;
  // Tail: pad with coordinate 0 (a valid point), keep only the real queries.
  alignas(16) float xt[D][4];
  alignas(16) float ot[4 * C];
  const std::int64_t rest = q1 - q;
  for (int d = 0; d < D; ++d) {
    for (std::int64_t i = 0; i < 4; ++i) xt[d][i] = i < rest ? coords[d * n + q + i] : 0.0f;
    x[d] = xt[d];
  }
  evaluate4<D, C>(grid, coeffs, x, ot);
  std::copy(ot, ot + rest * C, out + q * C);
}

template <int D>
void evaluate_range_d(const EvalGrid& grid, const float* coeffs, const float* coords, std::int64_t n,
                      std::int64_t q0, std::int64_t q1, float* out) {
  switch (grid.channels) {
    case 1: return evaluate_range_dc<D, 1>(grid, coeffs, coords, n, q0, q1, out);
    case 2: return evaluate_range_dc<D, 2>(grid, coeffs, coords, n, q0, q1, out);
    case 4: return evaluate_range_dc<D, 4>(grid, coeffs, coords, n, q0, q1, out);
  }
}

void evaluate_range(const EvalGrid& grid, const float* coeffs, const float* coords, std::int64_t n,
                    std::int64_t q0, std::int64_t q1, float* out) {
  switch (grid.dims) {
    case 1: return evaluate_range_d<1>(grid, coeffs, coords, n, q0, q1, out);
    case 2: return evaluate_range_d<2>(grid, coeffs, coords, n, q0, q1, out);
    case 3: return evaluate_range_d<3>(grid, coeffs, coords, n, q0, q1, out);
    case 4: return evaluate_range_d<4>(grid, coeffs, coords, n, q0, q1, out);
    case 5: return evaluate_range_d<5>(grid, coeffs, coords, n, q0, q1, out);
    case 6: return evaluate_range_d<6>(grid, coeffs, coords, n, q0, q1, out);
  }
}

}  // namespace

EvalRangeFn eval_kernel() { return &evaluate_range; }

}  // namespace splinebench::cpu::sse

#else  // no SSE4.1 in this build

namespace splinebench::cpu::sse {
EvalRangeFn eval_kernel() { return nullptr; }
}  // namespace splinebench::cpu::sse

#endif
