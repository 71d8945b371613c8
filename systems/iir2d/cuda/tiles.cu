// Ours: T x T tiles in one launch. Blocks take tickets from a counter; ticket n names
// tile order[n] (by default the wavefront order: anti-diagonal ti + tj, then ti), a
// topological order of the tile dependencies. A tile needs the tiles up to
// ceil((M-1)/T) rows above and columns to its left; rows of tiles finish left to right
// (each tile waits for its left neighbour), so one progress counter per tile row,
// row_progress[ti] = tiles done in row ti, says enough: the tile (ti, tj) starts when
// row_progress[ti] >= tj and row_progress[ti - 1] >= tj + 1 (which, by the same rule one
// level up, implies every tile above-left of it is done).
//
// Why no block waits forever (the argument of gpu_flex's flex_kernels.cu): a block holds
// at most one ticket, only while running; tickets are handed out in increasing order
// and every tile a tile waits for has a smaller ticket. The smallest unfinished ticket
// waits for nothing unfinished and is held by a running block, so it finishes; by
// induction all do. A block the GPU never schedules holds no ticket.
//
// Inside a tile the window (tile plus M - 1 halo rows and columns, 0 outside the image)
// sits in shared memory; the tile's elements are computed along its 2T - 1
// anti-diagonals, one warp per element (window_sum), 16 warps per block.
#include <algorithm>
#include <string>

#include <cuda/atomic>

#include "device_common.cuh"
#include "cuda_check.hpp"
#include "kernels.hpp"

namespace splinebench::iir2d::kern {

namespace {

inline constexpr int kWarps = 16;
inline constexpr int kThreads = 32 * kWarps;
// Terms per lane held in registers: M <= 32 needs ceil((32^2 - 1) / 32) = 32. Larger
// windows read the (coefficient, offset) table from shared memory instead.
inline constexpr int kRegTerms = 32;

struct TileArgs {
  Image im;
  const std::int64_t* order;
  unsigned long long* ticket;
  int* row_progress;
  Watch w;
};

// RegTerms > 0: each lane keeps its coefficients and window offsets in registers.
template <int T, int RegTerms>
__global__ void __launch_bounds__(kThreads) tiles_kernel(const TileArgs a) {
  extern __shared__ float smem[];
  __shared__ long long s_tile;
  __shared__ int s_abort;
  const int M = a.im.M, terms = M * M - 1, S = T + M - 1;
  float* win = smem;                                           // S x S
  float* tb = win + S * S;                                     // terms + 1 (RegTerms == 0)
  int* toff = reinterpret_cast<int*>(tb + (terms + 1));        // terms + 1 (RegTerms == 0)
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const std::int64_t H = a.im.H, W = a.im.W;
  const std::int64_t TH = (H + T - 1) / T, TW = (W + T - 1) / T;

  float rb[RegTerms > 0 ? RegTerms : 1];
  int ro[RegTerms > 0 ? RegTerms : 1];
  if constexpr (RegTerms > 0) {
#pragma unroll
    for (int m = 0; m < RegTerms; ++m) {
      const int idx = lane + 1 + 32 * m;
      const int k = idx / M, l = idx - k * M;
      rb[m] = 0.f;
      if (idx <= terms) rb[m] = a.im.b[idx];
      ro[m] = k * S + l;
    }
  } else {
    for (int idx = threadIdx.x; idx <= terms; idx += kThreads) {
      const int k = idx / M, l = idx - k * M;
      tb[idx] = a.im.b[idx];
      toff[idx] = k * S + l;
    }
  }

  const std::uint64_t start = dev::global_ns();
  for (long long round = 0;; ++round) {
    if (threadIdx.x == 0) {
      if (a.w.stalls) dev::test_pause(a.w.seed, blockIdx.x * 1000003ll + round, 0);
      const unsigned long long t = atomicAdd(a.ticket, 1ull);
      long long tile = t < static_cast<unsigned long long>(TH * TW) ? a.order[t] : -1;
      int abort = 0;
      if (tile >= 0 && M > 1) {
        const std::int64_t ti = tile / TW, tj = tile % TW;
        cuda::atomic_ref<int, cuda::thread_scope_device> left(a.row_progress[ti]);
        unsigned backoff = 32;
        auto wait = [&](cuda::atomic_ref<int, cuda::thread_scope_device>& p, std::int64_t need) {
          while (!abort && p.load(cuda::memory_order_acquire) < need) {
            __nanosleep(backoff);
            if (backoff < 1024) backoff *= 2;
            if (*reinterpret_cast<volatile unsigned*>(a.w.abort) || dev::global_ns() - start > a.w.watchdog_ns) {
              atomicExch(a.w.abort, 1u);
              abort = 1;
            }
          }
        };
        wait(left, tj);
        if (ti > 0) {
          cuda::atomic_ref<int, cuda::thread_scope_device> up(a.row_progress[ti - 1]);
          wait(up, tj + 1);
        }
      }
      s_tile = tile;
      s_abort = abort;
    }
    __syncthreads();
    const long long tile = s_tile;
    if (tile < 0 || s_abort) return;  // the same for every thread of the block
    const std::int64_t ti = tile / TW, tj = tile % TW;
    const std::int64_t i0 = ti * T - (M - 1), j0 = tj * T - (M - 1);

    // The window: halo from y (finished tiles), the tile itself from x.
    for (int n = threadIdx.x; n < S * S; n += kThreads) {
      const int r = n / S, c = n - r * S;
      const std::int64_t i = i0 + r, j = j0 + c;
      float v = 0.f;
      if (i >= 0 && j >= 0 && i < H && j < W) {
        const bool inside = r >= M - 1 && c >= M - 1;
        v = inside ? a.im.x[i * W + j] : a.im.y[i * W + j];
      }
      win[n] = v;
    }
    __syncthreads();

    for (int step = 0; step < 2 * T - 1; ++step) {
      for (int r = warp; r < T; r += kWarps) {
        const int c = step - r;
        if (c < 0 || c >= T || ti * T + r >= H || tj * T + c >= W) continue;
        float* here = win + (r + M - 1) * S + (c + M - 1);
        float s;
        if constexpr (RegTerms > 0) {
          // window_sum's lane-to-term map, unrolled so rb/ro stay in registers.
          float acc[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
          for (int m = 0; m < RegTerms; ++m) {
            if (32 * m >= terms) break;  // the same for the whole warp
            if (lane + 32 * m < terms) acc[m & 3] = fmaf(rb[m], here[-ro[m]], acc[m & 3]);
          }
          s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
#pragma unroll
          for (int d = 16; d > 0; d >>= 1) s += __shfl_down_sync(dev::kFull, s, d);
        } else {
          s = dev::window_sum(terms, lane, [&](int idx, float acc) { return fmaf(tb[idx], here[-toff[idx]], acc); });
        }
        if (lane == 0) *here = *here + s;  // x + sum
      }
      __syncthreads();
    }

    for (int n = threadIdx.x; n < T * T; n += kThreads) {
      const int r = n / T, c = n - r * T;
      const std::int64_t i = ti * T + r, j = tj * T + c;
      if (i < H && j < W) {
        a.im.y[i * W + j] = win[(r + M - 1) * S + (c + M - 1)];
        if (a.w.write_counts) atomicAdd(&a.w.write_counts[i * W + j], 1u);
      }
    }
    __syncthreads();  // every write of the tile issued before thread 0 publishes
    if (threadIdx.x == 0) {
      if (a.w.stalls) dev::test_pause(a.w.seed, tile, 1);
      __threadfence();
      cuda::atomic_ref<int, cuda::thread_scope_device> done(a.row_progress[ti]);
      done.store(static_cast<int>(tj + 1), cuda::memory_order_release);
    }
  }
}

std::size_t smem_bytes(int T, int M, bool tables) {
  const std::size_t S = T + M - 1, terms = static_cast<std::size_t>(M) * M;
  return S * S * sizeof(float) + (tables ? terms * (sizeof(float) + sizeof(int)) : 0);
}

template <int T, int R>
int grid_of(int M) {
  int device = 0, sms = 0, per_sm = 0;
  cuda_check(cudaGetDevice(&device), "cudaGetDevice");
  cuda_check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  const std::size_t bytes = smem_bytes(T, M, R == 0);
  cuda_check(cudaFuncSetAttribute(tiles_kernel<T, R>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(bytes)),
             "cudaFuncSetAttribute(tiles_kernel)");
  cuda_check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tiles_kernel<T, R>, kThreads, bytes),
             "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  if (per_sm < 1) throw Unsupported("iir2d: the tile kernel does not fit on an SM at M = " + std::to_string(M));
  return sms * per_sm;
}

}  // namespace

int prepare_tiles(int T, int M, std::int64_t tiles) {
  const bool regs = M <= kRegTerms;
  int grid;
  if (T == 16) grid = regs ? grid_of<16, kRegTerms>(M) : grid_of<16, 0>(M);
  else grid = regs ? grid_of<32, kRegTerms>(M) : grid_of<32, 0>(M);
  // Every resident block takes tickets; more blocks than tiles would only exit at once.
  return static_cast<int>(std::min<std::int64_t>(grid, tiles));
}

void launch_tiles(const Image& im, int T, int grid, const std::int64_t* order, unsigned long long* ticket,
                  int* row_progress, const Watch& w, cudaStream_t stream) {
  const TileArgs a{im, order, ticket, row_progress, w};
  const bool regs = im.M <= kRegTerms;
  const std::size_t bytes = smem_bytes(T, im.M, !regs);
  if (T == 16) {
    if (regs) tiles_kernel<16, kRegTerms><<<grid, kThreads, bytes, stream>>>(a);
    else tiles_kernel<16, 0><<<grid, kThreads, bytes, stream>>>(a);
  } else {
    if (regs) tiles_kernel<32, kRegTerms><<<grid, kThreads, bytes, stream>>>(a);
    else tiles_kernel<32, 0><<<grid, kThreads, bytes, stream>>>(a);
  }
}

}  // namespace splinebench::iir2d::kern
