// The work of one tile of the gpu_flex prefilter, written once for two drivers: the
// CUDA kernels (flex_kernels.cu, Block = DeviceBlock: one thread block) and the host
// emulation (flex_emulate.cpp, Block = HostBlock: the block's threads run one after
// the other between barriers). A tile is a sequence of phases; inside a phase every
// thread works on its own items, and the block synchronises between phases, so the
// host driver computes exactly what the device does. Every arithmetic operation is an
// explicit fmaf or a single multiply/subtract (nothing for the compiler to contract),
// so both drivers round identically: the GPU tests compare them bit for bit.
//
// Structure of a tile (flex_pass.hpp for the kinds and the halo arithmetic):
//   for each sub-block of p planes (row units for `rows`):
//     - the footprint of the next sub-block is requested (cp.async on the device) while
//       this one is filtered (double buffering);
//     - in-plane filters on the footprint in shared memory (contiguous axis: one item
//       per row or per 32-sample segment; y: one item per column), warm-up and
//       look-ahead inside the footprint, in registers;
//     - stream kinds: per column, the causal recursion along the stream axis continues
//       over the sub-block's planes and its results enter a ring of p + kHalo entries;
//       once kHalo more planes are known, the anti-causal recursion runs back over the
//       ring from zero and writes the finished planes (coalesced: consecutive threads
//       own consecutive columns). `rows`: the filtered rows are written back.
// The register tiles (stream_registers and stream_bulk for stream_only, stream_x_registers
// and stream_x_teams for stream_x) keep that window in registers instead of the ring,
// with the same bits as a ring of kRegP planes per sub-block.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>  // the host emulation's per-thread windows (stream_x_registers)

#include "gpu_flex/flex_pass.hpp"
#include "splinebench/bspline_math.hpp"

#if defined(__CUDACC__)
#include <cuda/ptx>
#include <cuda_pipeline_primitives.h>
#define SB_FLEX_UNROLL _Pragma("unroll")
#define SB_FLEX_NOINLINE __noinline__
#else
#define SB_FLEX_UNROLL
#define SB_FLEX_NOINLINE
#endif

namespace splinebench::gpu::flex {

inline constexpr float kPoleF = -0.267949192431122706472553658494127633f;
inline constexpr float kGainF = 6.0f;

// Index of the sample that position k (any integer) of a length-n axis reads.
SPLINEBENCH_HD std::int64_t fold(int mode, std::int64_t k, std::int64_t n) {
  return (k >= 0 && k < n) ? k : bspline::fold_index(mode, k, n);
}

// fold() in 32-bit arithmetic, for axes shorter than 2^30 and positions within 2^30 of
// them (every stream position a tile reads): the same index, and a 32-bit remainder
// the device computes inline (the 64-bit one is a call, which costs registers).
SPLINEBENCH_HD int fold32(int mode, int k, int n) {
  if (k >= 0 && k < n) return k;
  // One reflection (or shift) reaches [0, n) for positions less than one axis length
  // outside it, which covers every halo position of an axis longer than kHalo: no
  // division. The same index as the remainder below.
  if (mode == 0 && n > 1) {
    if (k < 0 && k > -n) return -k;
    if (k >= n && k <= 2 * n - 2) return 2 * n - 2 - k;
  } else if (mode == 1) {
    if (k < 0 && k >= -n) return -k - 1;
    if (k >= n && k < 2 * n) return 2 * n - 1 - k;
  } else if (mode == 2) {
    if (k < 0 && k >= -n) return k + n;
    if (k >= n && k < 2 * n) return k - n;
  }
  const int p = mode == 0 ? (n == 1 ? 1 : 2 * n - 2) : mode == 1 ? 2 * n : n;  // bspline::mode_period
  int r = k % p;
  if (r < 0) r += p;
  if (mode == 0 && r >= n) return p - r;
  if (mode == 1 && r >= n) return p - 1 - r;
  return r;
}

// A rounded product the device compiler may not fuse with a later add (it would fuse
// z * (a - b) with the next step's subtraction into one FMA and round differently
// from the host).
SPLINEBENCH_HD float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

// c+[k] = 6 f[k] + z c+[k-1] and c[k] = z (c[k+1] - c+[k]), rounded the same way on
// host and device. Both recursions are one fused multiply-add on the chain: the product
// with the input (6 f[k], z c+[k]) does not depend on the previous step, so the chain
// from one output to the next is one FMA rather than a subtraction and a multiplication.
// Two roundings per step either way. Against z (c[k+1] - c+[k]) on the H100 this changed
// no time, and the rel L2 error against the oracle fell by 3-4% (9.1e-8 against 9.5e-8 on
// 3-D; lab/evidence/h100/20261123-143900-gpu_flex-fma-anticausal).
SPLINEBENCH_HD float causal_step(float previous, float sample) {
  return fmaf(kPoleF, previous, mul_rn(kGainF, sample));
}
SPLINEBENCH_HD float anticausal_step(float next, float causal) { return fmaf(kPoleF, next, -mul_rn(kPoleF, causal)); }

// Shared-memory index of position i inside a row of filtered values g: one padding
// float every 32 so that items 32 positions apart hit different banks.
SPLINEBENCH_HD int skew(int i) { return i + (i >> 5); }

// Shared-memory index of footprint position i inside a channel row of the segment
// kinds (rows, stream_x). C == 1: four padding floats every 32, so 16-byte groups stay
// whole and aligned (16-byte cp.async in, float4 reads out) and the 16-byte reads of
// 8 segments 32 positions apart fall in 8 different bank groups. C > 1: as skew().
// flex_plan.cpp (segment_smem) sizes the rows with the same rule.
template <int C>
SPLINEBENCH_HD int fp_skew(int i) {
  return C == 1 ? i + ((i >> 5) << 2) : i + (i >> 5);
}
// Index of value i (channels interleaved) inside a row of filtered values g of the
// segment kinds: the same rule (C == 1: 16-byte groups whole and aligned).
template <int C>
SPLINEBENCH_HD int g_skew(int i) {
  return fp_skew<C>(i);
}

// Copies one float into shared memory: asynchronously on the device (completed by
// Block::wait_loads), at once on the host.
SPLINEBENCH_HD void copy_to_shared(float* dst, const float* src) {
#if defined(__CUDA_ARCH__)
  __pipeline_memcpy_async(dst, src, sizeof(float));
#else
  *dst = *src;
#endif
}

// 16-byte vector for shared-memory rows (float4 on the device).
#if defined(__CUDACC__)
using Vec4 = float4;
#else
struct alignas(16) Vec4 {
  float x, y, z, w;
};
#endif

// Copies 16 bytes (both addresses 16-byte aligned) into shared memory.
SPLINEBENCH_HD void copy16_to_shared(float* dst, const float* src) {
#if defined(__CUDA_ARCH__)
  __pipeline_memcpy_async(dst, src, 16);
#else
  for (int k = 0; k < 4; ++k) dst[k] = src[k];
#endif
}

// Bulk copies (the Hopper TMA unit, cp.async.bulk) of whole 16-byte-aligned rows into
// shared memory, completed through an mbarrier: one thread requests a sub-block with a
// few instructions and the copy engine, not the requesting threads' load slots, keeps
// the bytes in flight. On the host the copy happens at once and the waits return.
SPLINEBENCH_HD void bulk_init(std::uint64_t* bar) {
#if defined(__CUDA_ARCH__)
  cuda::ptx::mbarrier_init(bar, 1u);  // one arrival (the requesting thread) per phase
  // Makes the initialised barrier visible to the copy engine (the async proxy).
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
#else
  *bar = 0;
#endif
}
// The requesting thread's arrival for this phase, expecting `bytes` of copies.
SPLINEBENCH_HD void bulk_expect(std::uint64_t* bar, std::uint32_t bytes) {
#if defined(__CUDA_ARCH__)
  (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                             bar, bytes);
#else
  (void)bar;
  (void)bytes;
#endif
}
SPLINEBENCH_HD void bulk_copy(float* dst, const float* src, std::uint32_t bytes, std::uint64_t* bar) {
#if defined(__CUDA_ARCH__)
  cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, src, bytes, bar);
#else
  (void)bar;
  std::memcpy(dst, src, bytes);
#endif
}
// Until the copies of the phase with this parity have landed.
SPLINEBENCH_HD void bulk_wait(std::uint64_t* bar, std::uint32_t parity) {
#if defined(__CUDA_ARCH__)
  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
#else
  (void)bar;
  (void)parity;
#endif
}

#if defined(__CUDACC__)
struct DeviceBlock {
  template <class F>
  __device__ __forceinline__ void each(F&& f) const {
    f(static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x));
  }
  __device__ __forceinline__ void sync() const { __syncthreads(); }
  // Threads [first, first + count) of the block as a team of their own (Team below):
  // on the device each of them runs f once with its index in the team; the other
  // threads skip it.
  template <class F>
  __device__ __forceinline__ void team_each(int first, int count, F&& f) const {
    const int t = static_cast<int>(threadIdx.x) - first;
    if (t >= 0 && t < count) f(t, count);
  }
  __device__ __forceinline__ void commit_loads() const { __pipeline_commit(); }
  // Waits for this thread's copies of every committed batch but the newest `pending`
  // (the instruction takes a constant: more than 6 waits as for 6, which is stricter).
  __device__ __forceinline__ void wait_loads(int pending) const {
    switch (pending) {
      case 0: __pipeline_wait_prior(0); break;
      case 1: __pipeline_wait_prior(1); break;
      case 2: __pipeline_wait_prior(2); break;
      case 3: __pipeline_wait_prior(3); break;
      case 4: __pipeline_wait_prior(4); break;
      case 5: __pipeline_wait_prior(5); break;
      default: __pipeline_wait_prior(6); break;
    }
  }
};
#endif

// Some of a block's threads (threads [first, first + count)) working as a block of their
// own: each() gives every member its index in the team. Phase functions that only call
// each() (issue_row_loads, filter_row_segments) take a Team where they take a Block; a
// team has no barrier of its own (stream_x_teams synchronises through mbarriers).
template <class Block>
struct Team {
  const Block& blk;
  int first, count;
  template <class F>
  SPLINEBENCH_HD void each(F&& f) const {
    blk.team_each(first, count, f);
  }
};

// Where a tile's data lies.
struct TileSpan {
  std::int64_t base = 0;       // slice offset in values (stream kinds)
  std::int64_t s0 = 0, s1 = 0;  // outputs along the stream axis
  std::int64_t x0 = 0, w0 = 0;
  std::int64_t u0 = 0, u1 = 0;  // rows: row units
  std::int64_t count = 0;       // planes (stream: outputs + 2 halos) or row units
  std::int64_t nslices = 1;     // slices of the tile's group that exist (<= P.group)
};

SPLINEBENCH_HD TileSpan decode_tile(const PassDesc& P, std::int64_t tile) {
  TileSpan t;
  if (P.kind == TileKind::rows) {
    t.u0 = tile * P.units_per_tile;
    t.u1 = t.u0 + P.units_per_tile < P.units ? t.u0 + P.units_per_tile : P.units;
    t.count = t.u1 - t.u0;
    return t;
  }
  // Group -> field and first slice: groups never span fields, and the last group of a
  // field holds the slices that are left (with group == 1: slice = group index).
  const std::int64_t grp = tile / P.tiles_per_slice;
  std::int64_t r = tile - grp * P.tiles_per_slice;
  if (P.group == 1) {
    t.base = grp * P.slice_stride;
  } else {
    const std::int64_t field = grp / P.groups_per_field, in_field = (grp - field * P.groups_per_field) * P.group;
    t.base = (field * P.slices_per_field + in_field) * P.slice_stride;
    t.nslices = P.slices_per_field - in_field < P.group ? P.slices_per_field - in_field : P.group;
  }
  const std::int64_t per_range = P.kind == TileKind::stream_x ? P.x_tiles : P.w_tiles;
  const std::int64_t st = r / per_range;
  r -= st * per_range;
  t.s0 = st * P.s_range;
  t.s1 = t.s0 + P.s_range < P.ns ? t.s0 + P.s_range : P.ns;
  if (P.kind == TileKind::stream_x) {
    t.x0 = r * P.sx;
  } else {
    t.w0 = r * P.w;
  }
  t.count = (t.s1 - t.s0) + 2 * kHalo;
  return t;
}

// ---- loads ----------------------------------------------------------------------

// rows and the shared-memory ring of stream_x: requests the footprint of planes (row
// units) [t0, t0 + np) of the tile into `fp`. Positions are folded in 32-bit arithmetic
// (fold32: axes are shorter than 2^30): the 64-bit remainder of fold() is a call, which
// the halo lanes of every row would run once per value.
template <int C, class Block>
SPLINEBENCH_HD void issue_loads(const Block& blk, const PassDesc& P, const TileSpan& T, std::int64_t t0, int np,
                                float* fp) {
  blk.each([&](int tid, int nt) {
    const int warp = tid >> 5, lane = tid & 31, warps = nt >> 5;
    const int mode = P.mode;
    const SmemLayout& L = P.smem;
    const int fx = P.sx + 2 * kHalo;
    // Fields in registers: P lives in parameter space behind a reference, which the
    // compiler would otherwise reload in the loops. Positions fit in int (axes are
    // shorter than 2^30).
    const int nx = static_cast<int>(P.nx), fp_plane = L.fp_plane, fp_chan = L.fp_chan;
    const bool is_rows = P.kind == TileKind::rows;
    for (int p = warp; p < np; p += warps) {
      const float* src;
      int x0;
      if (is_rows) {
        const std::int64_t u = T.u0 + t0 + p;
        const std::int64_t row = u / P.x_tiles;
        x0 = static_cast<int>((u - row * P.x_tiles) * P.sx);
        src = P.src + row * P.slice_stride;
      } else {
        const std::int64_t s = fold32(mode, static_cast<int>(T.s0 - kHalo + t0 + p), static_cast<int>(P.ns));
        x0 = static_cast<int>(T.x0);
        src = P.src + T.base + s * P.s_stride;
      }
      float* dst = fp + p * fp_plane;
      if (C == 1 && (reinterpret_cast<std::uintptr_t>(src) & 15u) == 0) {
        // 16-byte groups (x0 - kHalo is a multiple of 4): whole copies where the
        // group lies inside the axis, folded values elsewhere.
        for (int k = lane; k < fx / 4; k += 32) {
          const int x = x0 - kHalo + 4 * k;
          float* to = dst + fp_skew<C>(4 * k);
          if (x >= 0 && x <= nx - 4) {
            copy16_to_shared(to, src + x);
          } else {
            for (int e = 0; e < 4; ++e) copy_to_shared(to + e, src + fold32(mode, x + e, nx));
          }
        }
      } else {
        // One sample (C values) per lane and step: one fold per sample.
        for (int i = lane; i < fx; i += 32) {
          const float* from = src + static_cast<std::int64_t>(fold32(mode, x0 - kHalo + i, nx)) * C;
          float* to = dst + fp_skew<C>(i);
          SB_FLEX_UNROLL
          for (int ch = 0; ch < C; ++ch) copy_to_shared(to + ch * fp_chan, from + ch);
        }
      }
    }
  });
}

// The register stream_x tile's footprints: kRegP rows of sx + 2 kHalo samples per
// slice of the tile's group (row r = plane r / group of slice r % group; slices past a
// field's short last group load its last slice again: real samples, never written
// back). The x positions are the same for every row of the tile, so their folds are
// computed once per tile (fill_row_folds, `xfold` in shared memory) and a halo position
// costs a shared load. (With fold32 per halo value and the pass fields reloaded per
// row, the loads of the 256^3 x-y pass were 35% of its executed instructions under
// Nsight Compute.) Whole, aligned 16-byte groups go as 16-byte copies.
// One-channel rows whose start is 16-byte aligned take two loops: whole 16-byte groups
// inside the axis (one copy each, no branch), then the remaining positions (halos
// outside the axis, the tail of an axis that is not a multiple of 4) one float each
// through xfold. (One loop with the branch inside made the compiler predicate both
// paths for every group: the loads were 31% of the 256^3 x-y pass's executed
// instructions at c0a4d03, lab/evidence/h100/20261123-052000-gpu_flex-ncu-256.)
template <int C, bool kGrouped, class Block>
SPLINEBENCH_HD void issue_row_loads(const Block& blk, const PassDesc& P, const TileSpan& T, int t0, int np, float* fp,
                                    const int* xfold) {
  blk.each([&](int tid, int nt) {
    const int warp = tid >> 5, lane = tid & 31, warps = nt >> 5;
    const int mode = P.mode, ns = static_cast<int>(P.ns), nx = static_cast<int>(P.nx);
    const int fx = P.sx + 2 * kHalo, fp_plane = P.smem.fp_plane, fp_chan = P.smem.fp_chan;
    const std::int64_t s_stride = P.s_stride, slice_stride = P.slice_stride;
    const int group = kGrouped ? P.group : 1, last_slice = static_cast<int>(T.nslices) - 1;
    const int s_first = static_cast<int>(T.s0) - kHalo + t0, x_first = static_cast<int>(T.x0) - kHalo;
    const float* base = P.src + T.base;
    // Every row start is 16-byte aligned when the slice is and the strides keep it.
    const bool aligned = C == 1 && (reinterpret_cast<std::uintptr_t>(base) & 15u) == 0 && (s_stride & 3) == 0 &&
                         (!kGrouped || (slice_stride & 3) == 0);
    // Whole 16-byte groups inside the axis: groups [g_lo, g_hi) of the footprint
    // (x_first is a multiple of 4: patches are multiples of kSegment samples).
    const int g_lo = x_first >= 0 ? 0 : -x_first / 4;
    int g_hi = (nx - 4 - x_first) / 4 + 1;
    if (nx - 4 - x_first < 0) g_hi = 0;
    if (g_hi > fx / 4) g_hi = fx / 4;
    if (g_hi < g_lo) g_hi = g_lo;
    const int head = 4 * g_lo, tail = fx - 4 * g_hi;  // positions before and after them
    // Row r of the footprint is plane r / group of slice r % group, followed without division.
    const int plane_step = warps / group, slice_step = warps - plane_step * group;
    int plane = warp / group, slice = warp - plane * group;
    for (int r = warp; r < np * group; r += warps) {
      const float* src = base + static_cast<std::int64_t>(fold32(mode, s_first + plane, ns)) * s_stride;
      if (kGrouped) src += static_cast<std::int64_t>(slice < last_slice ? slice : last_slice) * slice_stride;
      float* dst = fp + r * fp_plane;
      if (aligned) {
        for (int k = g_lo + lane; k < g_hi; k += 32) copy16_to_shared(dst + fp_skew<C>(4 * k), src + x_first + 4 * k);
        for (int j = lane; j < head + tail; j += 32) {
          const int i = j < head ? j : 4 * g_hi + (j - head);
          copy_to_shared(dst + fp_skew<C>(i), src + xfold[i]);
        }
      } else {
        for (int i = lane; i < fx; i += 32) {
          const float* from = src + static_cast<std::int64_t>(xfold[i]) * C;
          float* to = dst + fp_skew<C>(i);
          SB_FLEX_UNROLL
          for (int ch = 0; ch < C; ++ch) copy_to_shared(to + ch * fp_chan, from + ch);
        }
      }
      plane += plane_step;
      slice += slice_step;
      if (slice >= group) {
        slice -= group;
        ++plane;
      }
    }
  });
}

// The folded x of every footprint position of a stream_x tile (for issue_row_loads).
template <class Block>
SPLINEBENCH_HD void fill_row_folds(const Block& blk, const PassDesc& P, const TileSpan& T, int* xfold) {
  blk.each([&](int tid, int nt) {
    const int mode = P.mode, nx = static_cast<int>(P.nx), fx = P.sx + 2 * kHalo;
    const int x_first = static_cast<int>(T.x0) - kHalo;
    for (int i = tid; i < fx; i += nt) xfold[i] = fold32(mode, x_first + i, nx);
  });
}

// ---- in-plane filters ----------------------------------------------------------

// One line of `n` values in registers: causal from zero over all of them, then
// anti-causal from zero back down to position kHalo. Positions [kHalo, n - kHalo)
// then hold finished coefficients.
template <int N>
SPLINEBENCH_HD void filter_window(float (&v)[N]) {
  float c = 0.f;
  SB_FLEX_UNROLL
  for (int k = 0; k < N; ++k) {
    c = causal_step(c, v[k]);
    v[k] = c;
  }
  float a = 0.f;
  SB_FLEX_UNROLL
  for (int k = N - 1; k >= kHalo; --k) {
    a = anticausal_step(a, v[k]);
    v[k] = a;
  }
}

// n / d for 0 <= n < 2^16 and 1 <= d <= 64, given inv = 1.0f / d: the exact quotient
// of n + 1/2 is at least 1 / (2 d) from an integer, and the two float roundings (of inv
// and of the product, each relative 2^-24) move it by less than 2^16 / d * 2^-23 =
// 2^-7 / d, so truncation gives the integer quotient (tests/gpu_flex/test_flex_emulate.cpp
// checks every such n and d). An integer division by a run-time divisor costs about 20
// instructions: per work item of filter_row_segments, a tenth of a 64-sample filter.
// (Its work items are fewer than the footprint's floats in shared memory / kSegment,
// below 2^11; its divisor, segments per row unit, is at most 2048 / kSegment = 64.)
SPLINEBENCH_HD int small_quotient(int n, float inv) { return static_cast<int>((static_cast<float>(n) + 0.5f) * inv); }

// rows / stream_x: every row unit along x in segments of kSegment samples, each with
// its own warm-up and look-ahead read from the footprint; results to g, interleaved
// by channel like global memory (skewed).
template <int C, class Block>
SPLINEBENCH_HD void filter_row_segments(const Block& blk, const PassDesc& P, int np, const float* fp, float* g) {
  constexpr int W = kSegment + 2 * kHalo;
  // Fields in registers, not reloaded from parameter space per item.
  const int fp_plane = P.smem.fp_plane, fp_chan = P.smem.fp_chan, g_plane = P.smem.g_plane;
  const int segs = P.sx / kSegment;
  const float inv_segs = 1.0f / static_cast<float>(segs);
  blk.each([&](int tid, int nt) {
    for (int item = tid; item < np * C * segs; item += nt) {
      const int pc = small_quotient(item, inv_segs), seg = item - pc * segs;
      const int p = pc / C, ch = pc % C;
      const float* row = fp + p * fp_plane + ch * fp_chan;
      const int first = seg * kSegment;
      float v[W];
      if (C == 1) {
        // The window is two whole 32-position blocks, each 16-byte aligned.
        static_assert(kSegment == 32 && W == 64, "C == 1 windows are two padded 32-float blocks");
        const Vec4* lo = reinterpret_cast<const Vec4*>(row + fp_skew<C>(first));
        const Vec4* hi = reinterpret_cast<const Vec4*>(row + fp_skew<C>(first + 32));
  SB_FLEX_UNROLL
        for (int k = 0; k < 8; ++k) {
          const Vec4 a = lo[k], b = hi[k];
          v[4 * k] = a.x;
          v[4 * k + 1] = a.y;
          v[4 * k + 2] = a.z;
          v[4 * k + 3] = a.w;
          v[32 + 4 * k] = b.x;
          v[32 + 4 * k + 1] = b.y;
          v[32 + 4 * k + 2] = b.z;
          v[32 + 4 * k + 3] = b.w;
        }
      } else {
  SB_FLEX_UNROLL
        for (int k = 0; k < W; ++k) v[k] = row[fp_skew<C>(first + k)];
      }
      filter_window(v);
      float* out = g + p * g_plane;
      if (C == 1) {
        // One whole padded 32-float block of g: 16-byte stores, 8 segments of a
        // quarter-warp in 8 different bank groups.
        Vec4* o4 = reinterpret_cast<Vec4*>(out + g_skew<C>(first));
  SB_FLEX_UNROLL
        for (int k = 0; k < kSegment / 4; ++k)
          o4[k] = Vec4{v[kHalo + 4 * k], v[kHalo + 4 * k + 1], v[kHalo + 4 * k + 2], v[kHalo + 4 * k + 3]};
      } else {
  SB_FLEX_UNROLL
        for (int k = 0; k < kSegment; ++k) out[g_skew<C>((first + k) * C + ch)] = v[kHalo + k];
      }
    }
  });
}

// rows: writes the filtered row units of the sub-block (coalesced, one warp a unit).
template <int C, class Block>
SPLINEBENCH_HD void write_rows(const Block& blk, const PassDesc& P, const TileSpan& T, std::int64_t t0, int np,
                               const float* g) {
  blk.each([&](int tid, int nt) {
    const int warp = tid >> 5, lane = tid & 31, warps = nt >> 5;
    for (int p = warp; p < np; p += warps) {
      const std::int64_t u = T.u0 + t0 + p;
      const std::int64_t row = u / P.x_tiles;
      const std::int64_t x0 = (u - row * P.x_tiles) * P.sx;
      const std::int64_t valid_samples = P.nx - x0 < P.sx ? P.nx - x0 : P.sx;
      const int valid = static_cast<int>(valid_samples) * C;
      float* dst = P.dst + row * P.slice_stride + x0 * C;
      const float* src = g + p * P.smem.g_plane;
      if (C == 1 && (valid & 3) == 0 && (reinterpret_cast<std::uintptr_t>(dst) & 15u) == 0) {
        for (int v = 4 * lane; v < valid; v += 128)
          *reinterpret_cast<Vec4*>(dst + v) = *reinterpret_cast<const Vec4*>(src + g_skew<C>(v));
      } else {
        for (int v = lane; v < valid; v += 32) dst[v] = src[g_skew<C>(v)];
      }
    }
  });
}

// ---- the stream filter of the shared-memory ring (stream_x) ----------------------

// Per column of g: continues the causal recursion over planes [t0, t0 + np) of the tile
// (plane t is stream position s0 - kHalo + t) and keeps results of positions >= s0
// in the ring (entry j = position s0 + j). Then, if kHalo planes past some unwritten
// outputs are known, runs the anti-causal recursion from zero at the newest entry
// down to the oldest unwritten output and writes outputs [emitted, emit_end).
// Each thread carries kGroup columns side by side (independent chains for the
// scheduler); column g of a thread's group is base + g * threads, so every g is a
// coalesced row of the block's columns.
// kGroup is 2 where the block has more columns than threads, else 1 (no idle chain).
template <int C, int kGroup, class Block>
SPLINEBENCH_HD void stream_columns(const Block& blk, const PassDesc& P, const TileSpan& T, std::int64_t t0, int np,
                                   std::int64_t emitted, std::int64_t emit_end, const float* g, float* smem) {
  const SmemLayout& L = P.smem;
  float* ring = smem + L.ring;
  float* cz = smem + L.cz;
  const int ncols = P.ncols;
  const int R = L.ring_len;
  // Tile-local plane numbers fit in int (axes are shorter than 2^30).
  const int t0i = static_cast<int>(t0);
  const int top = t0i + np - kHalo - 1;  // newest ring entry
  const int lo = static_cast<int>(emitted), hi = static_cast<int>(emit_end);
  const bool emit = hi > lo;
  blk.each([&](int tid, int nt) {
    for (int base = tid; base < ncols; base += kGroup * nt) {
      int col[kGroup], in_off[kGroup];
      std::int64_t out_off[kGroup];
      bool exists[kGroup], valid[kGroup];
      float c[kGroup];
      SB_FLEX_UNROLL
      for (int k = 0; k < kGroup; ++k) {
        col[k] = base + k * nt;
        exists[k] = col[k] < ncols;
        const int cc = exists[k] ? col[k] : base;  // stands in for a missing column
        in_off[k] = g_skew<C>(cc);
        out_off[k] = T.x0 * C + cc;
        valid[k] = T.x0 + cc / C < P.nx && exists[k];
        col[k] = cc;
        c[k] = (t0i == 0 || !exists[k]) ? 0.f : cz[cc];
      }

      int slot = ((t0i - kHalo) % R + R) % R;  // ring slot of plane t0
      for (int p = 0; p < np; ++p) {
        const bool keep = t0i + p - kHalo >= 0;
        SB_FLEX_UNROLL
        for (int k = 0; k < kGroup; ++k) {
          c[k] = causal_step(c[k], g[in_off[k] + p * L.g_plane]);
          if (keep && exists[k]) ring[slot * ncols + col[k]] = c[k];
        }
        slot = slot + 1 == R ? 0 : slot + 1;
      }
      SB_FLEX_UNROLL
      for (int k = 0; k < kGroup; ++k)
        if (exists[k]) cz[col[k]] = c[k];

      if (emit) {
        float a[kGroup];
        std::int64_t at[kGroup];
        SB_FLEX_UNROLL
        for (int k = 0; k < kGroup; ++k) {
          a[k] = 0.f;
          at[k] = T.base + out_off[k] + (T.s0 + top) * P.s_stride;
        }
        int rs = top % R;
        for (int j = top; j >= lo; --j) {
          SB_FLEX_UNROLL
          for (int k = 0; k < kGroup; ++k) {
            a[k] = anticausal_step(a[k], ring[rs * ncols + col[k]]);
            if (j < hi && valid[k]) P.dst[at[k]] = a[k];
            at[k] -= P.s_stride;
          }
          rs = rs == 0 ? R - 1 : rs - 1;
        }
      }
    }
  });
}

// Vectors of V floats in shared memory and global memory (V = 2), aligned.
template <int V>
struct VecOf;
#if defined(__CUDACC__)
using Vec2 = float2;
#else
struct alignas(8) Vec2 {
  float x, y;
};
#endif
template <>
struct VecOf<2> {
  SPLINEBENCH_HD static void get(const float* p, float (&v)[2], int at) {
    const Vec2 q = *reinterpret_cast<const Vec2*>(p);
    v[at] = q.x, v[at + 1] = q.y;
  }
  SPLINEBENCH_HD static void put(float* p, const float (&v)[2]) { *reinterpret_cast<Vec2*>(p) = Vec2{v[0], v[1]}; }
};

// The stream filter with V adjacent columns per thread: the same per-column
// arithmetic as stream_columns (bit for bit), with V-float shared-memory accesses and
// V-float stores where the V outputs are whole and aligned. The planner sets P.vec only
// where every group of V columns is contiguous and aligned in g (one channel).
template <int C, int V, class Block>
SPLINEBENCH_HD void stream_vectors(const Block& blk, const PassDesc& P, const TileSpan& T, std::int64_t t0, int np,
                                   std::int64_t emitted, std::int64_t emit_end, const float* g, float* smem) {
  using Vec = VecOf<V>;
  const SmemLayout& L = P.smem;
  float* ring = smem + L.ring;
  float* cz = smem + L.cz;
  const int ncols = P.ncols;
  const int R = L.ring_len;
  const int t0i = static_cast<int>(t0);
  const int top = t0i + np - kHalo - 1;
  const int lo = static_cast<int>(emitted), hi = static_cast<int>(emit_end);
  // Columns of this tile that are outputs, and where column 0 goes.
  const std::int64_t limit = (P.nx - T.x0) * C;
  const std::int64_t out0 = T.base + T.x0 * C;
  const bool stride_ok = P.s_stride % V == 0;
  blk.each([&](int tid, int nt) {
    for (int q = tid; V * q < ncols; q += nt) {
      const int col = V * q;
      const int in_off = g_skew<C>(col);
      const std::int64_t left = limit - col;
      const int nvalid = left >= V ? V : (left > 0 ? static_cast<int>(left) : 0);
      float c[V];
      if (t0i == 0) {
  SB_FLEX_UNROLL
        for (int e = 0; e < V; ++e) c[e] = 0.f;
      } else {
        Vec::get(cz + col, c, 0);
      }
      int slot = ((t0i - kHalo) % R + R) % R;
      for (int p = 0; p < np; ++p) {
        float x[V];
        Vec::get(g + in_off + p * L.g_plane, x, 0);
  SB_FLEX_UNROLL
        for (int e = 0; e < V; ++e) c[e] = causal_step(c[e], x[e]);
        if (t0i + p - kHalo >= 0) Vec::put(ring + slot * ncols + col, c);
        slot = slot + 1 == R ? 0 : slot + 1;
      }
      Vec::put(cz + col, c);

      if (hi > lo && nvalid > 0) {
        float a[V];
  SB_FLEX_UNROLL
        for (int e = 0; e < V; ++e) a[e] = 0.f;
        float* out = P.dst + out0 + col + (T.s0 + top) * P.s_stride;
        const bool vec = nvalid == V && stride_ok && (reinterpret_cast<std::uintptr_t>(out) % (4 * V)) == 0;
        int rs = top % R;
        for (int j = top; j >= lo; --j) {
          float r[V];
          Vec::get(ring + rs * ncols + col, r, 0);
  SB_FLEX_UNROLL
          for (int e = 0; e < V; ++e) a[e] = anticausal_step(a[e], r[e]);
          if (j < hi) {
            if (vec) {
              Vec::put(out, a);
            } else {
  SB_FLEX_UNROLL
              for (int e = 0; e < V; ++e)
                if (e < nvalid) out[e] = a[e];
            }
          }
          out -= P.s_stride;
          rs = rs == 0 ? R - 1 : rs - 1;
        }
      }
    }
  });
}

// ---- the register stream tile (stream_only, PassDesc::regs > 0) -------------------

// V adjacent values at `p`: one V-float access when Whole (aligned, all V are
// columns of the axis), else the first `nvalid` one by one (the others 0).
template <int V, bool Whole>
SPLINEBENCH_HD void load_cols(const float* p, int nvalid, float (&x)[V]) {
  if constexpr (Whole && V == 2) {
    const Vec2 q = *reinterpret_cast<const Vec2*>(p);
    x[0] = q.x;
    x[1] = q.y;
  } else {
  SB_FLEX_UNROLL
    for (int e = 0; e < V; ++e) x[e] = (Whole || e < nvalid) ? p[e] : 0.f;
  }
}
template <int V, bool Whole>
SPLINEBENCH_HD void store_cols(float* p, int nvalid, const float (&x)[V]) {
  if constexpr (Whole && V == 2) {
    *reinterpret_cast<Vec2*>(p) = Vec2{x[0], x[1]};
  } else {
  SB_FLEX_UNROLL
    for (int e = 0; e < V; ++e)
      if (Whole || e < nvalid) p[e] = x[e];
  }
}

// One sub-block of the register window, shared by both register tiles: the causal
// recursion continues over cur's np entries (tile entries t0 - kHalo + k, t0 = b kRegP)
// and leaves its results there; from the third sub-block on, the anti-causal recursion
// runs from zero at the newest entry down over cur and then prev (entries t0 - 2 kHalo + k,
// outputs lo + k), handing each output among [lo, hi) to store(out0 + index * stride, a);
// then prev takes cur.
template <int V, class Store>
SPLINEBENCH_HD void window_step(float (&c)[V], float (&prev)[kRegP][V], float (&cur)[kRegP][V], int b, int np,
                                int outputs, float* out0, std::int64_t stride, const Store& store) {
  SB_FLEX_UNROLL
  for (int k = 0; k < kRegP; ++k) {
    if (k < np) {
  SB_FLEX_UNROLL
      for (int e = 0; e < V; ++e) {
        c[e] = causal_step(c[e], cur[k][e]);
        cur[k][e] = c[e];
      }
    }
  }
  if (b >= 2) {
    const int t0 = b * kRegP;
    const int lo = t0 - 2 * kHalo;
    const int hi = t0 + np - 2 * kHalo < outputs ? t0 + np - 2 * kHalo : outputs;
    float a[V];
  SB_FLEX_UNROLL
    for (int e = 0; e < V; ++e) a[e] = 0.f;
  SB_FLEX_UNROLL
    for (int k = kRegP - 1; k >= 0; --k)
      if (k < np)
  SB_FLEX_UNROLL
        for (int e = 0; e < V; ++e) a[e] = anticausal_step(a[e], cur[k][e]);
    float* out = out0 + (lo + kRegP - 1) * stride;
  SB_FLEX_UNROLL
    for (int k = kRegP - 1; k >= 0; --k) {
  SB_FLEX_UNROLL
      for (int e = 0; e < V; ++e) a[e] = anticausal_step(a[e], prev[k][e]);
      if (lo + k < hi) store(out, a);
      out -= stride;
    }
  }
  SB_FLEX_UNROLL
  for (int k = 0; k < kRegP; ++k)
  SB_FLEX_UNROLL
    for (int e = 0; e < V; ++e) prev[k][e] = cur[k][e];
}

// The stream filter of V adjacent columns (the first `nvalid` are columns of the
// axis) of a stream_only tile, window in registers. Per sub-block of kRegP planes: the
// kRegP (independent) loads of its columns, the causal recursion over them (`cur`,
// tile entries t0 - kHalo .. t0 - 1), then the anti-causal recursion from zero at the
// newest entry down over `cur` and the previous sub-block's entries (`prev`), writing
// the outputs among `prev`.
// The same sub-blocks, the same causal chain from the tile's first plane and the same
// anti-causal windows as stream_columns / stream_vectors with p = kRegP (with
// kRegP == kHalo those emit exactly the entries of the previous sub-block): the same
// operations in the same order on the same values, so the same bits (the emulation
// tests compare both, tests/gpu_flex/test_flex_emulate.cpp). Every array index is a
// compile-time constant after unrolling, so `prev` and `cur` stay in registers.
template <int V, bool Whole>
SPLINEBENCH_HD void register_columns(const PassDesc& P, const TileSpan& T, int col, int nvalid) {
  static_assert(kRegP == kHalo, "the window is two halves of kHalo entries");
  const int count = static_cast<int>(T.count);  // planes of the tile (outputs + 2 kHalo)
  const int nsub = (count + kRegP - 1) / kRegP;
  const int outputs = static_cast<int>(T.s1 - T.s0);
  const std::int64_t stride = P.s_stride;
  const float* src0 = P.src + T.base + T.w0 + col;
  float* dst0 = P.dst + T.base + T.w0 + col;
  float* out0 = dst0 + T.s0 * stride;  // output 0 of this column
  float c[V], prev[kRegP][V], cur[kRegP][V];
  SB_FLEX_UNROLL
  for (int e = 0; e < V; ++e) c[e] = 0.f;
  SB_FLEX_UNROLL
  for (int k = 0; k < kRegP; ++k)
  SB_FLEX_UNROLL
    for (int e = 0; e < V; ++e) prev[k][e] = cur[k][e] = 0.f;
  for (int b = 0; b < nsub; ++b) {
    const int t0 = b * kRegP;
    const int np = count - t0 < kRegP ? count - t0 : kRegP;
    // Plane t of the tile is stream position s0 - kHalo + t (folded at the ends).
    const std::int64_t first = T.s0 - kHalo + t0;
    if (first >= 0 && first + kRegP <= P.ns) {
      // Inside the axis (every sub-block but those at the ends): one base pointer.
      const float* from = src0 + first * stride;
  SB_FLEX_UNROLL
      for (int k = 0; k < kRegP; ++k) {
        if (k < np) load_cols<V, Whole>(from, nvalid, cur[k]);
        from += stride;
      }
    } else {
  SB_FLEX_UNROLL
      for (int k = 0; k < kRegP; ++k)
        if (k < np)
          load_cols<V, Whole>(src0 + fold32(P.mode, static_cast<int>(first) + k, static_cast<int>(P.ns)) * stride,
                              nvalid, cur[k]);
    }
    window_step<V>(c, prev, cur, b, np, outputs, out0, stride,
                   [nvalid](float* out, const float (&a)[V]) { store_cols<V, Whole>(out, nvalid, a); });
  }
}

// stream_only without shared memory and without barriers: each thread owns V adjacent
// columns of the chunk (consecutive threads own consecutive columns: coalesced loads
// and stores), register_columns does the rest. Not inlined on the device: its
// registers are allocated apart from the other tile kinds of the same kernel.
template <int V, class Block>
SPLINEBENCH_HD SB_FLEX_NOINLINE void stream_registers(const Block& blk, const PassDesc& P, const TileSpan& T) {
  static_assert(V == 1 || V == 2, "one or two columns per thread");
  const std::int64_t limit = P.inner - T.w0;  // output columns of this chunk
  const bool aligned = V == 1 || (P.s_stride % V == 0 &&
                                  (reinterpret_cast<std::uintptr_t>(P.src + T.base + T.w0) % (4 * V)) == 0 &&
                                  (reinterpret_cast<std::uintptr_t>(P.dst + T.base + T.w0) % (4 * V)) == 0);
  blk.each([&](int tid, int nt) {
    for (int q = tid; V * q < P.ncols; q += nt) {
      const int col = V * q;
      const std::int64_t left = limit - col;
      const int nvalid = left >= V ? V : (left > 0 ? static_cast<int>(left) : 0);
      if (nvalid == 0) continue;  // past the end of the axis: nothing to write
      if (aligned && nvalid == V)
        register_columns<V, true>(P, T, col, nvalid);
      else
        register_columns<V, false>(P, T, col, nvalid);
    }
  });
}

// ---- the register stream_x tile (stream_x with PassDesc::regs > 0) ----------------

// stream_x with the y-stream window in registers instead of the shared-memory ring:
// per sub-block of kRegP rows, the footprint rows arrive (cp.async, SmemLayout::fp_stages
// buffers: up to 3 sub-blocks requested ahead), the block filters them along x into g
// (filter_row_segments), and each thread continues the stream filter of its column of g
// with the window of register_columns: causal recursion over the sub-block's rows, then the
// anti-causal recursion from zero at the newest row down over this and the previous
// sub-block, writing the previous sub-block's outputs straight to global memory.
// The same sub-blocks, causal chain and anti-causal windows as stream_columns /
// stream_vectors with p = kRegP, so the same bits (tests/gpu_flex/test_flex_emulate.cpp
// compares them). The window outlives the barriers between phases: on the device it is
// each thread's registers; the host emulation (threads run one after another between
// barriers) keeps one window per thread.
#if defined(__CUDACC__)
// Every extern __shared__ array of a kernel names its dynamic shared memory.
extern __shared__ float4 flex_dynamic_smem[];
#endif

template <int V>
struct YWindow {
  float c[V];
  float prev[kRegP][V];
  // The register stream_x tile's column of this thread, fixed for the tile: its offset
  // in a row of g, its output columns (0: none), and its output offset from dst0.
  int g_off = 0, nvalid = 0;
  std::int64_t out_off = 0;
  // The state of a stream that has seen nothing yet (both register tiles start so).
  SPLINEBENCH_HD void clear() {
  SB_FLEX_UNROLL
    for (int e = 0; e < V; ++e) c[e] = 0.f;
  SB_FLEX_UNROLL
    for (int k = 0; k < kRegP; ++k)
  SB_FLEX_UNROLL
      for (int e = 0; e < V; ++e) prev[k][e] = 0.f;
  }
  // A cleared window on columns [col, col + V) of register stream_x tile T. The tile's
  // `group` slices lie side by side: column col is column col % width of slice
  // col / width, and plane k of slice s is row k * group + s of the footprint and of g.
  // (The division by the slice width happens once per tile, not once per sub-block.)
  template <int C, bool kGrouped>
  SPLINEBENCH_HD void place(const PassDesc& P, const TileSpan& T, int col) {
    clear();
    const int width = P.sx * C, nslices = static_cast<int>(T.nslices);
    const std::int64_t limit = (P.nx - T.x0) * C;  // output columns of each slice of the tile
    const int slice = kGrouped ? col / width : 0, x = col - slice * width;
    const std::int64_t left = col < P.ncols && slice < nslices ? limit - x : 0;
    nvalid = left >= V ? V : (left > 0 ? static_cast<int>(left) : 0);
    g_off = slice * P.smem.g_plane + g_skew<C>(x);
    out_off = x + T.s0 * P.s_stride + (kGrouped ? static_cast<std::int64_t>(slice) * P.slice_stride : 0);
  }
  // Sub-block b (np rows) of this window's columns along y, out of g (consecutive rows of
  // a slice row_step apart), through window_step; writes the finished outputs below
  // dst0 + out_off. Nothing to do for a window without output columns.
  SPLINEBENCH_HD void stream(const float* g, int row_step, int b, int np, int outputs, float* dst0,
                             std::int64_t stride) {
    if (nvalid == 0) return;
    const float* grow = g + g_off;
    float cur[kRegP][V];
  SB_FLEX_UNROLL
    for (int k = 0; k < kRegP; ++k)
  SB_FLEX_UNROLL
      for (int e = 0; e < V; ++e) cur[k][e] = k < np ? grow[k * row_step + e] : 0.f;
    const int n = nvalid;
    window_step<V>(c, prev, cur, b, np, outputs, dst0 + out_off, stride, [n](float* out, const float (&a)[V]) {
  SB_FLEX_UNROLL
      for (int e = 0; e < V; ++e)
        if (e < n) out[e] = a[e];
    });
  }
};

// Each thread's window: its own registers on the device, one per thread on the host.
// (Never passed between host and device, so the two layouts may differ.)
template <int V>
struct YWindows {
#if defined(__CUDA_ARCH__)
  YWindow<V> own;
  __device__ YWindow<V>& operator()(int) { return own; }
#else
  std::vector<YWindow<V>> all = std::vector<YWindow<V>>(static_cast<std::size_t>(kThreads));
  YWindow<V>& operator()(int tid) { return all[static_cast<std::size_t>(tid)]; }
#endif
};

// kGrouped: the tile holds P.group slices side by side (Tuning::x_group); a template
// switch (as in issue_row_loads), so one-slice tiles keep their code: a run-time group
// in the one-slice path cost 9% at 512^3 on the H100 (tools/device/ab_bench.sh,
// lab/evidence/h100/20261123-032500-gpu_flex-ab).
template <int C, bool kGrouped, class Block>
SPLINEBENCH_HD SB_FLEX_NOINLINE void stream_x_registers(const Block& blk, const PassDesc& P, const TileSpan& T,
                                                       float* smem) {
  static_assert(kRegP == kHalo, "the window is two halves of kHalo entries");
  static constexpr int V = 1;  // columns per thread (flex_plan.cpp: ncols <= kThreads)
  YWindows<V> window;
#if defined(__CUDA_ARCH__)
  // The block's dynamic shared memory (the same buffer the caller passes): through the
  // __shared__ symbol the compiler knows the address space, so g is read with LDS
  // rather than generic loads (this function is not inlined into the kernel).
  smem = reinterpret_cast<float*>(flex_dynamic_smem);
#endif
  const SmemLayout& L = P.smem;
  const int g_plane = L.g_plane;
  const int count = static_cast<int>(T.count);  // rows of the tile (outputs + 2 kHalo)
  const int nsub = (count + kRegP - 1) / kRegP;
  const int outputs = static_cast<int>(T.s1 - T.s0);
  const std::int64_t stride = P.s_stride;
  float* dst0 = P.dst + T.base + T.x0 * C;
  const float* g = smem + L.g;
  // The tile's `group` slices side by side (YWindow::place).
  const int group = kGrouped ? P.group : 1;

  // One column per thread (the planner keeps ncols <= threads).
  blk.each([&](int tid, int) { window(tid).template place<C, kGrouped>(P, T, V * tid); });
  // Sub-block b's footprint goes to buffer b % S; S - 1 sub-blocks are requested ahead.
  const int S = L.fp_stages;
  const int buffer_step = L.fp[1] - L.fp[0];
  auto buffer = [&](int b) { return smem + L.fp[0] + (b % S) * buffer_step; };
  const int* xfold = reinterpret_cast<const int*>(smem + L.xfold);
  auto request = [&](int b) {
    const int t = b * kRegP;
    issue_row_loads<C, kGrouped>(blk, P, T, t, count - t < kRegP ? count - t : kRegP, buffer(b), xfold);
    blk.commit_loads();
  };
  // The previous tile's loads finished before its last barrier; its xfold is free.
  fill_row_folds(blk, P, T, reinterpret_cast<int*>(smem + L.xfold));
  blk.sync();
  for (int b = 0; b < S - 1 && b < nsub; ++b) request(b);
  for (int b = 0; b < nsub; ++b) {
    const int t0 = b * kRegP;
    const int np = count - t0 < kRegP ? count - t0 : kRegP;
    // Buffer (b + S - 1) % S held sub-block b - 1, released by the barrier that ended it.
    if (b + S - 1 < nsub) request(b + S - 1);
    const int newer = nsub - 1 - b < S - 1 ? nsub - 1 - b : S - 1;  // batches after b's
    blk.wait_loads(newer);
    blk.sync();
    filter_row_segments<C>(blk, P, np * group, buffer(b), smem + L.g);
    blk.sync();
    // Plane k + 1 of a slice is group rows further down g.
    blk.each([&](int tid, int) { window(tid).stream(g, group * g_plane, b, np, outputs, dst0, stride); });
    blk.sync();  // buffer(b) and g are free again
  }
}

// ---- the register stream_x tile in two teams (stream_x with PassDesc::teams > 0) ----
//
// The register stream_x tile above runs each sub-block's phases one after the other:
// the x filter (one item per 32-sample segment: 256 items at 256^3 and 512^3, so half the
// block) and then the y stream (one column per thread), with barriers between them. Both
// phases are chains of dependent recursion steps, and with one block per SM nothing else
// hides their latency: on the H100 the 256^3 x-y pass took 0.076 ms against 0.050-0.053 for
// the same loads and writes without the filters (bench/gpu_prefilter/README.md).
// Here the block splits into two teams that work on neighbouring sub-blocks at once:
//   - the x team (threads [0, kTeamX)) requests the footprints S - 1 sub-blocks ahead
//     and filters sub-block b along x into g buffer b % 2;
//   - the y team (the other kTeamY threads, kYCols columns each) streams sub-block b - 1
//     out of the other g buffer along y and writes its outputs.
// Hand-over through mbarriers at SmemLayout::bars, each phase one sub-block:
//   loaded[b % S]: every x thread's copies of sub-block b have landed (each x thread's
//                  cp.async arrive-on, so no x thread waits for the others' copies by a
//                  barrier of its own);
//   full[b % 2]:   every x thread has written g buffer b % 2 with sub-block b; it also
//                  tells the x team that fp buffer b % S is read, so sub-block b + S may
//                  be requested into it;
//   freed[b % 2]:  every y thread has read g buffer b % 2 (sub-block b), so the x team
//                  may write sub-block b + 2 there.
// (A first version handed over with named barriers, bar.arrive / bar.sync; compute-
// sanitizer racecheck reported its g accesses as hazards, and also those of a version
// with a plain block barrier per step beside the x team's named barrier.)
// A wait for the phase of sub-block b cannot be overtaken by the phase of b + S (or
// b + 2): that phase needs an arrival of the waiting team's own threads after the wait.
// Every column runs the same window steps on the same g values as in stream_x_registers,
// so the bits are the same (the emulation tests compare them). The host emulation runs x
// step b and then y step b: an order the device allows.
// (kTeamX, kTeamY, kYCols and team_bar_count are in flex_pass.hpp, for the planner.)
SPLINEBENCH_HD void team_bar_init(std::uint64_t* bar, int arrivals) {
#if defined(__CUDA_ARCH__)
  cuda::ptx::mbarrier_init(bar, static_cast<std::uint32_t>(arrivals));
#else
  (void)arrivals;
  *bar = 0;
#endif
}
// Arrives on `bar` once every cp.async this thread has issued so far has landed (the
// arrival is one of the `arrivals` the barrier was initialised with).
SPLINEBENCH_HD void team_bar_arrive_on_loads(std::uint64_t* bar) {
#if defined(__CUDA_ARCH__)
  const auto addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(addr) : "memory");
#else
  (void)bar;
#endif
}
SPLINEBENCH_HD void team_bar_arrive(std::uint64_t* bar) {
#if defined(__CUDA_ARCH__)
  (void)cuda::ptx::mbarrier_arrive(bar);
#else
  (void)bar;
#endif
}

// kYCols windows per y-team thread: registers on the device, one set per thread on the host.
template <int V>
struct YWindowSets {
#if defined(__CUDA_ARCH__)
  YWindow<V> own[kYCols];
  __device__ YWindow<V>& operator()(int, int j) { return own[j]; }
#else
  std::vector<YWindow<V>> all = std::vector<YWindow<V>>(static_cast<std::size_t>(kTeamY * kYCols));
  YWindow<V>& operator()(int t, int j) { return all[static_cast<std::size_t>(t * kYCols + j)]; }
#endif
};

template <int C, bool kGrouped, class Block>
SPLINEBENCH_HD SB_FLEX_NOINLINE void stream_x_teams(const Block& blk, const PassDesc& P, const TileSpan& T,
                                                   float* smem) {
  static_assert(kRegP == kHalo, "the window is two halves of kHalo entries");
  static_assert(kTeamY * kYCols >= kThreads, "the y team holds every column a tile can have");
  YWindowSets<1> window;
#if defined(__CUDA_ARCH__)
  smem = reinterpret_cast<float*>(flex_dynamic_smem);  // LDS, not generic loads (as stream_x_registers)
#endif
  const SmemLayout& L = P.smem;
  const int g_plane = L.g_plane;
  const int count = static_cast<int>(T.count);  // rows of the tile (outputs + 2 kHalo)
  const int nsub = (count + kRegP - 1) / kRegP;
  const int outputs = static_cast<int>(T.s1 - T.s0);
  const std::int64_t stride = P.s_stride;
  float* dst0 = P.dst + T.base + T.x0 * C;
  const int group = kGrouped ? P.group : 1;  // slices side by side (YWindow::place)
  const int g_step = kRegP * group * g_plane;  // g buffer 1 follows buffer 0
  auto g_buffer = [&](int b) { return smem + L.g + (b & 1) * g_step; };
  const int S = L.fp_stages;
  std::uint64_t* loaded = reinterpret_cast<std::uint64_t*>(smem + L.bars);
  std::uint64_t* full = loaded + S;
  std::uint64_t* freed = full + 2;
  const Team<Block> xteam{blk, 0, kTeamX}, yteam{blk, kTeamX, kTeamY};

  // The y team's columns: thread t has columns t + j kTeamY (coalesced rows for every j).
  yteam.each([&](int t, int) {
  SB_FLEX_UNROLL
    for (int j = 0; j < kYCols; ++j) window(t, j).template place<C, kGrouped>(P, T, t + j * kTeamY);
  });
  const int buffer_step = L.fp[1] - L.fp[0];
  auto buffer = [&](int b) { return smem + L.fp[0] + (b % S) * buffer_step; };
  const int* xfold = reinterpret_cast<const int*>(smem + L.xfold);
  auto request = [&](int b) {
    const int t = b * kRegP;
    issue_row_loads<C, kGrouped>(xteam, P, T, t, count - t < kRegP ? count - t : kRegP, buffer(b), xfold);
    xteam.each([&](int, int) { team_bar_arrive_on_loads(loaded + b % S); });
  };
  // The previous tile ended with a block barrier after its last loads had landed and
  // its last waits had returned: xfold and the mbarriers are free.
  fill_row_folds(blk, P, T, reinterpret_cast<int*>(smem + L.xfold));
  blk.each([&](int tid, int) {
    if (tid != 0) return;
    for (int k = 0; k < S; ++k) team_bar_init(loaded + k, kTeamX);
    for (int k = 0; k < 2; ++k) {
      team_bar_init(full + k, kTeamX);
      team_bar_init(freed + k, kTeamY);
    }
  });
  blk.sync();

  auto x_step = [&](int b) {
    const int np = count - b * kRegP < kRegP ? count - b * kRegP : kRegP;
    xteam.each([&](int, int) {
      if (b >= 1 && b + S - 1 < nsub) {
        // Buffer (b + S - 1) % S held sub-block b - 1: wait until every x thread has read it.
        bulk_wait(full + ((b - 1) & 1), static_cast<std::uint32_t>(((b - 1) >> 1) & 1));
      }
    });
    if (b + S - 1 < nsub) request(b + S - 1);
    xteam.each([&](int, int) {
      bulk_wait(loaded + b % S, static_cast<std::uint32_t>((b / S) & 1));
      if (b >= 2) bulk_wait(freed + (b & 1), static_cast<std::uint32_t>(((b - 2) >> 1) & 1));
    });
    filter_row_segments<C>(xteam, P, np * group, buffer(b), g_buffer(b));
    xteam.each([&](int, int) { team_bar_arrive(full + (b & 1)); });
  };
  auto y_step = [&](int b) {
    const int np = count - b * kRegP < kRegP ? count - b * kRegP : kRegP;
    yteam.each([&](int t, int) {
      bulk_wait(full + (b & 1), static_cast<std::uint32_t>((b >> 1) & 1));
      const float* g = g_buffer(b);
  SB_FLEX_UNROLL
      for (int j = 0; j < kYCols; ++j) window(t, j).stream(g, group * g_plane, b, np, outputs, dst0, stride);
      team_bar_arrive(freed + (b & 1));
    });
  };

#if defined(__CUDA_ARCH__)
  if (static_cast<int>(threadIdx.x) < kTeamX) {
    for (int b = 0; b < S - 1 && b < nsub; ++b) request(b);
    for (int b = 0; b < nsub; ++b) x_step(b);
  } else {
    for (int b = 0; b < nsub; ++b) y_step(b);
  }
#else
  for (int b = 0; b < S - 1 && b < nsub; ++b) request(b);
  for (int b = 0; b < nsub; ++b) {
    x_step(b);
    y_step(b);
  }
#endif
  blk.sync();  // every write of the tile is issued; g, the buffers, xfold and the mbarriers are free
}

// ---- the bulk stream_only tile (stream_only with PassDesc::bulk > 0) -------------

// The register stream_only tile (two columns per thread, the block's kThreads * 2
// columns) fed through shared memory by bulk copies: per sub-block, thread 0 requests
// its kRegP plane rows (one cp.async.bulk of P.w values each) into buffer b % S, up to
// S - 1 sub-blocks ahead; every thread waits for the buffer's barrier, takes its two
// columns into registers and runs the window of register_columns. The same values
// through the same window_step, so the same bits as stream_registers<2> (host tests).
// Why: stream_registers keeps at most one sub-block per thread in flight in its load
// slots; the copy engine keeps S - 1 sub-blocks of the whole block in flight.
// The caller checks the preconditions (bulk_fits): whole chunk, rows 16-byte aligned.
template <class Block>
SPLINEBENCH_HD SB_FLEX_NOINLINE void stream_bulk(const Block& blk, const PassDesc& P, const TileSpan& T, float* smem) {
  static_assert(kRegP == kHalo, "the window is two halves of kHalo entries");
  static constexpr int V = 2;
  YWindows<V> window;
#if defined(__CUDA_ARCH__)
  smem = reinterpret_cast<float*>(flex_dynamic_smem);  // LDS, not generic loads (as stream_x_registers)
#endif
  const SmemLayout& L = P.smem;
  const int S = L.fp_stages, w = P.w;
  const int count = static_cast<int>(T.count);  // planes of the tile (outputs + 2 kHalo)
  const int nsub = (count + kRegP - 1) / kRegP;
  const int outputs = static_cast<int>(T.s1 - T.s0);
  const std::int64_t stride = P.s_stride;
  const float* src0 = P.src + T.base + T.w0;
  float* out_base = P.dst + T.base + T.w0 + T.s0 * stride;
  std::uint64_t* bars = reinterpret_cast<std::uint64_t*>(smem + L.bars);
  const int buffer_step = kRegP * w;
  // Thread 0 only: sub-block b's plane rows into buffer b % S.
  auto request = [&](int b) {
    const int t0 = b * kRegP;
    const int np = count - t0 < kRegP ? count - t0 : kRegP;
    std::uint64_t* bar = bars + b % S;
    float* buf = smem + L.fp[0] + (b % S) * buffer_step;
    bulk_expect(bar, static_cast<std::uint32_t>(np * w * 4));
    const int first = static_cast<int>(T.s0) - kHalo + t0, ns = static_cast<int>(P.ns);
    for (int k = 0; k < np; ++k)
      bulk_copy(buf + k * w, src0 + static_cast<std::int64_t>(fold32(P.mode, first + k, ns)) * stride,
                static_cast<std::uint32_t>(w * 4), bar);
  };
  blk.each([&](int tid, int) {
    window(tid).clear();
    if (tid == 0)
      for (int k = 0; k < S; ++k) bulk_init(bars + k);
  });
  blk.sync();  // the barriers are initialised before anyone waits on them
  blk.each([&](int tid, int) {
    if (tid == 0)
      for (int b = 0; b < S - 1 && b < nsub; ++b) request(b);
  });
  for (int b = 0; b < nsub; ++b) {
    const int np = count - b * kRegP < kRegP ? count - b * kRegP : kRegP;
    blk.each([&](int tid, int) {
      // Buffer (b + S - 1) % S held sub-block b - 1, released by the barrier that ended it.
      if (tid == 0 && b + S - 1 < nsub) request(b + S - 1);
      bulk_wait(bars + b % S, static_cast<std::uint32_t>((b / S) & 1));
      const float* buf = smem + L.fp[0] + (b % S) * buffer_step;
      const int col = V * tid;
      float cur[kRegP][V];
  SB_FLEX_UNROLL
      for (int k = 0; k < kRegP; ++k) {
        const Vec2 q = k < np ? *reinterpret_cast<const Vec2*>(buf + k * w + col) : Vec2{0.f, 0.f};
        cur[k][0] = q.x;
        cur[k][1] = q.y;
      }
      YWindow<V>& win = window(tid);
      window_step<V>(win.c, win.prev, cur, b, np, outputs, out_base + col, stride,
                     [](float* out, const float (&a)[V]) { *reinterpret_cast<Vec2*>(out) = Vec2{a[0], a[1]}; });
    });
    blk.sync();  // buffer b % S is free again
  }
}

// Whether a stream_only tile can take the bulk tile: a whole chunk of the block's
// columns whose plane rows start 16-byte aligned (the planner sets P.bulk only for
// such chunk widths; the data's alignment is known only here).
SPLINEBENCH_HD bool bulk_fits(const PassDesc& P, const TileSpan& T) {
  return P.inner - T.w0 >= P.w && (P.s_stride & 3) == 0 && (T.w0 & 3) == 0 &&
         (reinterpret_cast<std::uintptr_t>(P.src + T.base) & 15u) == 0 &&
         (reinterpret_cast<std::uintptr_t>(P.dst + T.base) & 7u) == 0;
}

// ---- one tile ------------------------------------------------------------------

template <int C, class Block>
SPLINEBENCH_HD void run_tile(const Block& blk, const PassDesc& P, std::int64_t tile, float* smem) {
  const TileSpan T = decode_tile(P, tile);
  if (P.kind == TileKind::stream_x && P.regs > 0 && P.teams > 0) {
    // Ends with a barrier: every thread's writes are issued before the tile's release.
    if (P.group > 1)
      stream_x_teams<C, true>(blk, P, T, smem);
    else
      stream_x_teams<C, false>(blk, P, T, smem);
    return;
  }
  if (P.kind == TileKind::stream_x && P.regs > 0) {
    // Ends with a barrier: every thread's writes are issued before the tile's release.
    if (P.group > 1)
      stream_x_registers<C, true>(blk, P, T, smem);
    else
      stream_x_registers<C, false>(blk, P, T, smem);
    return;
  }
  if (P.kind == TileKind::stream_only && P.bulk > 0 && bulk_fits(P, T)) {
    // Ends with a barrier: every thread's writes are issued before the tile's release.
    stream_bulk(blk, P, T, smem);
    return;
  }
  if (P.kind == TileKind::stream_only) {
    // No shared memory, no barrier inside; the one barrier orders every thread's
    // writes before the caller's release of the tile (flex_kernels.cu).
    if (P.regs == 2)
      stream_registers<2>(blk, P, T);
    else
      stream_registers<1>(blk, P, T);
    blk.sync();
    return;
  }
  // rows, and stream_x where its y window does not fit in registers: the shared-memory
  // ring, footprints double-buffered.
  const bool stream = P.kind == TileKind::stream_x;
  const int nsub = static_cast<int>((T.count + P.p - 1) / P.p);
  std::int64_t emitted = 0;  // stream outputs written so far (same on every thread)
  float* g = smem + P.smem.g;

  issue_loads<C>(blk, P, T, 0, static_cast<int>(T.count < P.p ? T.count : P.p), smem + P.smem.fp[0]);
  blk.commit_loads();
  for (int b = 0; b < nsub; ++b) {
    const std::int64_t t0 = static_cast<std::int64_t>(b) * P.p;
    const int np = static_cast<int>(T.count - t0 < P.p ? T.count - t0 : P.p);
    float* fp = smem + P.smem.fp[b & 1];
    if (b + 1 < nsub) {
      // The other buffer was released by the barrier that ended sub-block b - 1.
      const std::int64_t t1 = t0 + P.p;
      issue_loads<C>(blk, P, T, t1, static_cast<int>(T.count - t1 < P.p ? T.count - t1 : P.p),
                     smem + P.smem.fp[(b + 1) & 1]);
      blk.commit_loads();
      blk.wait_loads(1);
    } else {
      blk.wait_loads(0);
    }
    blk.sync();
    filter_row_segments<C>(blk, P, np, fp, g);
    blk.sync();
    if (!stream) {
      write_rows<C>(blk, P, T, t0, np, g);
    } else {
      const std::int64_t e = t0 + np;  // planes known after this sub-block
      const std::int64_t outputs = T.s1 - T.s0;
      const std::int64_t emit_end = e - 2 * kHalo < outputs ? e - 2 * kHalo : outputs;
      if (P.vec == 2)
        stream_vectors<C, 2>(blk, P, T, t0, np, emitted, emit_end, g, smem);
      else if (P.ncols > kThreads)
        stream_columns<C, 2>(blk, P, T, t0, np, emitted, emit_end, g, smem);
      else
        stream_columns<C, 1>(blk, P, T, t0, np, emitted, emit_end, g, smem);
      if (emit_end > emitted) emitted = emit_end;
    }
    blk.sync();  // fp[b & 1], g and the ring are free again
  }
}

}  // namespace splinebench::gpu::flex
