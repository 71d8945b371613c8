// cpu_simd evaluation kernel (Highway, one copy per x86 target, dispatched at run
// time): as many queries as vector lanes at once. Per axis, the four tap weights and
// the four folded offsets are vectors; the 4^D taps are gathered and summed nested
// per axis (4 terms per level, like cpu_scalar), so rounding grows with D, not 4^D.
// D <= 3 is fully unrolled; for D >= 4 an odometer walks the outer D-3 axes around
// an unrolled 3-D core, which keeps code size bounded (4^6 taps would not be).
#include "cpu_simd/hwy_targets.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu_simd/simd_evaluate.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <algorithm>
#include <cstdint>

#include "cpu_common/eval_grid.hpp"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace splinebench::cpu::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using DI = hn::RebindToSigned<DF>;
using VF = hn::Vec<DF>;
using VI = hn::Vec<DI>;
constexpr std::size_t kMaxLanes = hn::MaxLanes(DF());

struct AxisTaps {
  VF w[4];    // weights of taps i-1 .. i+2
  VI off[4];  // offsets (floats) of the folded taps along this axis
};

// k mod period, then reflected by the mode: the vector form of bspline::fold_index.
// Exact for |k| <= 2^22 + 2: k is exact in float, the float quotient k * (1/p) is off
// by at most 2^-23 |k/p| <= 0.5, so floor() is off by at most one, which the two
// corrections repair.
HWY_INLINE VI FoldIndex(VI k, const EvalAxis& ax, Mode mode) {
  const DF df;
  const DI di;
  const VI p = hn::Set(di, ax.period);
  const VF inv_p = hn::Set(df, 1.0f / static_cast<float>(ax.period));
  const VI q = hn::ConvertTo(di, hn::Floor(hn::Mul(hn::ConvertTo(df, k), inv_p)));
  VI r = hn::Sub(k, hn::Mul(q, p));
  r = hn::IfThenElse(hn::Lt(r, hn::Zero(di)), hn::Add(r, p), r);
  r = hn::IfThenElse(hn::Lt(r, p), r, hn::Sub(r, p));
  const auto outside = hn::Gt(r, hn::Set(di, ax.extent - 1));
  switch (mode) {
    case Mode::mirror:  // reflect about N-1
      return hn::IfThenElse(outside, hn::Sub(p, r), r);
    case Mode::half:  // reflect about N-1/2
      return hn::IfThenElse(outside, hn::Sub(hn::Sub(p, r), hn::Set(di, 1)), r);
    case Mode::periodic:
      break;
  }
  return r;
}

// Weights and offsets of one axis for lanes whose coordinate x satisfies |x| < 2^22.
// Returns true when taps i-1 .. i+2 of every lane are inside [0, N-1] (no folding).
HWY_INLINE bool MakeAxisTaps(VF x, const EvalAxis& ax, Mode mode, AxisTaps& taps) {
  const DF df;
  const DI di;
  const VF fl = hn::Floor(x);
  const VF a = hn::Sub(x, fl);
  const VF one = hn::Set(df, 1.0f);
  const VF b = hn::Sub(one, a);
  const VF sixth = hn::Set(df, 1.0f / 6.0f);
  const VF two_thirds = hn::Set(df, 2.0f / 3.0f);
  const VF half = hn::Set(df, 0.5f);
  // bspline::weights, with the divisions by 6 and 2 as multiplications.
  taps.w[0] = hn::Mul(hn::Mul(hn::Mul(b, b), b), sixth);
  taps.w[1] = hn::Sub(two_thirds, hn::Mul(hn::Mul(hn::Mul(a, a), hn::Sub(hn::Set(df, 2.0f), a)), half));
  taps.w[2] = hn::Sub(two_thirds, hn::Mul(hn::Mul(hn::Mul(b, b), hn::Add(one, a)), half));
  taps.w[3] = hn::Mul(hn::Mul(hn::Mul(a, a), a), sixth);
  const VI cell = hn::ConvertTo(di, fl);
  const VI stride = hn::Set(di, ax.stride);
  // Interior cells (taps i-1 .. i+2 all inside [0, N-1]) need no folding.
  const auto interior = hn::And(hn::Gt(cell, hn::Zero(di)), hn::Lt(cell, hn::Set(di, ax.extent - 2)));
  if (hn::AllTrue(di, interior)) {
    const VI first = hn::Mul(hn::Sub(cell, hn::Set(di, 1)), stride);
    taps.off[0] = first;
    taps.off[1] = hn::Add(first, stride);
    taps.off[2] = hn::Add(taps.off[1], stride);
    taps.off[3] = hn::Add(taps.off[2], stride);
    return true;
  }
  for (int t = 0; t < 4; ++t)
    taps.off[t] = hn::Mul(FoldIndex(hn::Add(cell, hn::Set(di, t - 1)), ax, mode), stride);
  return false;
}

// Sum over the taps of axes [Level, Last] at offset o (+ the taps' offsets), nested.
template <int Level, int Last, int C>
HWY_INLINE void Nest(const float* HWY_RESTRICT base, const AxisTaps* taps, VI o, VF (&out)[C]) {
  const DF df;
  if constexpr (Level > Last) {
    for (int ch = 0; ch < C; ++ch) out[ch] = hn::GatherIndex(df, base + ch, o);
  } else {
    VF part[C];
    Nest<Level + 1, Last, C>(base, taps, hn::Add(o, taps[Level].off[0]), part);
    for (int ch = 0; ch < C; ++ch) out[ch] = hn::Mul(taps[Level].w[0], part[ch]);
    for (int t = 1; t < 4; ++t) {
      Nest<Level + 1, Last, C>(base, taps, hn::Add(o, taps[Level].off[t]), part);
      for (int ch = 0; ch < C; ++ch) out[ch] = hn::MulAdd(taps[Level].w[t], part[ch], out[ch]);
    }
  }
}


#if HWY_TARGET != HWY_SCALAR
// Paired taps. When the taps along the contiguous axis are consecutive floats (no
// folding) and C <= 2, one 64-bit gather lane fetches two of them: taps (i-1, i) and
// (i+1, i+2) of one query for C = 1, or both channels of one tap for C = 2. That
// halves the gathered elements, the bottleneck of this kernel. Each vector of queries
// is split into its lower and upper half; a half's partial sums live in "pair layout"
// [q0 a, q0 b, q1 a, q1 b, ...], and the outer axes' weights are duplicated into that
// layout. The nesting (4 terms per level) is the same as in Nest; for C = 1 the last
// axis' 4 terms are summed as (w0 c0 + w2 c2) + (w1 c1 + w3 c3).
using DU32 = hn::RebindToUnsigned<DF>;
using DU64 = hn::Repartition<std::uint64_t, DF>;
using DI64 = hn::Repartition<std::int64_t, DF>;

// [a0 b0 a1 b1 ...] from the lower (Upper = false) or upper half of a and b.
template <bool Upper>
HWY_INLINE VF ZipHalf(VF a, VF b) {
  const DF df;
  const DU32 du;
  const hn::Half<DU32> dh;
  const DU64 d64;
  const auto ha = Upper ? hn::UpperHalf(dh, hn::BitCast(du, a)) : hn::LowerHalf(dh, hn::BitCast(du, a));
  const auto hb = Upper ? hn::UpperHalf(dh, hn::BitCast(du, b)) : hn::LowerHalf(dh, hn::BitCast(du, b));
  return hn::BitCast(df, hn::Or(hn::PromoteTo(d64, ha), hn::ShiftLeft<32>(hn::PromoteTo(d64, hb))));
}

// Two consecutive floats at base + o[q] for the queries of one half, in pair layout.
template <bool Upper>
HWY_INLINE VF GatherPairs(const float* HWY_RESTRICT base, VI o) {
  const DF df;
  const hn::Half<DI> dh;
  const DI64 d64;
  const auto half = Upper ? hn::UpperHalf(dh, o) : hn::LowerHalf(dh, o);
  const auto bytes = hn::ShiftLeft<2>(hn::PromoteTo(d64, half));
  return hn::BitCast(df, hn::GatherOffset(DU64(), reinterpret_cast<const std::uint64_t*>(base), bytes));
}

struct PairWeights {
  VF leaf[2][4];             // [half]: C = 1: zip(w0, w1), zip(w2, w3); C = 2: dup(w_t)
  VF dup[2][kMaxDims][4];    // [half][level][t]: dup(w_level[t]) for the levels above the leaf
};

template <int First, int Last, int C>
HWY_INLINE void MakePairWeights(const AxisTaps* taps, PairWeights& pw) {
  const AxisTaps& leaf = taps[Last];
  if constexpr (C == 1) {
    pw.leaf[0][0] = ZipHalf<false>(leaf.w[0], leaf.w[1]);
    pw.leaf[0][1] = ZipHalf<false>(leaf.w[2], leaf.w[3]);
    pw.leaf[1][0] = ZipHalf<true>(leaf.w[0], leaf.w[1]);
    pw.leaf[1][1] = ZipHalf<true>(leaf.w[2], leaf.w[3]);
  } else {
    for (int t = 0; t < 4; ++t) {
      pw.leaf[0][t] = ZipHalf<false>(leaf.w[t], leaf.w[t]);
      pw.leaf[1][t] = ZipHalf<true>(leaf.w[t], leaf.w[t]);
    }
  }
  for (int l = First; l < Last; ++l)
    for (int t = 0; t < 4; ++t) {
      pw.dup[0][l][t] = ZipHalf<false>(taps[l].w[t], taps[l].w[t]);
      pw.dup[1][l][t] = ZipHalf<true>(taps[l].w[t], taps[l].w[t]);
    }
}

// Pair-layout sums over the taps of axes [Level, Last] at offset o, both halves.
template <int Level, int Last, int C>
HWY_INLINE void PairNest(const float* HWY_RESTRICT base, const AxisTaps* taps, const PairWeights& pw, VI o,
                         VF& lo, VF& hi) {
  if constexpr (Level == Last) {
    if constexpr (C == 1) {
      const VI first = hn::Add(o, taps[Last].off[0]);
      lo = hn::MulAdd(GatherPairs<false>(base + 2, first), pw.leaf[0][1],
                      hn::Mul(GatherPairs<false>(base, first), pw.leaf[0][0]));
      hi = hn::MulAdd(GatherPairs<true>(base + 2, first), pw.leaf[1][1],
                      hn::Mul(GatherPairs<true>(base, first), pw.leaf[1][0]));
    } else {
      VI at = hn::Add(o, taps[Last].off[0]);
      lo = hn::Mul(GatherPairs<false>(base, at), pw.leaf[0][0]);
      hi = hn::Mul(GatherPairs<true>(base, at), pw.leaf[1][0]);
      for (int t = 1; t < 4; ++t) {
        at = hn::Add(o, taps[Last].off[t]);
        lo = hn::MulAdd(GatherPairs<false>(base, at), pw.leaf[0][t], lo);
        hi = hn::MulAdd(GatherPairs<true>(base, at), pw.leaf[1][t], hi);
      }
    }
  } else {
    VF plo, phi;
    PairNest<Level + 1, Last, C>(base, taps, pw, hn::Add(o, taps[Level].off[0]), plo, phi);
    lo = hn::Mul(pw.dup[0][Level][0], plo);
    hi = hn::Mul(pw.dup[1][Level][0], phi);
    for (int t = 1; t < 4; ++t) {
      PairNest<Level + 1, Last, C>(base, taps, pw, hn::Add(o, taps[Level].off[t]), plo, phi);
      lo = hn::MulAdd(pw.dup[0][Level][t], plo, lo);
      hi = hn::MulAdd(pw.dup[1][Level][t], phi, hi);
    }
  }
}

// Same contract as Nest<Level, Last, C> (per-channel vectors out), through pairs.
template <int Level, int Last, int C>
HWY_INLINE void PairedCore(const float* HWY_RESTRICT base, const AxisTaps* taps, const PairWeights& pw, VI o,
                           VF (&out)[C]) {
  const DF df;
  VF lo, hi;
  PairNest<Level, Last, C>(base, taps, pw, o, lo, hi);
  if constexpr (C == 1) {
    out[0] = hn::Add(hn::ConcatEven(df, hi, lo), hn::ConcatOdd(df, hi, lo));
  } else {
    out[0] = hn::ConcatEven(df, hi, lo);
    out[1] = hn::ConcatOdd(df, hi, lo);
  }
}
#endif  // HWY_TARGET != HWY_SCALAR

// All 4^D taps for one vector of queries. Core(o, out) sums the inner min(D, 3) axes
// at offset o (Nest, or PairedCore).
template <int D, int C, class Core>
HWY_INLINE void SumTaps(const AxisTaps* taps, const Core& core, VF (&out)[C]) {
  const DF df;
  const DI di;
  if constexpr (D <= 3) {
    core(hn::Zero(di), out);
  } else {
    // Odometer over the outer axes [0, O); acc[l] is the running sum of level l.
    constexpr int O = D - 3;
    VF acc[O][C];
    for (int l = 0; l < O; ++l)
      for (int ch = 0; ch < C; ++ch) acc[l][ch] = hn::Zero(df);
    int tap[O] = {};
    for (;;) {
      VI o = taps[0].off[tap[0]];
      for (int l = 1; l < O; ++l) o = hn::Add(o, taps[l].off[tap[l]]);
      VF part[C];
      core(o, part);
      int l = O - 1;
      for (int ch = 0; ch < C; ++ch) acc[l][ch] = hn::MulAdd(taps[l].w[tap[l]], part[ch], acc[l][ch]);
      while (++tap[l] == 4) {  // level l complete: fold it into level l-1
        tap[l] = 0;
        if (l == 0) {
          for (int ch = 0; ch < C; ++ch) out[ch] = acc[0][ch];
          return;
        }
        for (int ch = 0; ch < C; ++ch) {
          acc[l - 1][ch] = hn::MulAdd(taps[l - 1].w[tap[l - 1]], acc[l][ch], acc[l - 1][ch]);
          acc[l][ch] = hn::Zero(df);
        }
        --l;
      }
    }
  }
}

// One vector of queries: x[d] points at Lanes(df) coordinates along axis d; out
// receives Lanes(df) * C values, channels innermost.
template <int D, int C>
HWY_INLINE void EvaluateVector(const EvalGrid& grid, const float* HWY_RESTRICT coeffs,
                               const float* HWY_RESTRICT const* x, float* HWY_RESTRICT out) {
  const DF df;
  const std::size_t NL = hn::Lanes(df);
  VF xv[D];
  auto fast = hn::Eq(hn::Zero(df), hn::Zero(df));
  for (int d = 0; d < D; ++d) {
    xv[d] = hn::LoadU(df, x[d]);
    // False for NaN too, so non-finite coordinates leave the vector path.
    fast = hn::And(fast, hn::Lt(hn::Abs(xv[d]), hn::Set(df, kVectorCoordLimit)));
  }
  if (!hn::AllTrue(df, fast)) {
    for (std::size_t i = 0; i < NL; ++i) {
      float xi[kMaxDims];
      for (int d = 0; d < D; ++d) xi[d] = x[d][i];
      evaluate_point_scalar(grid, coeffs, xi, out + i * C);
    }
    return;
  }
  AxisTaps taps[D];
  bool last_interior = false;
  for (int d = 0; d < D; ++d) last_interior = MakeAxisTaps(xv[d], grid.axis[d], grid.mode, taps[d]);
  constexpr int kFirst = D <= 3 ? 0 : D - 3;  // first axis of the unrolled core
  VF v[C];
  bool done = false;
#if HWY_TARGET != HWY_SCALAR
  if constexpr (C <= 2) {
    if (last_interior) {
      PairWeights pw;
      MakePairWeights<kFirst, D - 1, C>(taps, pw);
      SumTaps<D, C>(taps, [&](VI o, VF (&out)[C]) { PairedCore<kFirst, D - 1, C>(coeffs, taps, pw, o, out); }, v);
      done = true;
    }
  }
#else
  (void)last_interior;
#endif
  if (!done) SumTaps<D, C>(taps, [&](VI o, VF (&out)[C]) { Nest<kFirst, D - 1, C>(coeffs, taps, o, out); }, v);
  if constexpr (C == 1) {
    hn::StoreU(v[0], df, out);
  } else if constexpr (C == 2) {
    hn::StoreInterleaved2(v[0], v[1], df, out);
  } else {
    hn::StoreInterleaved4(v[0], v[1], v[2], v[3], df, out);
  }
}

template <int D, int C>
void EvaluateRangeDC(const EvalGrid& grid, const float* HWY_RESTRICT coeffs, const float* HWY_RESTRICT coords,
                     std::int64_t n, std::int64_t q0, std::int64_t q1, float* HWY_RESTRICT out) {
  const DF df;
  const std::int64_t NL = static_cast<std::int64_t>(hn::Lanes(df));
  const float* x[D];
  std::int64_t q = q0;
  for (; q + NL <= q1; q += NL) {
    for (int d = 0; d < D; ++d) x[d] = coords + d * n + q;
    EvaluateVector<D, C>(grid, coeffs, x, out + q * C);
  }
  if (q == q1) return;
  // Tail: pad the coordinates with 0 (a valid point) and keep only the real lanes.
  HWY_ALIGN float xt[D][kMaxLanes];
  HWY_ALIGN float ot[kMaxLanes * C];
  const std::int64_t rest = q1 - q;
  for (int d = 0; d < D; ++d) {
    for (std::int64_t i = 0; i < NL; ++i) xt[d][i] = i < rest ? coords[d * n + q + i] : 0.0f;
    x[d] = xt[d];
  }
  EvaluateVector<D, C>(grid, coeffs, x, ot);
  std::copy(ot, ot + rest * C, out + q * C);
}

template <int D>
void EvaluateRangeD(const EvalGrid& grid, const float* coeffs, const float* coords, std::int64_t n,
                    std::int64_t q0, std::int64_t q1, float* out) {
  switch (grid.channels) {
    case 1: return EvaluateRangeDC<D, 1>(grid, coeffs, coords, n, q0, q1, out);
    case 2: return EvaluateRangeDC<D, 2>(grid, coeffs, coords, n, q0, q1, out);
    case 4: return EvaluateRangeDC<D, 4>(grid, coeffs, coords, n, q0, q1, out);
  }
}

void EvaluateRange(const EvalGrid& grid, const float* coeffs, const float* coords, std::int64_t n,
                   std::int64_t q0, std::int64_t q1, float* out) {
  switch (grid.dims) {
    case 1: return EvaluateRangeD<1>(grid, coeffs, coords, n, q0, q1, out);
    case 2: return EvaluateRangeD<2>(grid, coeffs, coords, n, q0, q1, out);
    case 3: return EvaluateRangeD<3>(grid, coeffs, coords, n, q0, q1, out);
    case 4: return EvaluateRangeD<4>(grid, coeffs, coords, n, q0, q1, out);
    case 5: return EvaluateRangeD<5>(grid, coeffs, coords, n, q0, q1, out);
    case 6: return EvaluateRangeD<6>(grid, coeffs, coords, n, q0, q1, out);
  }
}

std::int64_t TargetId() { return HWY_TARGET; }

}  // namespace splinebench::cpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "cpu_simd/simd_kernels.hpp"

namespace splinebench::cpu::simd {

HWY_EXPORT(EvaluateRange);
HWY_EXPORT(TargetId);

namespace {
void evaluate_range(const EvalGrid& grid, const float* coeffs, const float* coords, std::int64_t n,
                    std::int64_t q0, std::int64_t q1, float* out) {
  HWY_DYNAMIC_DISPATCH(EvaluateRange)(grid, coeffs, coords, n, q0, q1, out);
}
}  // namespace

EvalRangeFn eval_kernel() { return &evaluate_range; }

std::string dispatched_target() { return hwy::TargetName(HWY_DYNAMIC_DISPATCH(TargetId)()); }

}  // namespace splinebench::cpu::simd
#endif  // HWY_ONCE
