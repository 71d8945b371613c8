// Host-side entry points of the kernels (defined in the .cu files), called by
// gpu_filter.cpp. Plain structs: no CUDA types beyond the stream.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace splinebench::iir2d::kern {

struct Image {
  const float* x = nullptr;
  float* y = nullptr;
  std::int64_t H = 0, W = 0;
  int M = 1;
  const float* b = nullptr;  // device, M * M
};

// Test instrumentation and the watchdog; null pointers where not used.
struct Watch {
  std::uint32_t* write_counts = nullptr;         // per element, instrumented runs
  unsigned long long* out_of_array = nullptr;    // progress reads before the array
  unsigned* abort = nullptr;                     // set by a block that gave up; all stop
  unsigned long long watchdog_ns = 20'000'000'000ull;
  bool stalls = false;
  std::uint64_t seed = 1;
};

// fixed: one launch per step t = 0 .. H + W - 2 on `stream` (capturable).
void launch_fixed_steps(const Image& im, cudaStream_t stream);
void launch_empty_steps(std::int64_t H, std::int64_t W, cudaStream_t stream);

// flex_locks: one launch per stage of `blocks` rows. `progress` has H + 1 ints, the
// first a guard (progress[-1]); `locks` H ints. Both zeroed by the caller.
void launch_locks(const Image& im, int* progress, int* locks, int blocks, unsigned defects,
                  bool reverse_blocks, const Watch& w, cudaStream_t stream);

// flex_tiles: T in {16, 32}. `order` (device) maps ticket -> tile index ti * TW + tj;
// `state` holds the ticket counter then TH row-progress ints, zeroed by the caller.
// `grid` from prepare_tiles (called before timing: it sets the kernel's shared-memory
// limit and asks the occupancy API, host work that must not sit inside the events).
void launch_tiles(const Image& im, int T, int grid, const std::int64_t* order, unsigned long long* ticket,
                  int* row_progress, const Watch& w, cudaStream_t stream);
int prepare_tiles(int T, int M, std::int64_t tiles);  // the grid: resident blocks, at most one per tile

// flex_strips: strips of 32 rows. `progress` has one 64-bit counter per strip, `ticket`
// one; both zeroed by the caller. `carry` holds 2 x (M - 1) x W floats (unused, may be
// null, when H <= 32). `b_host`: the M x M coefficients, passed as a kernel parameter.
// `grid` from prepare_strips (called before timing, as prepare_tiles).
void launch_strips(const Image& im, const float* b_host, int grid, unsigned long long* ticket, long long* progress,
                   float* carry, const Watch& w, cudaStream_t stream);
int prepare_strips(int M, std::int64_t strips);  // the grid: resident blocks, at most one per strip

}  // namespace splinebench::iir2d::kern
