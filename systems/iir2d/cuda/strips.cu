// Ours: strips of 32 rows in one launch, the critical path being the element chain, not
// hand-offs between tiles. Design, dependency argument and expected cost: README.md
// ("flex_strips"); the summation order: strip_order.hpp.
//
// Blocks take strips from a ticket counter in increasing order; strip n waits only for
// strip n - 1 (through its progress counter), which holds a smaller ticket and is running,
// so the argument of tiles.cu applies: the smallest unfinished ticket waits for nothing
// unfinished, by induction all finish, and a block never scheduled holds no ticket.
//
// Inside a strip lane q owns row r0 + q and a skewed wavefront runs along it: at step s
// lane q computes column s - q. Element (i, j) then needs from step s - 1 only y(i, j-1)
// (the lane's own last value) and y(i-1, j) (lane q - 1's last value, one shuffle; for
// lane 0 the strip above's row, staged from global memory); every other term is at least
// two steps old and is summed a step ahead, off the chain. The block's six warps:
//   - warps 0..3 (producers): lane q holds its own row's last values in a shared ring and
//     computes, for the targets of step s + 1, P(m) = sum_l b(m, l) y(r0+q, .) for its
//     range of source offsets m (the terms row r0 + q gives row r0 + q + m). The P of the
//     32 lanes go through shared memory and are read back along diagonals: lane q sums the
//     ones for target row r0 + q (source lanes q - m) and for rows below the strip (source
//     lanes 32 v + q - m, level v >= 1), one partial per warp and level;
//   - warp 4 (chain): y = fma(b(1,0), up, fma(b(0,1), left, x + pre)) with pre = carry-in
//     + the four partials; y to the ring and to global memory; the partials of the rows
//     below, added to their carry-in, to the carry-out (global, per column);
//   - warp 5 (I/O): stages x, the carry-in and the up values of lane 0 kAhead steps ahead
//     into shared memory with cp.async (no register round trip, so the warp does not stall
//     the step), waiting for the strip above's progress first; releases this strip's
//     progress every kPublishEvery steps.
// One __syncthreads per step separates the ring, the partials and the staging of
// consecutive steps. The strip's producers need M^2 - 3 FMAs per lane per step, split over
// four warps (one per SM sub-partition); the coefficients are a kernel parameter, so each
// FMA reads its coefficient from the constant bank at a fixed offset (the kernel is built
// per window size, strip_bucket).
#include <algorithm>
#include <climits>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda/atomic>

#include "device_common.cuh"
#include "kernels.hpp"
#include "splinebench/cuda/adversarial_pause.cuh"
#include "splinebench/cuda/check.hpp"
#include "splinebench/iir2d/strip_order.hpp"

namespace splinebench::iir2d::kern {

namespace {

inline constexpr int kRows = kStripRows;
inline constexpr int kProducers = kStripWarps;
inline constexpr int kChainWarp = kProducers;
inline constexpr int kIoWarp = kProducers + 1;
inline constexpr int kThreads = 32 * (kProducers + 2);
inline constexpr int kAhead = 6;         // steps between staging a step's inputs and using them
inline constexpr int kStages = 8;        // staging slots: more than kAhead, so a slot is free
inline constexpr int kPublishEvery = 4;  // steps between progress releases
inline constexpr int kStallEvery = 32;   // test stalls: at every 32nd release
inline constexpr long long kDone = LLONG_MAX;  // the progress of a finished strip
inline constexpr unsigned kMaxBackoffNs = 256;
static_assert(kRows == 32, "a lane per row");

constexpr int pow2_at_least(int n) {
  int p = 32;
  while (p < n) p *= 2;
  return p;
}

// Shared-memory layout (floats) of the kernel built for window size MaxM.
template <int MaxM>
struct Layout {
  static constexpr int K = (MaxM + kProducers - 1) / kProducers;  // source offsets per producer warp
  static constexpr int V = (MaxM + 30) / 32;  // levels below the strip a row's terms reach
  // The ring holds a row's last values: column c at c mod kRing and c mod kRing + kRing, so
  // any window of up to kRing columns is contiguous. kRing >= 2 MaxM - 2 keeps the column
  // being written apart from the 2 MaxM - 3 being read in the same step, and a multiple of
  // 32 with an odd (pitch - 1) puts the 32 lanes' reads of a step (column s - q of row q)
  // in 32 different banks.
  static constexpr int kRing = pow2_at_least(2 * MaxM - 2);
  static constexpr int pitch = 2 * kRing + 2;
  static constexpr int ring = kRows * pitch;
  static constexpr int ptmp = kProducers * K * 32;             // each warp's P, [warp][i][lane]
  static constexpr int pbuf_half = (V + 1) * kProducers * 32;  // partials, [level][warp][lane]
  static constexpr int pbuf = 2 * pbuf_half;                   // this step's and the next
  // A stage: x [32], carry-in per level [V + 1][32], lane 0's up value (padded to 32).
  static constexpr int slot = (V + 3) * 32;
  static constexpr int x_at = 0, cin_at = 32, up_at = (V + 2) * 32;
  static constexpr int stages = kStages * slot;
  static constexpr std::size_t bytes = sizeof(float) * (ring + ptmp + pbuf + stages);
};

template <int MaxM>
struct Coefs {
  float b[MaxM * MaxM];  // b[m * MaxM + l], zero beyond M
};

struct StripArgs {
  Image im;
  unsigned long long* ticket;
  long long* progress;  // per strip: steps completed (kDone when finished)
  float* carry;         // 2 slots x (M - 1) rows x W
  Watch w;
};

__device__ __forceinline__ void cp_async4(float* dst, const float* src, bool valid) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  const int n = valid ? 4 : 0;  // 0: nothing read, the four bytes zero-filled
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(d), "l"(src), "r"(n) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// Producer warp WI at step s: the P(m), m in [WI K, WI K + K), of row r0 + lane for the
// targets of step s + 1 (target column (s - lane) + 1 - m), then the diagonal sums.
template <int MaxM, int WI>
__device__ __forceinline__ void produce(const Coefs<MaxM>& cb, const float* row, long long s, int lane,
                                        float* ptmp_w, float* pbuf_next) {
  using L = Layout<MaxM>;
  constexpr int K = L::K, m0 = WI * K, m1 = m0 + K < MaxM ? m0 + K : MaxM;
  if constexpr (m0 >= m1) {
#pragma unroll
    for (int v = 0; v <= L::V; ++v) pbuf_next[(v * kProducers + WI) * 32 + lane] = 0.f;
  } else {
    constexpr int n = m1 - m0;
    // Window: w[d - dmin] = y(row, c + 1 - d), c = s - lane, for d = m + l in [dmin, dmax].
    constexpr int dmin = m0 > 2 ? m0 : 2, dmax = (m1 - 1) + (MaxM - 1);
    float p[n];
    if constexpr (dmax >= dmin) {
      float w[dmax - dmin + 1];
      const int base = static_cast<int>((s - lane + 1 - dmax) & (L::kRing - 1));
#pragma unroll
      for (int d = dmin; d <= dmax; ++d) w[d - dmin] = row[base + (dmax - d)];
#pragma unroll
      for (int i = 0; i < n; ++i) {
        const int m = m0 + i;
        p[i] = 0.f;
#pragma unroll
        for (int l = (m == 0 ? 2 : (m == 1 ? 1 : 0)); l < MaxM; ++l) p[i] = fmaf(cb.b[m * MaxM + l], w[m + l - dmin], p[i]);
      }
    } else {
#pragma unroll
      for (int i = 0; i < n; ++i) p[i] = 0.f;
    }
#pragma unroll
    for (int i = 0; i < n; ++i) ptmp_w[i * 32 + lane] = p[i];
    __syncwarp();
    // Target lane `lane` reads P(m) of source lane (lane - m) mod 32: level 0 (its own row)
    // for m <= lane, else the row 32 v + lane below the strip's first, v = ceil((m - lane) / 32).
    // Each level's sum is in increasing m from +0; adding +0 to the other levels leaves them
    // unchanged (a sum started at +0 is never -0).
    float acc[L::V + 1];
#pragma unroll
    for (int v = 0; v <= L::V; ++v) acc[v] = 0.f;
#pragma unroll
    for (int i = 0; i < n; ++i) {
      const int m = m0 + i;
      const float val = ptmp_w[i * 32 + ((lane - m) & 31)];
      const int level = m <= lane ? 0 : (m - lane + 31) >> 5;
#pragma unroll
      for (int v = 0; v <= L::V; ++v) acc[v] = __fadd_rn(acc[v], level == v ? val : 0.f);
    }
#pragma unroll
    for (int v = 0; v <= L::V; ++v) pbuf_next[(v * kProducers + WI) * 32 + lane] = acc[v];
  }
}

template <int MaxM>
__device__ __forceinline__ float strip_sum(const float* pb, int level, int lane) {
  static_assert(kProducers == 4, "strip_order.hpp's (D0 + D1) + (D2 + D3)");
  const float* d = pb + level * kProducers * 32 + lane;
  return __fadd_rn(__fadd_rn(d[0], d[32]), __fadd_rn(d[64], d[96]));
}

template <int MaxM>
// One block per SM is the design (a strip's producers use all four sub-partitions); the
// bound lets ptxas use the registers that avoids spilling in the larger windows.
__global__ void __launch_bounds__(kThreads, 1) strips_kernel(const StripArgs a, const __grid_constant__ Coefs<MaxM> cb) {
  using L = Layout<MaxM>;
  extern __shared__ float smem[];
  float* const ring = smem;
  float* const ptmp = ring + L::ring;
  float* const pbuf = ptmp + L::ptmp;
  float* const stage = pbuf + L::pbuf;
  __shared__ long long s_strip;
  __shared__ int s_abort[2];  // set by the I/O warp in step s at [(s + 1) & 1], read by all in step s + 1

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const std::int64_t H = a.im.H, W = a.im.W;
  const int M = a.im.M;
  const long long strips = (H + kRows - 1) / kRows;
  const std::uint64_t start = dev::global_ns();
  if (threadIdx.x < 2) s_abort[threadIdx.x] = 0;

  for (long long round = 0;; ++round) {
    if (threadIdx.x == 0) {
      if (a.w.stalls) gpu::adversarial_pause(a.w.seed, blockIdx.x * 1000003ll + round, 0);
      const unsigned long long t = atomicAdd(a.ticket, 1ull);
      s_strip = t < static_cast<unsigned long long>(strips) ? static_cast<long long>(t) : -1;
    }
    __syncthreads();
    const long long n = s_strip;
    if (n < 0 || s_abort[0] || s_abort[1]) return;  // the same for every thread of the block
    const std::int64_t r0 = n * kRows, row = r0 + lane;
    const bool has_prev = n > 0, has_next = r0 + kRows < H;
    const long long steps = W + (kRows - 1) + (has_next ? M - 1 : 0);
    const std::int64_t carry_rows = static_cast<std::int64_t>(M - 1) * W;
    const float* const carry_in = has_prev ? a.carry + ((n - 1) & 1) * carry_rows : nullptr;
    float* const carry_out = has_next ? a.carry + (n & 1) * carry_rows : nullptr;
    for (int k = threadIdx.x; k < L::ring; k += kThreads) ring[k] = 0.f;  // y = 0 left of the image
    for (int k = threadIdx.x; k < L::pbuf_half; k += kThreads) pbuf[k] = 0.f;  // step 0's partials

    // I/O warp state: the strip above's progress as last seen.
    long long known = has_prev ? 0 : kDone;
    bool gave_up = false;
    // Waits (lane 0 spinning, the watchdog polled) until the strip above has completed
    // `need` steps; false when the block must give up.
    auto await_above = [&](long long need) {
      if (known >= need) return true;
      long long got = known;
      int abort = 0;
      if (lane == 0) {
        cuda::atomic_ref<long long, cuda::thread_scope_device> p(a.progress[n - 1]);
        unsigned backoff = 32;
        for (;;) {
          got = p.load(cuda::memory_order_acquire);
          if (got >= need) break;
          if (*reinterpret_cast<volatile unsigned*>(a.w.abort) || dev::global_ns() - start > a.w.watchdog_ns) {
            atomicExch(a.w.abort, 1u);
            abort = 1;
            break;
          }
          __nanosleep(backoff);
          if (backoff < kMaxBackoffNs) backoff *= 2;
        }
      }
      __syncwarp();  // lane 0's acquire before the other lanes' reads
      known = __shfl_sync(dev::kFull, got, 0);
      return __shfl_sync(dev::kFull, abort, 0) == 0;
    };
    // Step k's inputs into its slot (zero-filled where there is nothing to read). Step k
    // reads what the strip above wrote in its step k + 32 (carries: row 32 + idx, column
    // k - idx; the up value: its lane 31 at column k, step k + 31), so it needs k + 33 steps.
    auto stage_step = [&](long long k) {
      if (!await_above(k + 33)) return false;
      float* st = stage + (k % kStages) * L::slot;
      const long long col = k - lane;
      const bool xin = row < H && col >= 0 && col < W;
      cp_async4(st + L::x_at + lane, xin ? a.im.x + row * W + col : a.im.x, xin);
#pragma unroll
      for (int v = 0; v <= L::V; ++v) {
        const int idx = 32 * v + lane;
        const long long c = k - idx;
        const bool in = has_prev && idx <= M - 2 && c >= 0 && c < W;
        cp_async4(st + L::cin_at + 32 * v + lane, in ? carry_in + idx * W + c : a.im.x, in);
      }
      if (lane == 0) {
        const bool in = has_prev && k < W;
        cp_async4(st + L::up_at, in ? a.im.y + (r0 - 1) * W + k : a.im.x, in);
      }
      return true;
    };
    if (warp == kIoWarp) {
      for (long long k = 0; k < kAhead; ++k) {
        if (!gave_up && k < steps && !stage_step(k)) gave_up = true;
        cp_async_commit();
      }
      if (gave_up) {
        cp_async_wait<0>();
        if (lane == 0) s_abort[0] = 1;
      } else {
        cp_async_wait<kAhead - 1>();  // step 0's stage
      }
    }
    float ylast = 0.f;  // chain warp: the lane's value of the previous step
    const float b01 = MaxM >= 2 ? cb.b[1] : 0.f, b10 = MaxM >= 2 ? cb.b[MaxM] : 0.f;
    __syncthreads();

    for (long long s = 0; s < steps; ++s) {
      if (s_abort[s & 1]) return;  // the same for every thread of the block
      if (warp < kProducers) {
        const float* my_row = ring + lane * L::pitch;
        float* next = pbuf + ((s + 1) & 1) * L::pbuf_half;
        float* pt = ptmp + warp * L::K * 32;
        switch (warp) {
          case 0: produce<MaxM, 0>(cb, my_row, s, lane, pt, next); break;
          case 1: produce<MaxM, 1>(cb, my_row, s, lane, pt, next); break;
          case 2: produce<MaxM, 2>(cb, my_row, s, lane, pt, next); break;
          default: produce<MaxM, 3>(cb, my_row, s, lane, pt, next); break;
        }
      } else if (warp == kChainWarp) {
        const float* st = stage + (s % kStages) * L::slot;
        const float* pb = pbuf + (s & 1) * L::pbuf_half;
        const float pre = __fadd_rn(st[L::cin_at + lane], strip_sum<MaxM>(pb, 0, lane));
        float up = __shfl_up_sync(dev::kFull, ylast, 1);
        if (lane == 0) up = st[L::up_at];
        float y = __fadd_rn(st[L::x_at + lane], pre);
        if constexpr (MaxM >= 2) y = fmaf(b10, up, fmaf(b01, ylast, y));
        const long long c = s - lane;
        const bool in = c >= 0 && c < W;
        if (!in) y = 0.f;
        if (c >= 0) {
          float* my_row = ring + lane * L::pitch;
          const int at = static_cast<int>(c & (L::kRing - 1));
          my_row[at] = y;
          my_row[at + L::kRing] = y;
        }
        if (in && row < H) {
          a.im.y[row * W + c] = y;
          if (a.w.write_counts) atomicAdd(&a.w.write_counts[row * W + c], 1u);
        }
        ylast = y;
        if (has_next) {
#pragma unroll
          for (int v = 1; v <= L::V; ++v) {
            const int idx = 32 * (v - 1) + lane;  // carry row: target row r0 + 32 + idx
            const long long col = s - 32 * v - lane;
            if (idx <= M - 2 && col >= 0 && col < W)
              carry_out[idx * W + col] = __fadd_rn(st[L::cin_at + 32 * v + lane], strip_sum<MaxM>(pb, v, lane));
          }
        }
      } else if (!gave_up) {
        if (s > 0 && s % kPublishEvery == 0 && lane == 0) {
          // Steps < s are done: their writes precede the last barrier.
          if (a.w.stalls && (s / kPublishEvery) % kStallEvery == 0) gpu::adversarial_pause(a.w.seed, n * 7919 + s, 1);
          // The release alone orders them for the strip below: its fence is cumulative over
          // the writes this thread saw through the barrier. A __threadfence() before it
          // fenced twice and cost 15 % at M = 3.
          cuda::atomic_ref<long long, cuda::thread_scope_device> done(a.progress[n]);
          done.store(s, cuda::memory_order_release);
        }
        const long long x0 = s + 64 - lane;  // x two lines ahead of the stage, into L2
        if (row < H && x0 < W && (x0 & 7) == 0) asm volatile("prefetch.global.L2 [%0];" ::"l"(a.im.x + row * W + x0));
        if (s + kAhead < steps && !stage_step(s + kAhead)) gave_up = true;
        cp_async_commit();
        if (gave_up) {
          cp_async_wait<0>();
          if (lane == 0) s_abort[(s + 1) & 1] = 1;
        } else {
          cp_async_wait<kAhead - 1>();  // step s + 1's stage
        }
      }
      __syncthreads();
    }
    if (warp == kIoWarp) {
      cp_async_wait<0>();  // every lane: no copy of this strip may land in the next one's stages
      if (lane == 0) {
        cuda::atomic_ref<long long, cuda::thread_scope_device> done(a.progress[n]);
        done.store(kDone, cuda::memory_order_release);
      }
    }
  }
}

// Calls f(std::integral_constant<int, B>) with B = strip_bucket(M).
template <typename F>
decltype(auto) with_bucket(int M, F&& f) {
  switch (strip_bucket(M)) {
#define SB_BUCKET(B) \
  case B: return f(std::integral_constant<int, B>{});
    SB_BUCKET(1) SB_BUCKET(2) SB_BUCKET(3) SB_BUCKET(4) SB_BUCKET(5) SB_BUCKET(6) SB_BUCKET(7) SB_BUCKET(8)
    SB_BUCKET(9) SB_BUCKET(10) SB_BUCKET(11) SB_BUCKET(12) SB_BUCKET(13) SB_BUCKET(14) SB_BUCKET(15) SB_BUCKET(16)
    SB_BUCKET(17) SB_BUCKET(18) SB_BUCKET(19) SB_BUCKET(20) SB_BUCKET(21) SB_BUCKET(22) SB_BUCKET(23) SB_BUCKET(24)
    SB_BUCKET(25) SB_BUCKET(26) SB_BUCKET(27) SB_BUCKET(28) SB_BUCKET(29) SB_BUCKET(30) SB_BUCKET(31) SB_BUCKET(32)
    SB_BUCKET(40) SB_BUCKET(48) SB_BUCKET(56)
#undef SB_BUCKET
    default: return f(std::integral_constant<int, 64>{});
  }
}

}  // namespace

int prepare_strips(int M, std::int64_t strips) {
  const int grid = with_bucket(M, [&](auto mm) {
    constexpr int B = decltype(mm)::value;
    int device = 0, sms = 0, per_sm = 0;
    SB_CUDA_CHECK(cudaGetDevice(&device));
    SB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    SB_CUDA_CHECK(cudaFuncSetAttribute(strips_kernel<B>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(Layout<B>::bytes)));
    SB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, strips_kernel<B>, kThreads, Layout<B>::bytes));
    if (per_sm < 1) throw Unsupported("iir2d: the strip kernel does not fit on an SM at M = " + std::to_string(M));
    return sms * per_sm;
  });
  // Every resident block takes tickets; more blocks than strips would only exit at once.
  return static_cast<int>(std::min<std::int64_t>(grid, strips));
}

void launch_strips(const Image& im, const float* b_host, int grid, unsigned long long* ticket, long long* progress,
                   float* carry, const Watch& w, cudaStream_t stream) {
  const StripArgs a{im, ticket, progress, carry, w};
  with_bucket(im.M, [&](auto mm) {
    constexpr int B = decltype(mm)::value;
    Coefs<B> cb{};
    for (int k = 0; k < im.M; ++k)
      for (int l = 0; l < im.M; ++l) cb.b[k * B + l] = b_host[k * im.M + l];
    strips_kernel<B><<<grid, kThreads, Layout<B>::bytes, stream>>>(a, cb);
  });
}

}  // namespace splinebench::iir2d::kern
