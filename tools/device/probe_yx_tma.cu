// Load-throughput probe of the one-pass (stream_yx) footprint pattern with TMA tensor
// copies: per tile, a 32 x 32 (y, x) patch of an N^3 float field streams z over its
// range (+16 planes on both sides); every plane's 64 x 64 footprint (16-sample halos in
// x and y, zero-filled outside the field) arrives by one cp.async.bulk.tensor.3d per
// batch of B planes into S stages. No filtering. With W = 1 the block stores each
// plane's 32 x 32 core to an output buffer (the write stream of the real pass).
// Build: nvcc -O3 -arch=sm_90 -std=c++20 probe_yx_tma.cu -lcuda; run: probe_yx_tma [sweep]
#include <cuda.h>
#include <cuda/ptx>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "probe_common.cuh"

constexpr int kHalo = 16, kPatch = 32, kFoot = kPatch + 2 * kHalo;  // 64
constexpr int kPlaneFloats = kFoot * kFoot;                          // 4096 floats, 16 KB

struct Args {
  float* dst;
  int n, batch, stages, write, ranges, ntiles, threads, box_x, map_index;
  unsigned* ticket;
  // The same map at several indices: a map read from an array member of the argument
  // (as gpu_flex's PassDesc holds it) against one that is the argument itself.
  CUtensorMap maps[3];
};

extern __shared__ __align__(1024) unsigned char smem_raw[];

__global__ void probe(const __grid_constant__ CUtensorMap map, const __grid_constant__ Args a) {
  float* smem = reinterpret_cast<float*>(smem_raw);
  __shared__ std::uint64_t bars[8];
  __shared__ int tile_s;
  const int n = a.n, B = a.batch, S = a.stages;
  const int patches = n / kPatch, range = n / a.ranges;
  const int count = range + 2 * kHalo, nbatch = (count + B - 1) / B;
  init_stage_barriers(bars, S);
  unsigned parity = 0;
  float sink = 0.f;
  for (;;) {
    const int tile = take_ticket(a.ticket, &tile_s);
    if (tile >= a.ntiles) break;
    // Range first, then patches in x, then y: tiles taken together are neighbours.
    const int r = tile % a.ranges, p = tile / a.ranges;
    const int px = p % patches, py = p / patches;
    const int x0 = px * kPatch, y0 = py * kPatch, z0 = r * range - kHalo;
    auto request = [&](int k) {
      if (threadIdx.x != 0) return;
      std::uint64_t* bar = bars + k % S;
      (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                                 bar, static_cast<unsigned>(B * a.box_x * kFoot * 4));
      const int c[3] = {x0 - kHalo, y0 - kHalo, z0 + k * B};
      const CUtensorMap* m = a.map_index < 0 ? &map : &a.maps[a.map_index];
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global,
                                      smem + (k % S) * B * a.box_x * kFoot, m, c, bar);
    };
    for (int k = 0; k < S - 1 && k < nbatch; ++k) request(k);
    for (int k = 0; k < nbatch; ++k) {
      if (k + S - 1 < nbatch) request(k + S - 1);
      const int st = k % S;
      while (!cuda::ptx::mbarrier_try_wait_parity(bars + st, (parity >> st) & 1u)) {
      }
      parity ^= 1u << st;
      const float* buf = smem + st * B * a.box_x * kFoot;
      // Core of each plane: 32 rows of 8 float4 = 256 float4 per plane.
      for (int i = threadIdx.x; i < B * 256; i += a.threads) {
        const int q = i / 256, j = i % 256, y = j / 8, x4 = j % 8;
        const float4 v = *reinterpret_cast<const float4*>(buf + (q * kFoot + y + kHalo) * a.box_x + kHalo + 4 * x4);
        sink += v.x;
        const int z = z0 + k * B + q;
        if (a.write && z >= r * range + 0 && z < (r + 1) * range && z >= 0 && z < n)
          *reinterpret_cast<float4*>(a.dst + (static_cast<std::int64_t>(z) * n + y0 + y) * n + x0 + 4 * x4) = v;
      }
      __syncthreads();  // stage st is free again
    }
  }
  if (sink == -1.2345e30f) a.dst[0] = sink;
}

int main(int argc, char** argv) {
  // "sweep": batches, stages, blocks per SM and ranges with a 64-wide box; otherwise the
  // box width (64 / 68) and where the map lives.
  const bool sweep = argc > 1 && std::string(argv[1]) == "sweep";
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CleanTimer timer;
  unsigned* ticket;
  CK(cudaMalloc(&ticket, 4));
  CK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 220 * 1024));
  for (int n : {256, 512}) {
    ProbeField field(n);
    const std::size_t vals = field.values;
    float *src = field.src, *dst = field.dst;
    CUtensorMap map;
    const cuuint64_t dims[3] = {static_cast<cuuint64_t>(n), static_cast<cuuint64_t>(n), static_cast<cuuint64_t>(n)};
    const cuuint64_t strides[2] = {static_cast<cuuint64_t>(n) * 4, static_cast<cuuint64_t>(n) * n * 4};
    const cuuint32_t estr[3] = {1, 1, 1};
    auto timed = [&](auto&& op) { return timer.median_ms(op); };
    const float copy = timed([&] { CK(cudaMemcpyAsync(dst, src, vals * 4, cudaMemcpyDeviceToDevice)); });
    std::printf("n=%d copy %.4f ms (%.0f GB/s read+write)\n", n, copy, 2.0 * vals * 4 / copy / 1e6);
    struct Config {
      int B, S, blocks_per_sm, ranges, box_x, map_index;
    };
    std::vector<Config> configs;
    if (sweep) {
      for (int B : {1, 2, 4})
        for (int S : {2, 3, 4, 6})
          for (int blocks_per_sm : {1, 2})
            for (int ranges : {1, 2}) configs.push_back({B, S, blocks_per_sm, ranges, 64, -1});
    } else {
      configs = {{2, 2, 1, 1, 64, -1}, {1, 4, 1, 1, 64, -1}, {1, 4, 1, 1, 68, -1}, {1, 4, 1, 1, 64, 1},
                 {1, 4, 1, 1, 68, 1},  {1, 8, 1, 1, 68, 1},  {4, 2, 1, 1, 68, 1}};
    }
    for (const Config& k : configs)
      for (int W : {0, 1}) {
        const int B = k.B, S = k.S, ranges = k.ranges;
        const std::size_t sm = static_cast<std::size_t>(S) * B * k.box_x * kFoot * 4;
        if (sm * k.blocks_per_sm > 220 * 1024) continue;
        const cuuint32_t box[3] = {static_cast<cuuint32_t>(k.box_x), kFoot, static_cast<cuuint32_t>(B)};
        if (cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, src, dims, strides, box, estr,
                                   CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                   CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
          std::printf("cuTensorMapEncodeTiled failed (B=%d)\n", B);
          return 1;
        }
        const int threads = k.blocks_per_sm == 1 ? 512 : 256;
        Args a{dst, n, B, S, W, ranges, (n / kPatch) * (n / kPatch) * ranges, threads, k.box_x, k.map_index, ticket, {}};
        for (CUtensorMap& m : a.maps) m = map;
        const int grid = std::min(a.ntiles, sms * k.blocks_per_sm);
        const float ms = timed([&] {
          CK(cudaMemsetAsync(ticket, 0, 4));
          probe<<<grid, threads, sm>>>(map, a);
          CK(cudaGetLastError());
        });
        const double planes = static_cast<double>(a.ntiles) * (n / ranges + 2 * kHalo);
        const double foot = planes * kPlaneFloats * 4;
        if (sweep)
          std::printf("n=%d B=%d S=%d blocks/SM=%d ranges=%d W=%d: %.4f ms  footprint %.0f GB/s  x%.2f copy\n", n, B, S,
                      k.blocks_per_sm, ranges, W, ms, foot / ms / 1e6, ms / copy);
        else
          std::printf("n=%d B=%d S=%d box_x=%d map=%s W=%d: %.4f ms  footprint %.0f GB/s  x%.2f copy\n", n, B, S,
                      k.box_x, k.map_index < 0 ? "argument" : "array member", W, ms, foot / ms / 1e6, ms / copy);
      }
    const std::size_t bad = field.dst_differences();
    std::printf("n=%d after the W=1 runs: %zu values differ from the source\n", n, bad);
  }
  return 0;
}
