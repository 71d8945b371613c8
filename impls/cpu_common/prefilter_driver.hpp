// Axis-by-axis prefilter for the CPU SIMD implementations, memory-aware: the volume is
// cut into work items that fit in the L2 cache, so each line's causal and anti-causal
// passes hit cache and every value crosses the memory bus once per axis (never a
// strided walk over the whole volume per line). Work items run on `threads` threads
// (work_pool.hpp; the caller decides how many are worth it); the ISA-specific part is
// the kernel table.
#pragma once

#include <cstdint>

#include "line_plan.hpp"
#include "splinebench/phase_times.hpp"
#include "splinebench/types.hpp"

namespace splinebench::cpu {

struct PrefilterKernels {
  // Lines that sit next to each other in memory (every axis but the last): line j's
  // sample k is base[k * row_stride + j], j in [0, lanes).
  void (*columns)(float* base, std::int64_t row_stride, std::int64_t lanes, const LinePlan& plan,
                  float* scratch);
  // Lines along the contiguous axis: `rows` consecutive rows of plan.n samples with
  // `channels` values each; every (row, channel) pair is a line.
  void (*rows)(float* data, std::int64_t rows, int channels, const LinePlan& plan, float* scratch);
};

// Floats of per-thread scratch the kernels may use for lines of length n: room for a
// transposed block of up to kMaxScratchLanes lines of at most kMaxTransposedLength
// (the driver aligns it to 64 bytes). 64 lines = 4 vectors of the widest x86 ISA
// (AVX-512): four independent recursions per row hide the multiply-add latency.
inline constexpr std::int64_t kMaxScratchLanes = 64;
inline constexpr std::int64_t kMaxTransposedLength = std::int64_t{1} << 16;
std::int64_t scratch_floats(std::int64_t n);

// Bytes of one work item: small enough to stay in L2 between the two passes.
inline constexpr std::int64_t kColumnBlockBytes = 256 * 1024;
inline constexpr std::int64_t kRowBlockBytes = 64 * 1024;

// Largest (axis D-2) x (axis D-1) slab that the fused pass filters along both axes in
// one trip through memory: it must stay in L2 (1 MiB per core on AMD Zen 4/5, 2 MiB on
// recent Intel server cores) together with the kernels' scratch.
inline constexpr std::int64_t kFusedSlabBytes = 512 * 1024;

// Samples -> coefficients in place for `fields` fields of `shape`. Records the total
// as phase::prefilter and each axis as phase::prefilter_axis(d). With fuse_last_two,
// D >= 3 and slabs of the last two axes of at most kFusedSlabBytes, those two axes run
// in one pass slab by slab (bit-identical result; their phases then split that pass's
// wall time in proportion to each axis's kernel time). Returns the most threads any
// pass ran on (at most `threads`: a pass with fewer work items runs on fewer).
int prefilter_blocked(const GridShape& shape, std::int64_t fields, float* data, Mode mode,
                      const PrefilterKernels& kernels, int threads, PhaseTimes& times,
                      bool fuse_last_two = true);

}  // namespace splinebench::cpu
