// cpu_simd evaluation kernel (Highway, one copy per x86 target, dispatched at run
// time): as many queries as vector lanes at once. Per axis, the four tap weights and
// the four folded offsets are vectors; the 4^D taps are summed nested per axis (4
// terms per level, like cpu_scalar), so rounding grows with D, not 4^D. With one
// channel the taps come as 16-byte row loads along the contiguous axis (RowCore);
// otherwise they are gathered (paired 64-bit gathers where the row is contiguous).
// D <= 3 is fully unrolled; for D >= 4 an odometer walks the outer D-3 axes around
// an unrolled 3-D core, which keeps code size bounded (4^6 taps would not be).
#include "cpu_simd/hwy_targets.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu_simd/simd_evaluate.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "cpu_common/eval_grid.hpp"
#include "hwy/cache_control.h"
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
// halves the gathered elements, the bottleneck of the gathering kernel. (C = 1 takes
// the row loads below instead wherever this path would apply.) Each vector of queries
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

// Row loads (C = 1). The 4 taps along the contiguous axis of one row of one query are
// 4 consecutive floats (once folded taps are mapped into a window of 4, below): one
// 16-byte load. A vector of queries is handled as 4 groups; group g holds queries
// 4j + g in its 128-bit blocks j, each block one query's row. The rows of the outer
// axes of the core are summed nested in that layout (their weights permuted into it),
// and one 4x4 transpose per block at the end turns the 4 groups into the 4 row
// elements of all queries in their lanes, which the last axis' weights combine.
// No gathers: on CPUs where gathers are slow (AMD Zen) loads and in-block shuffles
// are much cheaper.
struct RowPlan {
  VF pw[4][2][4];  // [group][outer level of the core][tap]: weights in row layout
  VF lw[4];        // weights of row elements 0..3 (query layout)
  VI start;        // offset of each query's row window along the last axis
};

// Index table of group g: lane k takes the weight of query (k & ~3) | g.
using IndicesF = decltype(hn::SetTableIndices(DF(), static_cast<const std::int32_t*>(nullptr)));
HWY_INLINE IndicesF GroupIndices(int g) {
  const DF df;
  HWY_ALIGN std::int32_t table[kMaxLanes];
  for (std::size_t k = 0; k < hn::Lanes(df); ++k) table[k] = static_cast<std::int32_t>((k & ~std::size_t{3}) | g);
  return hn::SetTableIndices(df, table);
}

// False when the row path does not apply: the last axis is shorter than 4, or a
// lane's folded taps do not fit in a window of 4 (periodic wrap-around).
template <int First, int Last>
HWY_INLINE bool MakeRowPlan(const AxisTaps* taps, bool last_interior, std::int32_t extent_last, RowPlan& rp) {
  const DF df;
  const DI di;
  const AxisTaps& lt = taps[Last];
  if (last_interior) {
    rp.start = lt.off[0];
    for (int t = 0; t < 4; ++t) rp.lw[t] = lt.w[t];
  } else {
    if (extent_last < 4) return false;
    // Folded taps (C = 1: offsets are indices) lie in [start, start + 3] when they
    // span at most 4 samples; a tap's weight goes to the element it folded to.
    VI s = hn::Min(hn::Min(lt.off[0], lt.off[1]), hn::Min(lt.off[2], lt.off[3]));
    s = hn::Min(s, hn::Set(di, extent_last - 4));
    VI p[4];
    for (int t = 0; t < 4; ++t) p[t] = hn::Sub(lt.off[t], s);
    const VI span = hn::Max(hn::Max(p[0], p[1]), hn::Max(p[2], p[3]));
    if (!hn::AllTrue(di, hn::Lt(span, hn::Set(di, 4)))) return false;
    rp.start = s;
    for (int e = 0; e < 4; ++e) {
      const VI ev = hn::Set(di, e);
      VF w = hn::IfThenElseZero(hn::RebindMask(df, hn::Eq(p[0], ev)), lt.w[0]);
      for (int t = 1; t < 4; ++t)
        w = hn::Add(w, hn::IfThenElseZero(hn::RebindMask(df, hn::Eq(p[t], ev)), lt.w[t]));
      rp.lw[e] = w;
    }
  }
  for (int g = 0; g < 4; ++g) {
    const auto idx = GroupIndices(g);
    for (int l = First; l < Last; ++l)
      for (int t = 0; t < 4; ++t) rp.pw[g][l - First][t] = hn::TableLookupLanes(taps[l].w[t], idx);
  }
  return true;
}

// The 128-bit blocks of one vector from base + p[0], base + p[4], base + p[8], ...
template <class D>
HWY_INLINE hn::Vec<D> LoadBlocks(D d, const float* HWY_RESTRICT base, const std::int32_t* p) {
  if constexpr (hn::MaxLanes(D()) <= 4) {
    return hn::LoadU(d, base + p[0]);
  } else {
    const hn::Half<D> dh;
    return hn::Combine(d, LoadBlocks(dh, base, p + hn::MaxLanes(dh)), LoadBlocks(dh, base, p));
  }
}

// Nested row-layout sum over outer levels [Lev, L) of group g; rows numbered in base 4.
template <int Lev, int L>
HWY_INLINE VF RowNest(const float* HWY_RESTRICT base, const std::int32_t (*idx)[kMaxLanes], int row,
                      const RowPlan& rp, int g) {
  const DF df;
  if constexpr (Lev == L) {
    return LoadBlocks(df, base, idx[row] + g);
  } else {
    VF s = hn::Mul(rp.pw[g][Lev][0], RowNest<Lev + 1, L>(base, idx, row * 4, rp, g));
    for (int t = 1; t < 4; ++t) s = hn::MulAdd(rp.pw[g][Lev][t], RowNest<Lev + 1, L>(base, idx, row * 4 + t, rp, g), s);
    return s;
  }
}

// Same contract as Nest<First, Last, 1> (one vector of values at offset o).
template <int First, int Last>
HWY_INLINE VF RowCore(const float* HWY_RESTRICT base, const AxisTaps* taps, const RowPlan& rp, VI o) {
  const DF df;
  const DI di;
  const DU64 d64;
  constexpr int L = Last - First;  // outer levels of the core: 0, 1 or 2
  HWY_ALIGN std::int32_t idx[1 << (2 * L)][kMaxLanes];
  const VI o0 = hn::Add(o, rp.start);
  if constexpr (L == 0) {
    hn::Store(o0, di, idx[0]);
  } else if constexpr (L == 1) {
    for (int a = 0; a < 4; ++a) hn::Store(hn::Add(o0, taps[First].off[a]), di, idx[a]);
  } else {
    for (int a = 0; a < 4; ++a) {
      const VI oa = hn::Add(o0, taps[First].off[a]);
      for (int b = 0; b < 4; ++b) hn::Store(hn::Add(oa, taps[First + 1].off[b]), di, idx[a * 4 + b]);
    }
  }
  VF acc[4];
  for (int g = 0; g < 4; ++g) acc[g] = RowNest<0, L>(base, idx, 0, rp, g);
  // 4x4 transpose in every block: e[k] = element k of the rows of all queries.
  const VF t0 = hn::InterleaveLower(df, acc[0], acc[1]);
  const VF t1 = hn::InterleaveLower(df, acc[2], acc[3]);
  const VF t2 = hn::InterleaveUpper(df, acc[0], acc[1]);
  const VF t3 = hn::InterleaveUpper(df, acc[2], acc[3]);
  const VF e0 = hn::BitCast(df, hn::InterleaveLower(d64, hn::BitCast(d64, t0), hn::BitCast(d64, t1)));
  const VF e1 = hn::BitCast(df, hn::InterleaveUpper(d64, hn::BitCast(d64, t0), hn::BitCast(d64, t1)));
  const VF e2 = hn::BitCast(df, hn::InterleaveLower(d64, hn::BitCast(d64, t2), hn::BitCast(d64, t3)));
  const VF e3 = hn::BitCast(df, hn::InterleaveUpper(d64, hn::BitCast(d64, t2), hn::BitCast(d64, t3)));
  VF out = hn::Mul(rp.lw[0], e0);
  out = hn::MulAdd(rp.lw[1], e1, out);
  out = hn::MulAdd(rp.lw[2], e2, out);
  return hn::MulAdd(rp.lw[3], e3, out);
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
  if constexpr (C == 1) {
    RowPlan rp;
    if (MakeRowPlan<kFirst, D - 1>(taps, last_interior, grid.axis[D - 1].extent, rp)) {
      SumTaps<D, C>(taps, [&](VI o, VF (&out)[C]) { out[0] = RowCore<kFirst, D - 1>(coeffs, taps, rp, o); }, v);
      done = true;
    }
  }
  if constexpr (C == 2) {
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

// Prefetches the rows (along the contiguous axis) of the inner min(D, 3) axes' taps
// of the queries at x[d] (the outer axes at their first tap), cells clamped to the
// grid: a hint, never a fault. Random queries on grids past the caches wait on ~19
// lines each; this keeps more of them in flight. Only where grid.prefetch_rows
// (eval_grid.hpp: measured per CPU); bin-sorted records do not need it.
template <int D, int C>
HWY_INLINE void PrefetchRows(const EvalGrid& grid, const float* HWY_RESTRICT coeffs, const float* HWY_RESTRICT const* x) {
  const DF df;
  const DI di;
  VI base = hn::Zero(di);
  for (int d = 0; d < D; ++d) {
    VI cell = hn::ConvertTo(di, hn::Floor(hn::LoadU(df, x[d])));
    cell = hn::Min(hn::Max(cell, hn::Set(di, 1)), hn::Set(di, std::max(1, grid.axis[d].extent - 3)));
    base = hn::Add(base, hn::Mul(hn::Sub(cell, hn::Set(di, 1)), hn::Set(di, grid.axis[d].stride)));
  }
  HWY_ALIGN std::int32_t b[kMaxLanes];
  hn::Store(base, di, b);
  const std::int64_t s0 = D >= 3 ? grid.axis[D - 3].stride : 0, s1 = D >= 2 ? grid.axis[D - 2].stride : 0;
  for (std::size_t i = 0; i < hn::Lanes(df); ++i)
    for (int a = 0; a < (D >= 3 ? 4 : 1); ++a)
      for (int c = 0; c < (D >= 2 ? 4 : 1); ++c) {
        const float* p = coeffs + b[i] + a * s0 + c * s1;
        hwy::Prefetch(p);
        hwy::Prefetch(p + 4 * C - 1);  // the row's last tap: 3 of 16 rows straddle a line
      }
}

template <int D, int C>
void EvaluateRangeDC(const EvalGrid& grid, const float* HWY_RESTRICT coeffs, const float* HWY_RESTRICT coords,
                     std::int64_t n, std::int64_t q0, std::int64_t q1, float* HWY_RESTRICT out) {
  const DF df;
  const std::int64_t NL = static_cast<std::int64_t>(hn::Lanes(df));
  const float* x[D];
  std::int64_t q = q0;
  // Prefetch distance: at least 16 queries (measured on AMD Zen 5, 256^3 grid), whole
  // vectors. D < 3 is left out: measured there, 1-D ran a third slower with it.
  const std::int64_t ahead = grid.prefetch_rows && D >= 3 ? std::max<std::int64_t>(16, NL) : 0;
  for (; q + NL <= q1; q += NL) {
    if (ahead > 0 && q + ahead + NL <= q1) {
      const float* xa[D];
      for (int d = 0; d < D; ++d) xa[d] = coords + d * n + q + ahead;
      PrefetchRows<D, C>(grid, coeffs, xa);
    }
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

// Bin-sorted query records (eval_grid.hpp): one vector of records at a time,
// coordinates out of the records into lane order, values written at each record's
// query index.
template <int D, int C>
void EvaluateRecordsDC(const EvalGrid& grid, const float* HWY_RESTRICT coeffs, const float* HWY_RESTRICT records,
                       std::int64_t r0, std::int64_t r1, float* HWY_RESTRICT out) {
  const DF df;
  const DI di;
  constexpr int R = query_record_floats(D);
  const std::int64_t NL = static_cast<std::int64_t>(hn::Lanes(df));
  HWY_ALIGN float xs[D][kMaxLanes];
  HWY_ALIGN std::int32_t index[kMaxLanes];
  HWY_ALIGN float values[kMaxLanes * C];
  const float* x[D];
  for (int d = 0; d < D; ++d) x[d] = xs[d];
  for (std::int64_t r = r0; r < r1; r += NL) {
    const std::int64_t m = std::min(NL, r1 - r);
    const float* rec = records + r * R;
    if constexpr (R == 4) {
      if (m == NL) {
        VF v[4];
        hn::LoadInterleaved4(df, rec, v[0], v[1], v[2], v[3]);
        for (int d = 0; d < D; ++d) hn::Store(v[d], df, xs[d]);
        hn::Store(hn::BitCast(di, v[3]), di, index);
      }
    }
    if (R != 4 || m != NL) {
      // Records to lanes one by one (R = 8, or a partial vector padded with 0).
      for (std::int64_t i = 0; i < NL; ++i)
        for (int d = 0; d < D; ++d) xs[d][i] = i < m ? rec[i * R + d] : 0.0f;
      for (std::int64_t i = 0; i < m; ++i) std::memcpy(&index[i], &rec[i * R + R - 1], sizeof(std::int32_t));
    }
    EvaluateVector<D, C>(grid, coeffs, x, values);
    for (std::int64_t i = 0; i < m; ++i) {
      float* dst = out + static_cast<std::int64_t>(index[i]) * C;
      for (int ch = 0; ch < C; ++ch) dst[ch] = values[i * C + ch];
    }
  }
}

template <int D>
void EvaluateRecordsD(const EvalGrid& grid, const float* coeffs, const float* records, std::int64_t r0,
                      std::int64_t r1, float* out) {
  switch (grid.channels) {
    case 1: return EvaluateRecordsDC<D, 1>(grid, coeffs, records, r0, r1, out);
    case 2: return EvaluateRecordsDC<D, 2>(grid, coeffs, records, r0, r1, out);
    case 4: return EvaluateRecordsDC<D, 4>(grid, coeffs, records, r0, r1, out);
  }
}

void EvaluateRecords(const EvalGrid& grid, const float* coeffs, const float* records, std::int64_t r0,
                     std::int64_t r1, float* out) {
  switch (grid.dims) {
    case 1: return EvaluateRecordsD<1>(grid, coeffs, records, r0, r1, out);
    case 2: return EvaluateRecordsD<2>(grid, coeffs, records, r0, r1, out);
    case 3: return EvaluateRecordsD<3>(grid, coeffs, records, r0, r1, out);
    case 4: return EvaluateRecordsD<4>(grid, coeffs, records, r0, r1, out);
    case 5: return EvaluateRecordsD<5>(grid, coeffs, records, r0, r1, out);
    case 6: return EvaluateRecordsD<6>(grid, coeffs, records, r0, r1, out);
  }
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
HWY_EXPORT(EvaluateRecords);
HWY_EXPORT(TargetId);

namespace {
void evaluate_range(const EvalGrid& grid, const float* coeffs, const float* coords, std::int64_t n,
                    std::int64_t q0, std::int64_t q1, float* out) {
  HWY_DYNAMIC_DISPATCH(EvaluateRange)(grid, coeffs, coords, n, q0, q1, out);
}
void evaluate_records(const EvalGrid& grid, const float* coeffs, const float* records, std::int64_t r0,
                      std::int64_t r1, float* out) {
  HWY_DYNAMIC_DISPATCH(EvaluateRecords)(grid, coeffs, records, r0, r1, out);
}
}  // namespace

EvalRangeFn eval_kernel() { return &evaluate_range; }
EvalRecordsFn eval_records_kernel() { return &evaluate_records; }

std::string dispatched_target() { return hwy::TargetName(HWY_DYNAMIC_DISPATCH(TargetId)()); }

}  // namespace splinebench::cpu::simd
#endif  // HWY_ONCE
