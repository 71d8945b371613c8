// The seed's flexible allocation (Listing 3) with its defects fixed. Blocks of one warp;
// a stage launches `blocks` of them for rows [lo, lo + blocks). Block b owns row
// lo + b ("column" in the seed's words) and works until that row is done: each time it
// starts from its own row's next element and walks towards lower rows while the row
// above is not far enough ahead, so it helps the lowest row it can advance. A row is
// claimed with atomicCAS on its lock, re-read under the lock, computed by the whole
// warp, published with a release store and unlocked.
//
// Why no block waits forever (with the fixes): rows below lo are finished (earlier
// stages), so the lowest unfinished row of the stage can always advance, and any
// running block that is not on a runnable row walks down to one; a lock is held only
// across one element by a running block. Nobody waits for a block that is not
// scheduled: a row whose owner never ran is advanced by its helpers, and its owner,
// once it runs, finds its row done and leaves.
//
// The defects of the listing, each restorable by a bit of `Defects` (tests only):
//   (i)   progress published to columns[blockIndex] instead of columns[curCol];
//   (ii)  columns[curCol - 1] read before curCol > 0 is tested (reads before the array);
//   (iii) no ordering between the y stores and the progress store (relaxed atomics);
//   (iv)  after a failed CAS the element index curRow is kept, not re-read;
//   (v)   no boundary handling: flat indices (i - k) W + (j - l) wrap at the left edge.
#include <cuda/atomic>

#include "device_common.cuh"
#include "kernels.hpp"
#include "splinebench/cuda/adversarial_pause.cuh"
#include "splinebench/iir2d/gpu.hpp"

namespace splinebench::iir2d::kern {

namespace {

using Ref = cuda::atomic_ref<int, cuda::thread_scope_device>;

struct LockArgs {
  Image im;
  int* progress;  // progress[-1] is a guard word; progress[r] = elements done in row r
  int* locks;
  std::int64_t lo, hi;  // this stage's rows
  bool reverse;
  Watch w;
};

// The walk towards lower rows only looks (relaxed); the checks made under the lock,
// before the element is computed, are the acquires that order its reads.
template <unsigned D, bool Acquire>
__device__ __forceinline__ int load_progress(const LockArgs& a, std::int64_t r) {
  if (a.w.out_of_array && r < 0) atomicAdd(a.w.out_of_array, 1ull);
  Ref p(a.progress[r]);
  return (Acquire && !(D & kDefectNoOrdering)) ? p.load(cuda::memory_order_acquire)
                                               : p.load(cuda::memory_order_relaxed);
}

enum : int { kCompute = 0, kRetry = 1, kDone = 2 };

template <unsigned D>
__global__ void __launch_bounds__(32) locks_kernel(const LockArgs a) {
  __shared__ long long s_row, s_elem;
  __shared__ int s_state;
  const int lane = threadIdx.x;
  const std::int64_t own = a.reverse ? a.hi - 1 - blockIdx.x : a.lo + blockIdx.x;
  const std::int64_t W = a.im.W;
  const int M = a.im.M;
  int stale = 0;  // the listing's curRow, carried across iterations (defect iv only)
  const std::uint64_t start = dev::global_ns();
  unsigned backoff = 0;
  for (unsigned round = 0;; ++round) {
    if (lane == 0) {
      int state = kRetry;
      // The watchdog is polled at the top of every round, whatever the round does: a
      // defective kernel can livelock while computing (defect (i) recomputes a row whose
      // progress it never publishes), not only while waiting. The clock every round; the
      // shared abort flag (an L2 read) after a waiting round and every 32nd round, so
      // that most computing rounds of the timed kernel do not pay for it. Hence every
      // block leaves within watchdog_ns of its start plus 32 rounds, and within 32
      // rounds of another block giving up.
      const bool late = dev::global_ns() - start > a.w.watchdog_ns;
      const bool poll = backoff != 0 || (round & 31u) == 0;
      if (a.w.abort && (late || (poll && *reinterpret_cast<volatile unsigned*>(a.w.abort)))) {
        atomicExch(a.w.abort, 1u);
        s_state = kDone;
      } else {
        std::int64_t c = own;
        int r = (D & kDefectStaleRow) ? stale : load_progress<D, false>(a, c);
        if (load_progress<D, false>(a, own) >= W) {
          state = kDone;
        } else {
          if (D & kDefectOutOfBounds) {
            while (load_progress<D, false>(a, c - 1) < r + 1 && c > a.lo) {
              --c;
              r = load_progress<D, false>(a, c);
            }
          } else {
            while (c > a.lo && load_progress<D, false>(a, c - 1) < r + 1) {
              --c;
              r = load_progress<D, false>(a, c);
            }
          }
          if (r < W) {
            Ref lock(a.locks[c]);
            int expected = 0;
            const bool got = (D & kDefectNoOrdering)
                                 ? lock.compare_exchange_strong(expected, 1, cuda::memory_order_relaxed)
                                 : lock.compare_exchange_strong(expected, 1, cuda::memory_order_acquire);
            if (got) {
              bool ready = true;
              if (!(D & kDefectStaleRow)) {
                // The row may have moved on while we did not hold its lock.
                r = load_progress<D, true>(a, c);
                ready = r < W && (c == a.lo || load_progress<D, true>(a, c - 1) >= r + 1);
              } else if (c > a.lo) {
                load_progress<D, true>(a, c - 1);  // the listing's order: acquire, no re-check
              }
              if (ready) {
                state = kCompute;
                s_row = c;
                s_elem = r;
              } else {
                lock.store(0, cuda::memory_order_relaxed);
              }
            }
          }
          stale = r;
        }
        if (state == kRetry) {
          backoff = backoff ? min(backoff * 2, 2048u) : 32u;
          __nanosleep(backoff);
        } else {
          backoff = 0;
        }
        if (state == kCompute && a.w.stalls) gpu::adversarial_pause(a.w.seed, own * 1315423911ll + r, 2);
        s_state = state;
      }
    }
    __syncthreads();
    const int state = s_state;
    if (state == kDone) return;
    if (state == kCompute) {
      const std::int64_t i = s_row, j = s_elem;
      const float* y = a.im.y;
      const float s = dev::window_sum(
          M * M - 1, lane,
          [&](int idx) {
            const int k = idx / M, l = idx - k * M;
            if (D & kDefectNoBoundary) {
              const std::int64_t flat = (i - k) * W + (j - l);  // the listing's indexing
              return flat >= 0 ? y[flat] : 0.f;                 // (kept inside the buffer here)
            }
            return (i - k >= 0 && j - l >= 0) ? y[(i - k) * W + (j - l)] : 0.f;
          },
          [&](int idx) { return __ldg(&a.im.b[idx]); });
      if (lane == 0) {
        a.im.y[i * W + j] = a.im.x[i * W + j] + s;
        if (a.w.write_counts) atomicAdd(&a.w.write_counts[i * W + j], 1u);
        const std::int64_t p = (D & kDefectProgressIndex) ? own : i;
        Ref prog(a.progress[p]);
        Ref lock(a.locks[i]);
        if (D & kDefectNoOrdering) {
          prog.store(static_cast<int>(j + 1), cuda::memory_order_relaxed);
          lock.exchange(0, cuda::memory_order_relaxed);
        } else {
          prog.store(static_cast<int>(j + 1), cuda::memory_order_release);
          lock.exchange(0, cuda::memory_order_release);
        }
        stale = static_cast<int>(j + 1);
      }
    }
    __syncthreads();  // s_state and s_row are rewritten next round
  }
}

template <unsigned D>
void launch_stage(const LockArgs& a, unsigned blocks, cudaStream_t stream) {
  locks_kernel<D><<<blocks, 32, 0, stream>>>(a);
}

}  // namespace

void launch_locks(const Image& im, int* progress, int* locks, int blocks, unsigned defects, bool reverse_blocks,
                  const Watch& w, cudaStream_t stream) {
  for (std::int64_t lo = 0; lo < im.H; lo += blocks) {
    LockArgs a{im, progress, locks, lo, lo + blocks < im.H ? lo + blocks : im.H, reverse_blocks, w};
    const unsigned n = static_cast<unsigned>(a.hi - a.lo);
    switch (defects) {
      case 0: launch_stage<0>(a, n, stream); break;
      case kDefectProgressIndex: launch_stage<kDefectProgressIndex>(a, n, stream); break;
      case kDefectOutOfBounds: launch_stage<kDefectOutOfBounds>(a, n, stream); break;
      case kDefectNoOrdering: launch_stage<kDefectNoOrdering>(a, n, stream); break;
      case kDefectStaleRow: launch_stage<kDefectStaleRow>(a, n, stream); break;
      case kDefectNoBoundary: launch_stage<kDefectNoBoundary>(a, n, stream); break;
      default: launch_stage<0>(a, 0, stream); break;  // rejected by the caller
    }
  }
}

}  // namespace splinebench::iir2d::kern
