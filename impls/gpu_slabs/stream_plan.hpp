// The host side of the streamed prefilter (stream_prefilter.hpp) that needs no CUDA, so
// it is built and tested on machines without nvcc or a device: the argument checks, the
// slab thickness and starts, and the step after the sweep (the anti-causal carries
// backwards and the corrections, in host memory).
#pragma once

#include <cstdint>
#include <vector>

#include "gpu_slabs/stream_prefilter.hpp"
#include "splinebench/types.hpp"

namespace splinebench::gpu::slabs {

// Plane sets of P floats the sweep keeps on the device besides its slab buffers: the
// causal initial value, the causal state carried between slabs, the periodic
// anti-causal sum and the anti-causal initial value.
inline constexpr int kStreamPlaneSets = 4;
// Most slab buffers accepted (each one slab thick).
inline constexpr int kMaxStreamBuffers = 16;

// Error for a null array, an invalid shape or option; Unsupported for a shape the GPU
// kernels cannot take (an axis of 2^30 samples or more; D >= 2 with channels other than
// 1, 2 or 4, the step prefilter's).
void check_stream_arguments(const float* host_volume, const GridShape& shape, const StreamOptions& options);

// Planes per slab for a line of n planes of P floats: options.slab_planes when set (at
// most n); otherwise the most that fit options.buffers times, with kStreamPlaneSets plane
// sets, in options.memory_fraction of `free_bytes`, capped by options.max_slab_bytes
// (at least one plane) and n. Unsupported when not even one plane per buffer fits.
std::int64_t choose_slab_planes(std::int64_t n, std::int64_t P, const StreamOptions& options,
                                std::int64_t free_bytes);

// Slabs of `planes` planes from plane 0 (the last one the remainder, possibly one plane).
std::vector<std::int64_t> stream_slab_starts(std::int64_t n, std::int64_t planes);

// After the sweep, `host` (n planes of P floats) holds every slab's planes after its
// anti-causal recursion from zero state at its last plane (the last slab's from the
// line's initial value). From the last slab backwards: the carry into slab s is the true
// value at slab s+1's first plane (that plane plus z^len(s+1) times the carry into
// s+1, read before slab s+1 is corrected), and slab s's last correction_depth<float>()
// planes gain z^(len-j) times it (slab_steps.hpp's steps 7 and 8). Powers in double,
// rounded once to float, as the device steps use them. OpenMP over each boundary's
// planes. Returns the planes corrected.
std::int64_t correct_on_host(float* host, std::int64_t n, std::int64_t P, const std::vector<std::int64_t>& starts);

}  // namespace splinebench::gpu::slabs
