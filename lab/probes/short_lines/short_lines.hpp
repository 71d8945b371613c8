// Shared by short_lines.cu (device) and emulate_nd.cpp (host): the N-D cubic B-spline
// prefilter as one pass per axis in which every lane computes a SEGMENT of S outputs of one
// line from its own folded samples s0 - 16 .. s0 + S + 15 (the truncation of
// impls/gpu_flex/README.md, per segment as in ../prefilter_segments/segment_math.hpp), with
// no state from any other lane or block. The plan (segment length per axis, which pass is
// staged through shared memory, grids), the lane arithmetic and the kernels' bodies
// (strided_task; staged_load / staged_lane / staged_put / staged_store, the phases between
// a block's barriers) are all here as host-and-device functions, so the host emulation runs
// the kernels' own index arithmetic, not a re-derivation of it.
//
// Layout: C order, channels innermost, fields contiguous (splinebench/implementation.hpp).
// Axis a of extent n has stride s = C * prod(extent[a+1..]) values; a line is (o, i) with
// o < outer = values / (n s), i < s (i includes the channel), sample k at o n s + k s + i.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "splinebench/bspline_math.hpp"

#if defined(__CUDA_ARCH__)
#define SL_UNROLL _Pragma("unroll")
#else
#define SL_UNROLL
#endif
#if defined(__CUDACC__)
#define SL_NOINLINE __host__ __device__ __noinline__
#else
#define SL_NOINLINE __attribute__((noinline)) inline
#endif

namespace short_lines {

inline constexpr int kHalo = 16;      // warm-up and look-ahead samples, each side
inline constexpr int kThreads = 256;  // lanes per block, every kernel
inline constexpr int kMaxPasses = 6;
inline constexpr int kSegSizes[] = {16, 24, 32, 48, 64};  // compiled segment lengths S
inline constexpr int kMaxStagedFloats = 24 * 1024;        // 96 KB of shared memory per block at most

// ---- the lane's arithmetic ---------------------------------------------------------------
// in[0 .. S + 2 kHalo - 1] = f at s0 - kHalo .. s0 + S + kHalo - 1 (folded);
// out[0 .. S - 1] = c at s0 .. s0 + S - 1. For S = 16 this is segments::lane_outputs
// operation for operation (emulate_nd checks the bits): gain in the causal step, f32 FMAs,
// c[k] = z (c[k+1] - c+[k]).
template <int S>
SPLINEBENCH_HD void lane_outputs(const float* in, float* out) {
  const float z = static_cast<float>(splinebench::bspline::kPole);
  float cp[S + kHalo];
  float st = 0.f;
  SL_UNROLL
  for (int k = 0; k < kHalo; ++k) st = fmaf(z, st, 6.f * in[k]);
  SL_UNROLL
  for (int k = 0; k < S + kHalo; ++k) {
    st = fmaf(z, st, 6.f * in[kHalo + k]);
    cp[k] = st;
  }
  float c = 0.f;
  SL_UNROLL
  for (int k = S + kHalo - 1; k >= 0; --k) {
    c = z * (c - cp[k]);
    if (k < S) out[k] = c;
  }
}

// ---- folding -----------------------------------------------------------------------------
// fold_index (bspline_math.hpp) for 32-bit indices, with one reflection tried first (the
// only case of a halo on a line longer than it): the same index for every (mode, j, n),
// checked exhaustively by emulate_nd. The general case is out of line.
SL_NOINLINE int fold_slow(int mode, int j, int n) {
  return static_cast<int>(splinebench::bspline::fold_index(mode, j, n));
}
SPLINEBENCH_HD int fold_fast(int mode, int j, int n) {
  if (j >= 0 && j < n) return j;
  int r;
  if (mode == 0)
    r = j < 0 ? -j : 2 * n - 2 - j;  // mirror about 0 and n - 1
  else if (mode == 1)
    r = j < 0 ? -1 - j : 2 * n - 1 - j;  // half: about -1/2 and n - 1/2
  else
    r = j < 0 ? j + n : j - n;  // periodic
  if (r >= 0 && r < n) return r;
  return fold_slow(mode, j, n);
}

// ---- the plan ----------------------------------------------------------------------------
struct Pass {
  int axis = 0;            // 0 = slowest
  int n = 1;               // extent
  int S = 16;              // outputs per lane (one of kSegSizes)
  int segs = 1;            // segments per line, ceil(n / S)
  int C = 1;               // channels (the staged pass's interleave)
  int staged = 0;          // 1: contiguous axis through shared memory; 0: strided lanes
  int rows_per_block = 0;  // staged: rows of n C values per block
  std::uint32_t s = 1;     // stride of the axis, values
  std::uint32_t outer = 1; // values / (n s)
  std::uint32_t tasks = 0; // lanes that compute
  std::uint32_t blocks = 0;
  std::uint32_t smem_bytes = 0;
};

struct Plan {
  int count = 0;  // passes, = D
  int cap = 32;   // the longest segment asked for
  std::uint32_t values = 0;
  Pass pass[kMaxPasses];
  // The segment length of every pass when they are all equal (the cooperative kernel is
  // compiled per S), else 0.
  int uniform_S() const {
    for (int p = 1; p < count; ++p)
      if (pass[p].S != pass[0].S) return 0;
    return pass[0].S;
  }
};

// Segment length for a line of n under `cap`: as many segments as cap needs, each the
// smallest compiled length that covers its share (n <= cap: the whole line in one lane).
inline int pick_segment(int n, int cap) {
  const int segs = (n + cap - 1) / cap;
  const int need = (n + segs - 1) / segs;
  for (int S : kSegSizes)
    if (S >= need) return S;
  throw std::runtime_error("segment cap above the largest compiled segment");
}

inline std::uint32_t staged_smem_floats(int rows, int row_values) {
  const int w = rows * row_values;
  return static_cast<std::uint32_t>(w + w / 32 + 1);
}

// Passes x (the contiguous axis) first, then the outer axes towards axis 0. `extents` slowest
// first, as the benchmark's cases.
inline Plan make_plan(const std::vector<std::int64_t>& extents, int C, std::int64_t fields, int cap) {
  Plan P;
  P.cap = cap;
  const int D = static_cast<int>(extents.size());
  if (D < 1 || D > kMaxPasses) throw std::runtime_error("dims out of range");
  std::int64_t values = C * fields;
  for (auto e : extents) values *= e;
  if (values >= (std::int64_t{1} << 31)) throw std::runtime_error("the probe indexes with 32 bits");
  P.values = static_cast<std::uint32_t>(values);
  P.count = D;
  for (int p = 0; p < D; ++p) {
    Pass& q = P.pass[p];
    q.axis = D - 1 - p;
    q.n = static_cast<int>(extents[q.axis]);
    std::int64_t s = C;
    for (int a = q.axis + 1; a < D; ++a) s *= extents[a];
    q.s = static_cast<std::uint32_t>(s);
    q.outer = static_cast<std::uint32_t>(values / (q.n * s));
    q.C = C;
    q.S = pick_segment(q.n, cap);
    q.segs = (q.n + q.S - 1) / q.S;
    if (q.axis == D - 1) {
      const int per_row = C * q.segs;
      int rows = kThreads / per_row;
      while (rows > 0 && staged_smem_floats(rows, q.n * C) > static_cast<std::uint32_t>(kMaxStagedFloats)) --rows;
      if (rows > 0) {
        q.staged = 1;
        q.rows_per_block = rows;
        q.tasks = q.outer * per_row;
        q.blocks = (q.outer + rows - 1) / rows;
        q.smem_bytes = 4 * staged_smem_floats(rows, q.n * C);
        continue;
      }
    }
    q.tasks = q.outer * q.segs * q.s;  // else strided lanes (x too, when its rows do not fit)
    q.blocks = (q.tasks + kThreads - 1) / kThreads;
  }
  return P;
}

inline std::string describe(const Pass& q) {
  char b[256];
  std::snprintf(b, sizeof b, "axis %d n %d stride %u: S %d x %d segs, %s, %u lanes, %u blocks of %d", q.axis, q.n, q.s,
                q.S, q.segs, q.staged ? "staged" : "strided", q.tasks, q.blocks, kThreads);
  std::string d = b;
  if (q.staged) d += ", " + std::to_string(q.rows_per_block) + " rows/block, " + std::to_string(q.smem_bytes) + " B shared";
  return d;
}

// Pass p reads buffer src_buffer and writes dst_buffer (0: in, 1: out, 2: tmp): the last
// pass writes `out`, the passes before it alternate with `tmp`, none is in place.
SPLINEBENCH_HD int dst_buffer(int count, int p) { return ((count - 1 - p) % 2 == 0) ? 1 : 2; }
SPLINEBENCH_HD int src_buffer(int count, int p) { return p == 0 ? 0 : dst_buffer(count, p - 1); }

// ---- loads -------------------------------------------------------------------------------
// NC: the read-only path (separate kernels); otherwise a plain load (the cooperative kernel
// reads what other blocks wrote before grid.sync()).
template <bool NC>
SPLINEBENCH_HD float ld(const float* p) {
#if defined(__CUDA_ARCH__)
  if constexpr (NC) return __ldg(p);
#endif
  return *p;
}

// ---- strided pass: one lane per (line, segment), adjacent lanes adjacent i --------------
template <int S, bool NC>
SPLINEBENCH_HD void strided_task(const float* in, float* out, const Pass& P, int mode, std::uint32_t t) {
  const std::uint32_t s = P.s;
  const std::uint32_t i = t % s, r = t / s;
  const std::uint32_t seg = r % static_cast<std::uint32_t>(P.segs), o = r / static_cast<std::uint32_t>(P.segs);
  const int n = P.n;
  const int s0 = static_cast<int>(seg) * S;
  const std::size_t base = static_cast<std::size_t>(o) * static_cast<std::size_t>(n) * s + i;
  const float* f = in + base;
  float x[S + 2 * kHalo];
  if (s0 - kHalo >= 0 && s0 + S + kHalo <= n) {  // no fold: the whole window inside the line
    const float* g = f + static_cast<std::size_t>(s0 - kHalo) * s;
    SL_UNROLL
    for (int k = 0; k < S + 2 * kHalo; ++k) x[k] = ld<NC>(g + static_cast<std::size_t>(k) * s);
  } else {
    SL_UNROLL
    for (int k = 0; k < S + 2 * kHalo; ++k)
      x[k] = ld<NC>(f + static_cast<std::size_t>(fold_fast(mode, s0 - kHalo + k, n)) * s);
  }
  float c[S];
  lane_outputs<S>(x, c);
  float* g = out + base;
  if (s0 + S <= n) {
    SL_UNROLL
    for (int k = 0; k < S; ++k) g[static_cast<std::size_t>(s0 + k) * s] = c[k];
  } else {
    SL_UNROLL
    for (int k = 0; k < S; ++k)
      if (s0 + k < n) g[static_cast<std::size_t>(s0 + k) * s] = c[k];
  }
}

// ---- staged pass (the contiguous axis): a block stages rows of n C values ----------------
// Word w of the block's rows is kept at pad(w) = w + w / 32: lane t's window starts near
// word 32 t (S = 32; C = 4 with the channel fastest), so the lanes of a read fall on
// different banks. Lanes: row r, then segment, then channel fastest.
SPLINEBENCH_HD int pad(int w) { return w + (w >> 5); }

struct StagedRows {
  std::uint32_t row0;
  int rows;
  int words;
};
SPLINEBENCH_HD StagedRows staged_rows(const Pass& P, std::uint32_t b) {
  StagedRows R;
  R.row0 = b * static_cast<std::uint32_t>(P.rows_per_block);
  const std::uint32_t left = P.outer - R.row0, per = static_cast<std::uint32_t>(P.rows_per_block);
  R.rows = static_cast<int>(left < per ? left : per);
  R.words = R.rows * P.n * P.C;
  return R;
}

template <bool NC>
SPLINEBENCH_HD void staged_load(const float* in, const Pass& P, std::uint32_t b, int tid, float* sm) {
  const StagedRows R = staged_rows(P, b);
  const float* src = in + static_cast<std::size_t>(R.row0) * P.n * P.C;
  if ((P.n * P.C) % 4 == 0) {  // rows of whole float4s: 16-byte loads
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
template <int S>
SPLINEBENCH_HD bool staged_lane(const Pass& P, std::uint32_t b, int tid, const float* sm, int mode, float* c) {
  const StagedRows R = staged_rows(P, b);
  const int per_row = P.C * P.segs;
  if (tid >= R.rows * per_row) return false;
  const int r = tid / per_row, rem = tid % per_row;
  const int ch = rem % P.C, s0 = (rem / P.C) * S, n = P.n, C = P.C;
  const int row = r * n * C + ch;
  float x[S + 2 * kHalo];
  SL_UNROLL
  for (int k = 0; k < S + 2 * kHalo; ++k) x[k] = sm[pad(row + fold_fast(mode, s0 - kHalo + k, n) * C)];
  lane_outputs<S>(x, c);
  return true;
}

template <int S>
SPLINEBENCH_HD void staged_put(const Pass& P, int tid, const float* c, float* sm) {
  const int per_row = P.C * P.segs;
  const int r = tid / per_row, rem = tid % per_row;
  const int ch = rem % P.C, s0 = (rem / P.C) * S, n = P.n, C = P.C;
  const int row = r * n * C + ch;
  SL_UNROLL
  for (int k = 0; k < S; ++k)
    if (s0 + k < n) sm[pad(row + (s0 + k) * C)] = c[k];
}

SPLINEBENCH_HD void staged_store(const Pass& P, std::uint32_t b, int tid, const float* sm, float* out) {
  const StagedRows R = staged_rows(P, b);
  float* dst = out + static_cast<std::size_t>(R.row0) * P.n * P.C;
  if ((P.n * P.C) % 4 == 0) {
    for (int q = tid; q < R.words / 4; q += kThreads) {
#if defined(__CUDA_ARCH__)
      reinterpret_cast<float4*>(dst)[q] = make_float4(sm[pad(4 * q)], sm[pad(4 * q + 1)], sm[pad(4 * q + 2)], sm[pad(4 * q + 3)]);
#else
      for (int e = 0; e < 4; ++e) dst[4 * q + e] = sm[pad(4 * q + e)];
#endif
    }
  } else {
    for (int w = tid; w < R.words; w += kThreads) dst[w] = sm[pad(w)];
  }
}

// Calls f(std::integral_constant<int, S>) for a compiled S.
template <class F>
void with_segment(int S, F&& f) {
  switch (S) {
    case 16: f(std::integral_constant<int, 16>{}); return;
    case 24: f(std::integral_constant<int, 24>{}); return;
    case 32: f(std::integral_constant<int, 32>{}); return;
    case 48: f(std::integral_constant<int, 48>{}); return;
    case 64: f(std::integral_constant<int, 64>{}); return;
  }
  throw std::runtime_error("segment length not compiled");
}

// ---- host emulation: the kernels' bodies, lane by lane and phase by phase ----------------
template <int S>
void emulate_pass(const Pass& P, const float* src, float* dst, int mode) {
  if (!P.staged) {
#pragma omp parallel for schedule(static)
    for (std::int64_t t = 0; t < static_cast<std::int64_t>(P.tasks); ++t)
      strided_task<S, false>(src, dst, P, mode, static_cast<std::uint32_t>(t));
    return;
  }
#pragma omp parallel
  {
    std::vector<float> sm(P.smem_bytes / 4);
    std::vector<float> c(static_cast<std::size_t>(kThreads) * S);
    std::vector<char> active(kThreads);
#pragma omp for schedule(static)
    for (std::int64_t b = 0; b < static_cast<std::int64_t>(P.blocks); ++b) {
      const auto B = static_cast<std::uint32_t>(b);
      for (int tid = 0; tid < kThreads; ++tid) staged_load<false>(src, P, B, tid, sm.data());
      for (int tid = 0; tid < kThreads; ++tid)
        active[tid] = staged_lane<S>(P, B, tid, sm.data(), mode, c.data() + static_cast<std::size_t>(tid) * S);
      for (int tid = 0; tid < kThreads; ++tid)
        if (active[tid]) staged_put<S>(P, tid, c.data() + static_cast<std::size_t>(tid) * S, sm.data());
      for (int tid = 0; tid < kThreads; ++tid) staged_store(P, B, tid, sm.data(), dst);
    }
  }
}

inline void emulate_plan(const Plan& plan, const float* in, float* out, float* tmp, int mode) {
  for (int p = 0; p < plan.count; ++p) {
    const float* bufs[3] = {in, out, tmp};
    const float* src = bufs[src_buffer(plan.count, p)];
    float* dst = dst_buffer(plan.count, p) == 1 ? out : tmp;
    with_segment(plan.pass[p].S, [&](auto S) { emulate_pass<decltype(S)::value>(plan.pass[p], src, dst, mode); });
  }
}

}  // namespace short_lines
