// Block-level primitives of the gpu_flex tiles, each with a device and a host meaning
// (DeviceBlock here, HostBlock in tests/gpu_flex/flex_emulate.cpp): a block or a team of
// its threads working through `each`, asynchronous copies into shared memory (cp.async,
// bulk copies), the mbarriers that complete them, and 8- and 16-byte vectors. On the
// host a copy happens at once; an mbarrier keeps its phases (host_bar below), and a wait
// for a phase that has not completed, or on a word that is no barrier, throws.
#pragma once

#include <cstdint>
#include <cstring>
#if !defined(__CUDA_ARCH__)
#include <limits>
#include <string>

#include "splinebench/error.hpp"
#endif

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

#if !defined(__CUDA_ARCH__)
// The host's mbarrier: the 8-byte word holds a tag (a word without it is no barrier:
// never initialised, retired, or poisoned with NaN by the emulation), the arrivals per
// phase, the arrivals of the phase in progress and the phases completed. An arrival
// that completes the count completes the phase (copies land at once on the host: the
// transaction count is not kept). A wait on parity p returns where the last completed
// phase has parity p, what try_wait.parity lets through on the device; anything else
// throws: on the device the wait would spin for a phase nobody completes, or return at
// once for the phase before (before its copies land, where a copy is in flight).
namespace host_bar {
inline constexpr std::uint64_t kTag = 0xB7;  // bits 56..63
inline std::uint64_t load(const std::uint64_t* bar) {
  std::uint64_t w;
  std::memcpy(&w, bar, sizeof w);
  return w;
}
inline void store(std::uint64_t* bar, std::uint64_t w) { std::memcpy(bar, &w, sizeof w); }
inline std::uint64_t tag(std::uint64_t w) { return w >> 56; }
inline std::uint32_t arrivals(std::uint64_t w) { return static_cast<std::uint32_t>(w >> 44) & 0xFFFu; }
inline std::uint32_t pending(std::uint64_t w) { return static_cast<std::uint32_t>(w >> 32) & 0xFFFu; }
inline std::uint32_t completed(std::uint64_t w) { return static_cast<std::uint32_t>(w); }
inline std::uint64_t make(std::uint32_t arrivals, std::uint32_t pending, std::uint32_t completed) {
  return kTag << 56 | static_cast<std::uint64_t>(arrivals) << 44 | static_cast<std::uint64_t>(pending) << 32 |
         completed;
}
[[noreturn]] inline void fail(const char* what, const std::uint64_t* bar, const std::string& why) {
  throw splinebench::Error(std::string("gpu_flex emulation: mbarrier ") + what + " (word " +
                           std::to_string(load(bar)) + "): " + why);
}
// The barrier's word, or a throw where it holds none.
inline std::uint64_t live(const char* what, const std::uint64_t* bar) {
  const std::uint64_t w = load(bar);
  if (tag(w) != kTag) fail(what, bar, "not an initialised barrier (never initialised, or retired)");
  return w;
}
inline void init(std::uint64_t* bar, int arrivals) {
  // PTX: mbarrier.init on a valid barrier needs mbarrier.inval first (bar_retire).
  if (tag(load(bar)) == kTag) fail("init", bar, "initialised again while still valid (no mbarrier.inval before)");
  if (arrivals < 1 || arrivals > 0xFFF) fail("init", bar, "arrival count " + std::to_string(arrivals));
  store(bar, make(static_cast<std::uint32_t>(arrivals), 0, 0));
}
inline void arrive(const char* what, std::uint64_t* bar) {
  const std::uint64_t w = live(what, bar);
  const std::uint32_t n = pending(w) + 1;
  store(bar, n == arrivals(w) ? make(arrivals(w), 0, completed(w) + 1) : make(arrivals(w), n, completed(w)));
}
inline void wait(const std::uint64_t* bar, std::uint32_t parity) {
  const std::uint64_t w = live("wait", bar);
  const std::uint32_t done = completed(w);
  if (parity > 1u || done == 0 || ((done - 1) & 1u) != parity)
    fail("wait", bar, "waits for parity " + std::to_string(parity) + " after " + std::to_string(done) +
                          " completed phases (" + std::to_string(pending(w)) + " of " + std::to_string(arrivals(w)) +
                          " arrivals in the phase in progress): the wrong phase");
}
inline void retire(std::uint64_t* bar) {
  (void)live("retire", bar);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(bar, &nan, sizeof nan);  // the emulation's poison: no barrier, no data
  std::memcpy(reinterpret_cast<char*>(bar) + sizeof nan, &nan, sizeof nan);
}
}  // namespace host_bar
#endif

// Bulk copies (cp.async.bulk, the TMA unit) of whole 16-byte-aligned rows into shared
// memory, completed through an mbarrier: one thread requests a sub-block, and the copy
// engine, not the threads' load slots, keeps the bytes in flight.
SPLINEBENCH_HD void bulk_init(std::uint64_t* bar) {
#if defined(__CUDA_ARCH__)
  cuda::ptx::mbarrier_init(bar, 1u);  // one arrival (the requesting thread) per phase
  // Makes the initialised barrier visible to the copy engine (the async proxy).
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
#else
  host_bar::init(bar, 1);
#endif
}
// Orders the block's earlier shared-memory accesses (generic proxy; other threads'
// through the block barrier before this) before the copy engine's next writes (the
// async proxy). bulk_init's fence does this too; a tile that finds its barriers kept
// calls this instead.
SPLINEBENCH_HD void bulk_fence() {
#if defined(__CUDA_ARCH__)
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
#endif
}
// The requesting thread's arrival for this phase, expecting `bytes` of copies. On the
// host the copies land as they are issued: the arrival completes the phase.
SPLINEBENCH_HD void bulk_expect(std::uint64_t* bar, std::uint32_t bytes) {
#if defined(__CUDA_ARCH__)
  (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                             bar, bytes);
#else
  (void)bytes;
  host_bar::arrive("expect", bar);
#endif
}
SPLINEBENCH_HD void bulk_copy(float* dst, const float* src, std::uint32_t bytes, std::uint64_t* bar) {
#if defined(__CUDA_ARCH__)
  cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, src, bytes, bar);
#else
  (void)host_bar::live("copy", bar);
  std::memcpy(dst, src, bytes);
#endif
}
// Until the phase with this parity has completed (its copies have landed): the phase
// before the one in progress. Also the wait on the team mbarriers below.
SPLINEBENCH_HD void bulk_wait(std::uint64_t* bar, std::uint32_t parity) {
#if defined(__CUDA_ARCH__)
  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
#else
  host_bar::wait(bar, parity);
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

// Ends the life of mbarriers, once every wait on them has returned: PTX requires
// mbarrier.inval before the memory of a valid barrier is used for anything else, another
// tile's data or a barrier initialised there again included. The team tile retires its
// barriers at its end; the bulk tile's barriers live on across the block's tiles that
// leave their memory alone and are retired before one that does not (BulkBars in
// stream_only_bulk.cuh). On the host the words become the emulation's NaN poison.
SPLINEBENCH_HD void bar_retire(std::uint64_t* bars, int count) {
#if defined(__CUDA_ARCH__)
  for (int k = 0; k < count; ++k) {
    const auto addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(bars + k));
    asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(addr) : "memory");
  }
#else
  for (int k = 0; k < count; ++k) host_bar::retire(bars + k);
#endif
}

// Team mbarriers (stream_x_teams): one arrival per member of a team per phase.
SPLINEBENCH_HD void team_bar_init(std::uint64_t* bar, int arrivals) {
#if defined(__CUDA_ARCH__)
  cuda::ptx::mbarrier_init(bar, static_cast<std::uint32_t>(arrivals));
#else
  host_bar::init(bar, arrivals);
#endif
}
// Arrives on `bar` once every cp.async this thread has issued so far has landed (the
// arrival is one of the `arrivals` the barrier was initialised with). On the host they
// have: the arrival counts at once.
SPLINEBENCH_HD void team_bar_arrive_on_loads(std::uint64_t* bar) {
#if defined(__CUDA_ARCH__)
  const auto addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(addr) : "memory");
#else
  host_bar::arrive("arrive on loads", bar);
#endif
}
SPLINEBENCH_HD void team_bar_arrive(std::uint64_t* bar) {
#if defined(__CUDA_ARCH__)
  (void)cuda::ptx::mbarrier_arrive(bar);
#else
  host_bar::arrive("arrive", bar);
#endif
}

}  // namespace splinebench::gpu::flex
