// A large host-to-host copy split over the cores: the staging copies between the
// caller's array and page-locked buffers, which one thread's memcpy (a few GB/s) would
// keep well below the host link.
#pragma once

#include <cstddef>

namespace splinebench::gpu::slabs {

// memcpy of `bytes` in 1 MiB parts, the parts spread over the OpenMP threads (one thread
// for a copy of one part or less).
void parallel_copy(void* dst, const void* src, std::size_t bytes);

}  // namespace splinebench::gpu::slabs
