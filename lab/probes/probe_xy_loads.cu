// Load-throughput probe of the stream_x footprint pattern (no filtering): per tile, G
// slices of N x N floats are streamed along y in sub-blocks of 16 rows (+16 warm-up and
// look-ahead rows), S shared-memory stages, one 512-thread block per SM, tiles from a
// ticket counter. Three ways to fill a stage:
//   lane : every thread cp.async's 16-byte chunks (the current tile's mechanism)
//   seg  : warp 0 issues one cp.async.bulk per 128-byte segment (keeps a padded layout)
//   row  : warp 0 issues one cp.async.bulk per row
// With W = 1 each thread also stores its chunks of the stage to an output buffer, so
// the write stream of the real pass is present. Build: nvcc -O3 -arch=sm_90 -std=c++20
#include <cuda/ptx>
#include <cuda_pipeline_primitives.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_common.cuh"

constexpr int kThreads = 512, kP = 16, kHalo = 16;
enum Method { lane = 0, seg = 1, row = 2 };

struct Args {
  const float* src;
  float* dst;
  int n, group, stages, method, write, ntiles;
  unsigned* ticket;
};

__device__ __forceinline__ int mirror(int y, int n) { return y < 0 ? -y : (y >= n ? 2 * n - 2 - y : y); }

extern __shared__ float4 smem4[];

__global__ void __launch_bounds__(kThreads, 1) probe(Args a) {
  float* smem = reinterpret_cast<float*>(smem4);
  __shared__ std::uint64_t bars[8];
  __shared__ int tile_s;
  const int n = a.n, G = a.group, S = a.stages;
  const int pitch = n + n / 32 * 4;          // padded row: 4 floats after every 32
  const int rows = kP * G;                   // footprint rows per sub-block
  const int stage_floats = rows * pitch;
  const int count = n + 2 * kHalo, nsub = (count + kP - 1) / kP;
  const std::int64_t slice = static_cast<std::int64_t>(n) * n;
  init_stage_barriers(bars, S);
  unsigned phase_bits = 0;  // parity per stage
  float sink = 0.f;
  for (;;) {
    const int tile = take_ticket(a.ticket, &tile_s);
    if (tile >= a.ntiles) break;
    const float* base = a.src + static_cast<std::int64_t>(tile) * G * slice;
    float* obase = a.dst + static_cast<std::int64_t>(tile) * G * slice;
    auto request = [&](int b) {
      float* buf = smem + (b % S) * stage_floats;
      const int t0 = b * kP - kHalo;
      if (a.method == lane) {
        const int chunks = n / 4;  // per row
        for (int i = threadIdx.x; i < rows * chunks; i += kThreads) {
          const int r = i / chunks, c = i - r * chunks;
          const int s = r / kP, k = r - s * kP;
          const int y = mirror(t0 + k, n);
          const int x = 4 * c;
          __pipeline_memcpy_async(buf + r * pitch + x + x / 32 * 4, base + s * slice + static_cast<std::int64_t>(y) * n + x,
                                  16);
        }
        __pipeline_commit();
      } else if (threadIdx.x < 32) {
        std::uint64_t* bar = bars + b % S;
        const unsigned bytes = rows * n * 4;
        if (threadIdx.x == 0)
          (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                                     cuda::ptx::space_shared, bar, bytes);
        __syncwarp();
        if (a.method == seg) {
          const int segs = n / 32;
          for (int i = threadIdx.x; i < rows * segs; i += 32) {
            const int r = i / segs, c = i - r * segs;
            const int s = r / kP, k = r - s * kP;
            const int y = mirror(t0 + k, n);
            cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, buf + r * pitch + c * 36,
                                     base + s * slice + static_cast<std::int64_t>(y) * n + 32 * c, 128u, bar);
          }
        } else {
          for (int r = threadIdx.x; r < rows; r += 32) {
            const int s = r / kP, k = r - s * kP;
            const int y = mirror(t0 + k, n);
            cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, buf + r * pitch,
                                     base + s * slice + static_cast<std::int64_t>(y) * n, n * 4u, bar);
          }
        }
      }
    };
    for (int b = 0; b < S - 1 && b < nsub; ++b) request(b);
    for (int b = 0; b < nsub; ++b) {
      if (b + S - 1 < nsub) request(b + S - 1);
      else if (a.method == lane) __pipeline_commit();  // keeps the group count uniform
      if (a.method == lane) {
        __pipeline_wait_prior(S - 1);
      } else {
        const int st = b % S;
        while (!cuda::ptx::mbarrier_try_wait_parity(bars + st, (phase_bits >> st) & 1u)) {
        }
        phase_bits ^= 1u << st;
      }
      __syncthreads();
      const float* buf = smem + (b % S) * stage_floats;
      const int out_row0 = b * kP - kHalo;  // rows of the output written from this stage
      const int chunks = n / 4;
      for (int i = threadIdx.x; i < rows * chunks; i += kThreads) {
        const int r = i / chunks, c = i - r * chunks;
        const int s = r / kP, k = r - s * kP;
        // lane and seg fill the padded layout (4 floats after every 32); row copies whole rows.
        const int at = r * pitch + 4 * c + (a.method == row ? 0 : (4 * c) / 32 * 4);
        const float4 v = *reinterpret_cast<const float4*>(buf + at);
        sink += v.x;
        const int y = out_row0 + k;
        if (a.write && y >= 0 && y < n)
          *reinterpret_cast<float4*>(obase + s * slice + static_cast<std::int64_t>(y) * n + 4 * c) = v;
      }
      __syncthreads();
    }
  }
  if (sink == -1.2345e30f) a.dst[0] = sink;
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CleanTimer timer;
  unsigned* ticket;
  CK(cudaMalloc(&ticket, 4));
  CK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  const char* names[] = {"lane", "seg", "row"};
  for (int n : {256, 512}) {
    ProbeField field(n);
    const std::size_t vals = field.values;
    float *src = field.src, *dst = field.dst;
    auto timed = [&](auto&& op) { return timer.median_ms(op); };
    const float copy = timed([&] { CK(cudaMemcpyAsync(dst, src, vals * 4, cudaMemcpyDeviceToDevice)); });
    std::printf("n=%d copy %.4f ms (%.0f GB/s read+write)\n", n, copy, 2.0 * vals * 4 / copy / 1e6);
    for (int G : {1, 2})
      for (int method : {0, 1, 2})
        for (int S : {2, 3, 4})
          for (int W : {0, 1}) {
            const int pitch = n + n / 32 * 4;
            const std::size_t sm = static_cast<std::size_t>(S) * kP * G * pitch * 4;
            if (sm > 200 * 1024) continue;
            Args a{src, dst, n, G, S, method, W, n / G, ticket};
            const int grid = std::min(a.ntiles, sms);
            const float ms = timed([&] {
              CK(cudaMemsetAsync(ticket, 0, 4));
              probe<<<grid, kThreads, sm>>>(a);
              CK(cudaGetLastError());
            });
            const double bytes = vals * 4.0 * (n + 2.0 * kHalo) / n * 1.0;  // footprint reads
            std::printf("n=%d G=%d %-4s S=%d W=%d: %.4f ms  reads %.0f GB/s%s  x%.2f copy\n", n, G, names[method], S, W,
                        ms, bytes / ms / 1e6, W ? " (+writes)" : "", ms / copy);
          }
    // Correctness of the copy path (W=1 writes every value once): spot check.
    const std::size_t bad = field.dst_differences();
    std::printf("n=%d last W=1 run: %zu values differ from the source\n", n, bad);
  }
  return 0;
}
