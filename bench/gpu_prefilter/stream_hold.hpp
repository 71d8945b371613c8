// Keeps a stream busy for a while before a timed region (bench_gpu_prefilter).
#pragma once

#include <cuda_runtime.h>

namespace splinebench::bench {

// Enqueues a one-thread kernel that spins on the GPU's global timer for `microseconds`
// and touches no memory. Queued ahead of a timed region's start event, it keeps the
// GPU from reaching that event before the host has enqueued the region's work, so the
// host's enqueue time (planning, API calls, launch latency) is not counted as GPU time
// (nvbench's blocking kernel does the same). The L2 cache is left as it was.
void hold_stream(cudaStream_t stream, double microseconds);

}  // namespace splinebench::bench
