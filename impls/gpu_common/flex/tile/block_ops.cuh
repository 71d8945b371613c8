// Block-level primitives of the gpu_flex tiles, each with a device and a host meaning
// (DeviceBlock here, HostBlock in tests/gpu_flex/flex_emulate.cpp): a block or a team of
// its threads working through `each`, asynchronous copies into shared memory (cp.async,
// bulk copies), the mbarriers that complete them, and 8- and 16-byte vectors. On the
// host a copy happens at once and every wait returns.
#pragma once

#include <cstdint>
#include <cstring>

#include "gpu_common/flex/flex_pass.hpp"

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

#if defined(__CUDACC__)
struct DeviceBlock {
  template <class F>
  __device__ __forceinline__ void each(F&& f) const {
    f(static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x));
  }
  __device__ __forceinline__ void sync() const { __syncthreads(); }
  // Threads [first, first + count) as a team (Team below): each runs f once with its
  // index in the team; the other threads skip it.
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

// Threads [first, first + count) of a block working as a block of their own: phase
// functions that only call each() (issue_row_loads, filter_row_segments) take a Team
// where they take a Block. A team has no barrier; stream_x_teams uses mbarriers.
template <class Block>
struct Team {
  const Block& blk;
  int first, count;
  template <class F>
  SPLINEBENCH_HD void each(F&& f) const {
    blk.team_each(first, count, f);
  }
};

#if defined(__CUDACC__)
// The kernels' dynamic shared memory (every extern __shared__ array names it). The tiles
// not inlined into the kernels take it through this symbol, not a pointer argument, so
// that the compiler knows the address space (LDS and STS, not generic accesses).
extern __shared__ float4 flex_dynamic_smem[];
#endif

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

// Bulk copies (cp.async.bulk, the TMA unit) of whole 16-byte-aligned rows into shared
// memory, completed through an mbarrier: one thread requests a sub-block, and the copy
// engine, not the threads' load slots, keeps the bytes in flight.
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

// 8-byte vector (float2 on the device).
#if defined(__CUDACC__)
using Vec2 = float2;
#else
struct alignas(8) Vec2 {
  float x, y;
};
#endif
// Two adjacent floats, 8-byte aligned, as one access.
SPLINEBENCH_HD void get2(const float* p, float (&v)[2]) {
  const Vec2 q = *reinterpret_cast<const Vec2*>(p);
  v[0] = q.x, v[1] = q.y;
}
SPLINEBENCH_HD void put2(float* p, const float (&v)[2]) { *reinterpret_cast<Vec2*>(p) = Vec2{v[0], v[1]}; }

// Ends the life of mbarriers a tile initialised, once every wait on them has returned:
// PTX requires mbarrier.inval before the location is used for anything else, the next
// tile's barriers (re-initialisation) or its data included; without it the next tile's
// copies land on memory that still holds valid barrier objects.
SPLINEBENCH_HD void bar_retire(std::uint64_t* bars, int count) {
#if defined(__CUDA_ARCH__)
  for (int k = 0; k < count; ++k) {
    const auto addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(bars + k));
    asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(addr) : "memory");
  }
#else
  (void)bars;
  (void)count;
#endif
}

// Team mbarriers (stream_x_teams): one arrival per member of a team per phase.
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

}  // namespace splinebench::gpu::flex
