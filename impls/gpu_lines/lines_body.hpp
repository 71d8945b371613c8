// The bodies of the gpu_lines kernels, host and device, so that the host emulation
// (tests/gpu_lines) runs the kernels' own index arithmetic, not a re-derivation of it:
//   strided: one lane per (line, segment), adjacent lanes at adjacent positions i of the
//     faster axes (coalesced); each lane issues all S + 2 kHalo loads of its window before
//     the recursion (a window inside the line needs no folding), then stores its S outputs.
//   staged (the contiguous axis): a block loads whole rows of n C values into shared
//     memory (16-byte loads where a row is whole float4s), padded one word per 32 so that
//     the lanes' windows fall on different banks; each lane reads its window (channel c of
//     an interleaved row at stride C: every channel its own line), the outputs go back
//     through shared memory to coalesced stores. Phases between the block's barriers:
//     staged_load | staged_lane | staged_put | staged_store.
// Index: the type of lane and row numbers, std::uint32_t where every lane number of the
// batch is below 2^31 (Plan::wide false), std::uint64_t otherwise. Offsets into the buffers
// are std::size_t either way: the compiler then steps a lane's addresses by the stride
// instead of forming each from a 32-bit product (ptxas: 90 registers for the strided S = 32
// kernel, 120 with 32-bit offsets).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "gpu_lines/lines_lane.hpp"
#include "gpu_lines/lines_plan.hpp"
#include "splinebench/error.hpp"

namespace splinebench::gpu::lines {

// NC: the read-only data path (the kernels: a pass never reads what it writes).
template <bool NC>
SPLINEBENCH_HD float ld(const float* p) {
#if defined(__CUDA_ARCH__)
  if constexpr (NC) return __ldg(p);
#endif
  return *p;
}

// ---- strided pass ------------------------------------------------------------------------
// Lane t: position i of the faster axes (fastest), then segment, then outer line o.
struct StridedSegment {
  std::size_t base;    // offset of the line's sample 0
  std::size_t stride;  // between its samples
  int s0;              // first output of the segment
};

template <int S, typename Index>
SPLINEBENCH_HD StridedSegment strided_segment(const Pass& P, Index t) {
  const Index s = static_cast<Index>(P.s);
  const Index segs = static_cast<Index>(P.segs);
  const Index i = t % s, r = t / s;
  const Index seg = r % segs, o = r / segs;
  const std::size_t base = static_cast<std::size_t>(o) * static_cast<std::size_t>(P.n) * static_cast<std::size_t>(s) +
                           static_cast<std::size_t>(i);
  return {base, static_cast<std::size_t>(s), static_cast<int>(seg) * S};
}

template <int S, bool NC, typename Index>
SPLINEBENCH_HD void strided_task(const float* in, float* out, const Pass& P, int mode, Index t) {
  const StridedSegment L = strided_segment<S>(P, t);
  const std::size_t s = L.stride;
  const int n = P.n, s0 = L.s0;
  const float* f = in + L.base;
  float x[S + 2 * kHalo];
  if (s0 - kHalo >= 0 && s0 + S + kHalo <= n) {  // the whole window inside the line
    const float* g = f + static_cast<std::size_t>(s0 - kHalo) * s;
    SB_LINES_UNROLL
    for (int k = 0; k < S + 2 * kHalo; ++k) x[k] = ld<NC>(g + static_cast<std::size_t>(k) * s);
  } else if (folds_once<S>(n)) {  // a segment at an end of a line of at least S + kHalo
    const OneReflection F = one_reflection(mode, n);
    SB_LINES_UNROLL
    for (int k = 0; k < S + 2 * kHalo; ++k)
      x[k] = ld<NC>(f + static_cast<std::size_t>(fold_once(F, s0 - kHalo + k, n)) * s);
  } else {
    load_window_short<S>(mode, s0, n, x, [&](int j) { return ld<NC>(f + static_cast<std::size_t>(j) * s); });
  }
  float c[S];
  lane_outputs<S>(x, c);
  float* g = out + L.base;
  if (s0 + S <= n) {
    SB_LINES_UNROLL
    for (int k = 0; k < S; ++k) g[static_cast<std::size_t>(s0 + k) * s] = c[k];
  } else {
    SB_LINES_UNROLL
    for (int k = 0; k < S; ++k)
      if (s0 + k < n) g[static_cast<std::size_t>(s0 + k) * s] = c[k];
  }
}

// ---- staged pass -------------------------------------------------------------------------
// Word w of the block's rows is kept at pad(w) = w + w / 32: lane t's window starts near
// word 32 t (S = 32; with C = 4 the channel is fastest), so the lanes of a read fall on
// different banks.
SPLINEBENCH_HD int pad(int w) { return w + (w >> 5); }

template <typename Index>
struct StagedRows {
  Index row0;  // first row (line of the contiguous axis, all channels) of block b
  int rows;    // rows of this block (the last block may have fewer)
  int words;   // rows n C
};
template <typename Index>
SPLINEBENCH_HD StagedRows<Index> staged_rows(const Pass& P, Index b) {
  StagedRows<Index> R;
  const Index per = static_cast<Index>(P.rows_per_block);
  R.row0 = b * per;
  const Index left = static_cast<Index>(P.outer) - R.row0;
  R.rows = static_cast<int>(left < per ? left : per);
  R.words = R.rows * P.n * P.C;
  return R;
}

// Thread tid's lane in a block of `rows` rows: row, then segment, then channel fastest.
struct StagedLane {
  int row;  // word of the row's channel-ch sample 0: row n C + ch
  int ch;
  int s0;
};
template <int S>
SPLINEBENCH_HD bool staged_lane_at(const Pass& P, int rows, int tid, StagedLane& L) {
  const int per_row = P.C * P.segs;
  if (tid >= rows * per_row) return false;
  const int r = tid / per_row, rem = tid % per_row;
  L.ch = rem % P.C;
  L.s0 = (rem / P.C) * S;
  L.row = r * P.n * P.C + L.ch;
  return true;
}

template <bool NC, typename Index>
SPLINEBENCH_HD void staged_load(const float* in, const Pass& P, Index b, int tid, float* sm) {
  const StagedRows<Index> R = staged_rows(P, b);
  const float* src = in + static_cast<std::size_t>(R.row0) * static_cast<std::size_t>(P.n * P.C);
  if ((P.n * P.C) % 4 == 0) {  // rows of whole float4s (the buffers are 16-byte aligned)
    for (int q = tid; q < R.words / 4; q += kThreads) {
#if defined(__CUDA_ARCH__)
      float4 v;
      if constexpr (NC)
        v = __ldg(reinterpret_cast<const float4*>(src) + q);
      else
        v = reinterpret_cast<const float4*>(src)[q];
      sm[pad(4 * q)] = v.x;
      sm[pad(4 * q + 1)] = v.y;
      sm[pad(4 * q + 2)] = v.z;
      sm[pad(4 * q + 3)] = v.w;
#else
      for (int e = 0; e < 4; ++e) sm[pad(4 * q + e)] = src[4 * q + e];
#endif
    }
  } else {
    for (int w = tid; w < R.words; w += kThreads) sm[pad(w)] = ld<NC>(src + w);
  }
}

// The lane's S outputs into c; false for a thread without a segment.
template <int S, typename Index>
SPLINEBENCH_HD bool staged_lane(const Pass& P, Index b, int tid, const float* sm, int mode, float* c) {
  const StagedRows<Index> R = staged_rows(P, b);
  StagedLane L{};
  if (!staged_lane_at<S>(P, R.rows, tid, L)) return false;
  const int n = P.n, C = P.C;
  float x[S + 2 * kHalo];
  if (folds_once<S>(n)) {
    const OneReflection F = one_reflection(mode, n);
    SB_LINES_UNROLL
    for (int k = 0; k < S + 2 * kHalo; ++k) x[k] = sm[pad(L.row + fold_once(F, L.s0 - kHalo + k, n) * C)];
  } else {
    load_window_short<S>(mode, L.s0, n, x, [&](int j) { return sm[pad(L.row + j * C)]; });
  }
  lane_outputs<S>(x, c);
  return true;
}

// Only for a thread whose staged_lane returned true.
template <int S, typename Index>
SPLINEBENCH_HD void staged_put(const Pass& P, Index b, int tid, const float* c, float* sm) {
  const StagedRows<Index> R = staged_rows(P, b);
  StagedLane L{};
  staged_lane_at<S>(P, R.rows, tid, L);
  const int n = P.n, C = P.C;
  SB_LINES_UNROLL
  for (int k = 0; k < S; ++k)
    if (L.s0 + k < n) sm[pad(L.row + (L.s0 + k) * C)] = c[k];
}

template <typename Index>
SPLINEBENCH_HD void staged_store(const Pass& P, Index b, int tid, const float* sm, float* out) {
  const StagedRows<Index> R = staged_rows(P, b);
  float* dst = out + static_cast<std::size_t>(R.row0) * static_cast<std::size_t>(P.n * P.C);
  if ((P.n * P.C) % 4 == 0) {
    for (int q = tid; q < R.words / 4; q += kThreads) {
#if defined(__CUDA_ARCH__)
      reinterpret_cast<float4*>(dst)[q] =
          make_float4(sm[pad(4 * q)], sm[pad(4 * q + 1)], sm[pad(4 * q + 2)], sm[pad(4 * q + 3)]);
#else
      for (int e = 0; e < 4; ++e) dst[4 * q + e] = sm[pad(4 * q + e)];
#endif
    }
  } else {
    for (int w = tid; w < R.words; w += kThreads) dst[w] = sm[pad(w)];
  }
}

// Calls f(std::integral_constant<int, S>{}) for a compiled segment length S.
template <typename F>
void with_segment(int S, F&& f) {
  switch (S) {
    case 16: f(std::integral_constant<int, 16>{}); return;
    case 24: f(std::integral_constant<int, 24>{}); return;
    case 32: f(std::integral_constant<int, 32>{}); return;
    case 48: f(std::integral_constant<int, 48>{}); return;
    case 64: f(std::integral_constant<int, 64>{}); return;
  }
  throw Error("gpu_lines: segment length " + std::to_string(S) + " not compiled");
}

// Calls f(Index{}) with the plan's index type.
template <typename F>
void with_index(const Plan& plan, F&& f) {
  if (plan.wide)
    f(std::uint64_t{});
  else
    f(std::uint32_t{});
}

}  // namespace splinebench::gpu::lines
