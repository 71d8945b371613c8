// The state of the L2 cache before a timed run (bench_gpu_prefilter).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace splinebench::bench {

// Reads `n` floats (n a multiple of 4, 16-byte aligned) and writes nothing but, never
// for real data, one float of `sink` (sink_len floats). Run over a buffer larger than
// the L2 cache that nothing writes, it leaves the cache holding only clean lines of
// that buffer: whatever the previous operation left dirty is written back before the
// next timed region instead of during it, and none of the operands is resident.
void fill_l2_with_clean_lines(const float* data, std::size_t n, float* sink, int sink_len, cudaStream_t stream);

}  // namespace splinebench::bench
