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
// anti-diagonals, one warp per element (window_sum's order), 16 warps per block.
//
// What bounds it is the chain of tiles along the wavefront (TH + TW - 1 of them), each a
// chain of 2T - 1 dependent steps, so the kernel is written for latency:
//   - the window's row pitch P is congruent to M mod 32, so lane L's term idx sits at
//     bank (idx + const) mod 32: the 32 lanes' loads of one step never conflict;
//   - the coefficients and offsets sit in registers, the kernel instantiated for the
//     number of terms per lane the window needs, so an element's loads are issued in one
//     straight run;
//   - with T = 32 a warp owns two rows of the tile and sums both elements of a step in one
//     interleaved pass;
//   - the tile's own x is loaded while thread 0 waits for the tiles above and to the
//     left, so only the halo load follows the wait;
//   - a waiting block backs off at most 256 ns, a fraction of a tile's time.
#include <algorithm>
#include <string>
#include <type_traits>

#include <cuda/atomic>

#include "device_common.cuh"
#include "kernels.hpp"
#include "splinebench/cuda/adversarial_pause.cuh"
#include "splinebench/cuda/check.hpp"

namespace splinebench::iir2d::kern {

namespace {

inline constexpr int kWarps = 16;
inline constexpr int kThreads = 32 * kWarps;
// Terms per lane held in registers: M <= 32 needs ceil((32^2 - 1) / 32) = 32. Larger
// windows read the (coefficient, offset) table from shared memory instead. The kernel is
// instantiated for 8, 16, 24 and 32 terms per lane (the smallest that holds the window:
// M <= 16, 22, 27, 32), so every term load of an element is issued in one straight run.
inline constexpr int kChunk = 8;

constexpr int reg_terms_for(int M) {
  const int per_lane = (M * M - 1 + 31) / 32;
  return M > 32 ? 0 : (per_lane + kChunk - 1) / kChunk * kChunk;
}
inline constexpr unsigned kMaxBackoffNs = 256;

// The window's row pitch: at least S = T + M - 1 and congruent to M mod 32, so that
// k P + l = idx (mod 32) for idx = k M + l: consecutive terms fall in consecutive banks.
__host__ __device__ constexpr int window_pitch(int T, int M) {
  const int S = T + M - 1;
  return S + (((M - S) % 32) + 32) % 32;
}

// The element at `here` (and, for E = 2, at `here2`): window_sum's lane-to-term map with
// the coefficients and offsets in registers. Lane 0 gets the sums.
template <int E, int RegTerms>
__device__ __forceinline__ void reg_window_sums(const float* here, const float* here2, const float (&rb)[RegTerms],
                                                const int (&ro)[RegTerms], int terms, int lane, float* out) {
  float acc[E][4] = {};
#pragma unroll
  for (int g = 0; g < RegTerms / kChunk; ++g) {
    float v[E][kChunk];
#pragma unroll
    for (int q = 0; q < kChunk; ++q) {
      const int m = kChunk * g + q;
      v[0][q] = here[-ro[m]];
      if constexpr (E == 2) v[1][q] = here2[-ro[m]];
    }
#pragma unroll
    for (int q = 0; q < kChunk; ++q) {
      const int m = kChunk * g + q;
      if (lane + 32 * m < terms) {
#pragma unroll
        for (int e = 0; e < E; ++e) acc[e][m & 3] = fmaf(rb[m], v[e][q], acc[e][m & 3]);
      }
    }
  }
#pragma unroll
  for (int e = 0; e < E; ++e)
    out[e] = dev::lane_tree_sum((acc[e][0] + acc[e][1]) + (acc[e][2] + acc[e][3]), terms);
}

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
  const int M = a.im.M, terms = M * M - 1, S = T + M - 1, P = window_pitch(T, M);
  float* win = smem;                                           // S rows of pitch P
  float* tb = win + S * P;                                     // terms + 1 (RegTerms == 0)
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
      ro[m] = idx <= terms ? k * P + l : 0;  // a lane past the window reads its own element, unused
    }
  } else {
    for (int idx = threadIdx.x; idx <= terms; idx += kThreads) {
      const int k = idx / M, l = idx - k * M;
      tb[idx] = a.im.b[idx];
      toff[idx] = k * P + l;
    }
  }

  const std::uint64_t start = dev::global_ns();
  long long tile = -1;
  for (long long round = 0;; ++round) {
    // The next ticket's tile, for everyone: its own x can be loaded before the wait.
    if (threadIdx.x == 0) {
      if (a.w.stalls) gpu::adversarial_pause(a.w.seed, blockIdx.x * 1000003ll + round, 0);
      const unsigned long long t = atomicAdd(a.ticket, 1ull);
      s_tile = t < static_cast<unsigned long long>(TH * TW) ? a.order[t] : -1;
    }
    __syncthreads();
    tile = s_tile;
    if (tile < 0) return;  // the same for every thread of the block
    const std::int64_t ti = tile / TW, tj = tile % TW;
    const std::int64_t i0 = ti * T - (M - 1), j0 = tj * T - (M - 1);
    for (int n = threadIdx.x; n < T * T; n += kThreads) {
      const int r = n / T, c = n - r * T;
      const std::int64_t i = ti * T + r, j = tj * T + c;
      win[(r + M - 1) * P + (c + M - 1)] = (i < H && j < W) ? a.im.x[i * W + j] : 0.f;
    }
    if (threadIdx.x == 0) {
      int abort = 0;
      if (M > 1) {
        cuda::atomic_ref<int, cuda::thread_scope_device> left(a.row_progress[ti]);
        unsigned backoff = 32;
        auto wait = [&](cuda::atomic_ref<int, cuda::thread_scope_device>& p, std::int64_t need) {
          while (!abort && p.load(cuda::memory_order_acquire) < need) {
            __nanosleep(backoff);
            if (backoff < kMaxBackoffNs) backoff *= 2;
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
      s_abort = abort;
    }
    __syncthreads();
    if (s_abort) return;  // the same for every thread of the block

    // The halo from y (finished tiles), 0 outside the image.
    const int halo = S * S - T * T;
    for (int n = threadIdx.x; n < halo; n += kThreads) {
      // The M - 1 full rows above the tile, then the M - 1 columns left of each tile row.
      int r, c;
      if (n < (M - 1) * S) {
        r = n / S;
        c = n - r * S;
      } else {
        const int q = n - (M - 1) * S;
        r = M - 1 + q / (M - 1);
        c = q % (M - 1);
      }
      const std::int64_t i = i0 + r, j = j0 + c;
      win[r * P + c] = (i >= 0 && j >= 0 && i < H && j < W) ? a.im.y[i * W + j] : 0.f;
    }
    __syncthreads();

    for (int step = 0; step < 2 * T - 1; ++step) {
      if constexpr (RegTerms > 0 && T == 2 * kWarps) {
        // Rows warp and warp + kWarps: both elements of the step in one pass.
        const int r1 = warp, r2 = warp + kWarps, c1 = step - r1, c2 = step - r2;
        const bool e1 = c1 >= 0 && c1 < T && ti * T + r1 < H && tj * T + c1 < W;
        const bool e2 = c2 >= 0 && c2 < T && ti * T + r2 < H && tj * T + c2 < W;
        float* h1 = win + (r1 + M - 1) * P + (c1 + M - 1);
        float* h2 = win + (r2 + M - 1) * P + (c2 + M - 1);
        float sums[2];
        if (e1 && e2) {
          reg_window_sums<2>(h1, h2, rb, ro, terms, lane, sums);
          if (lane == 0) {
            *h1 = *h1 + sums[0];  // x + sum
            *h2 = *h2 + sums[1];
          }
        } else if (e1 || e2) {
          float* h = e1 ? h1 : h2;
          reg_window_sums<1>(h, h, rb, ro, terms, lane, sums);
          if (lane == 0) *h = *h + sums[0];
        }
      } else {
        for (int r = warp; r < T; r += kWarps) {
          const int c = step - r;
          if (c < 0 || c >= T || ti * T + r >= H || tj * T + c >= W) continue;
          float* here = win + (r + M - 1) * P + (c + M - 1);
          float s;
          if constexpr (RegTerms > 0) {
            reg_window_sums<1>(here, here, rb, ro, terms, lane, &s);
          } else {
            s = dev::window_sum(
                terms, lane, [&](int idx) { return here[-toff[idx]]; }, [&](int idx) { return tb[idx]; });
          }
          if (lane == 0) *here = *here + s;  // x + sum
        }
      }
      __syncthreads();
    }

    for (int n = threadIdx.x; n < T * T; n += kThreads) {
      const int r = n / T, c = n - r * T;
      const std::int64_t i = ti * T + r, j = tj * T + c;
      if (i < H && j < W) {
        a.im.y[i * W + j] = win[(r + M - 1) * P + (c + M - 1)];
        if (a.w.write_counts) atomicAdd(&a.w.write_counts[i * W + j], 1u);
      }
    }
    __syncthreads();  // every write of the tile issued before thread 0 publishes
    if (threadIdx.x == 0) {
      if (a.w.stalls) gpu::adversarial_pause(a.w.seed, tile, 1);
      __threadfence();
      cuda::atomic_ref<int, cuda::thread_scope_device> done(a.row_progress[ti]);
      done.store(static_cast<int>(tj + 1), cuda::memory_order_release);
    }
  }
}

std::size_t smem_bytes(int T, int M, bool tables) {
  const std::size_t S = T + M - 1, terms = static_cast<std::size_t>(M) * M;
  return S * window_pitch(T, M) * sizeof(float) + (tables ? terms * (sizeof(float) + sizeof(int)) : 0);
}

template <int T, int R>
int grid_of(int M) {
  int device = 0, sms = 0, per_sm = 0;
  SB_CUDA_CHECK(cudaGetDevice(&device));
  SB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::size_t bytes = smem_bytes(T, M, R == 0);
  SB_CUDA_CHECK(cudaFuncSetAttribute(tiles_kernel<T, R>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(bytes)));
  SB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tiles_kernel<T, R>, kThreads, bytes));
  if (per_sm < 1) throw Unsupported("iir2d: the tile kernel does not fit on an SM at M = " + std::to_string(M));
  return sms * per_sm;
}

}  // namespace

// Calls f(std::integral_constant<int, R>) with R = reg_terms_for(M).
template <typename F>
decltype(auto) with_reg_terms(int M, F&& f) {
  switch (reg_terms_for(M)) {
    case 8: return f(std::integral_constant<int, 8>{});
    case 16: return f(std::integral_constant<int, 16>{});
    case 24: return f(std::integral_constant<int, 24>{});
    case 32: return f(std::integral_constant<int, 32>{});
    default: return f(std::integral_constant<int, 0>{});
  }
}

int prepare_tiles(int T, int M, std::int64_t tiles) {
  const int grid = with_reg_terms(M, [&](auto r) { return T == 16 ? grid_of<16, r()>(M) : grid_of<32, r()>(M); });
  // Every resident block takes tickets; more blocks than tiles would only exit at once.
  return static_cast<int>(std::min<std::int64_t>(grid, tiles));
}

void launch_tiles(const Image& im, int T, int grid, const std::int64_t* order, unsigned long long* ticket,
                  int* row_progress, const Watch& w, cudaStream_t stream) {
  const TileArgs a{im, order, ticket, row_progress, w};
  const std::size_t bytes = smem_bytes(T, im.M, reg_terms_for(im.M) == 0);
  with_reg_terms(im.M, [&](auto r) {
    if (T == 16) tiles_kernel<16, r()><<<grid, kThreads, bytes, stream>>>(a);
    else tiles_kernel<32, r()><<<grid, kThreads, bytes, stream>>>(a);
  });
}

}  // namespace splinebench::iir2d::kern
