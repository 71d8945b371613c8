// Load-throughput probe of the one-pass (stream_yx) footprint pattern with TMA tensor
// copies: per tile, a 32 x 32 (y, x) patch of an N^3 float field streams z over its
// range (+16 planes on both sides); every plane's 64 x 64 footprint (16-sample halos in
// x and y, zero-filled outside the field) arrives by one cp.async.bulk.tensor.3d per
// batch of B planes into S stages. No filtering. With W = 1 the block stores each
// plane's 32 x 32 core to an output buffer (the write stream of the real pass).
// "tile" mode steps from that pattern towards the one gpu_flex's register stream_yx tile
// issues (flex_tile.cuh, yx_tma_request), one difference at a time: two 32 x 64 boxes per
// plane with 128-byte swizzling, the map in global memory, and the request of batch
// k + S - 1 only after batch k has landed (S - 1 batches in flight instead of S).
// Build: nvcc -O3 -arch=sm_90 -std=c++20 probe_yx_tma.cu -lcuda; run: probe_yx_tma [sweep|tile]
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
  // Tile-like variants: per-plane pairs of swizzled 32-wide boxes (box_x = 32), the map
  // at `global_map` (device memory) instead of the argument, late requests.
  int swizzled, late;
  const CUtensorMap* global_map;
  unsigned* ticket;
  // The same map at several indices: a map read from an array member of the argument
  // (as gpu_flex's PassDesc holds it) against one that is the argument itself.
  CUtensorMap maps[3];
};

extern __shared__ __align__(1024) unsigned char smem_raw[];

__global__ void probe(const __grid_constant__ CUtensorMap map, const __grid_constant__ Args a) {
  // Swizzled tensor copies need 1024-byte aligned destinations; the static variables
  // below can push the dynamic part off that boundary (the host adds the slack).
  float* smem = reinterpret_cast<float*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023u) & ~std::uintptr_t{1023u});
  __shared__ std::uint64_t bars[8];
  __shared__ int tile_s;
  const int n = a.n, B = a.batch, S = a.stages;
  const int patches = n / kPatch, range = n / a.ranges;
  const int count = range + 2 * kHalo, nbatch = (count + B - 1) / B;
  init_stage_barriers(bars, S);
  if (a.global_map != nullptr && threadIdx.x == 0) {
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(a.global_map) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(a.global_map) : "memory");
  }
  const int plane_floats = a.swizzled ? kPlaneFloats : a.box_x * kFoot;
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
                                                 bar, static_cast<unsigned>(B * plane_floats * 4));
      const CUtensorMap* m = a.global_map ? a.global_map : a.map_index < 0 ? &map : &a.maps[a.map_index];
      float* dst = smem + (k % S) * B * plane_floats;
      if (!a.swizzled) {
        const int c[3] = {x0 - kHalo, y0 - kHalo, z0 + k * B};
        cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, m, c, bar);
        return;
      }
      for (int j = 0; j < B; ++j)
        for (int h = 0; h < 2; ++h) {
          const int c[3] = {x0 - kHalo + 32 * h, y0 - kHalo, z0 + k * B + j};
          cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global,
                                          dst + j * kPlaneFloats + h * 32 * kFoot, m, c, bar);
        }
    };
    for (int k = 0; k < S - 1 && k < nbatch; ++k) request(k);
    for (int k = 0; k < nbatch; ++k) {
      if (!a.late && k + S - 1 < nbatch) request(k + S - 1);
      const int st = k % S;
      while (!cuda::ptx::mbarrier_try_wait_parity(bars + st, (parity >> st) & 1u)) {
      }
      parity ^= 1u << st;
      if (a.late) {
        // The tile's order: every thread past the wait, then the next request into the
        // buffer that batch k - 1 left.
        __syncthreads();
        if (k + S - 1 < nbatch) request(k + S - 1);
      }
      const float* buf = smem + st * B * plane_floats;
      // Core of each plane: 32 rows of 8 float4 = 256 float4 per plane.
      for (int i = threadIdx.x; i < B * 256; i += a.threads) {
        const int q = i / 256, j = i % 256, y = j / 8, x4 = j % 8;
        // Swizzled: column kHalo + 4 x4 is in half h = (16 + 4 x4) / 32, chunk ((4 + x4) & 7) ^ (row & 7).
        const int row = y + kHalo, col = kHalo + 4 * x4;
        const int off = a.swizzled ? (col >> 5) * (kFoot * 32) + row * 32 + ((((col >> 2) & 7) ^ (row & 7)) << 2)
                                   : row * a.box_x + col;
        const float4 v = *reinterpret_cast<const float4*>(buf + q * plane_floats + off);
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
  const bool tile_mode = argc > 1 && std::string(argv[1]) == "tile";
  CUtensorMap* global_map = nullptr;
  CK(cudaMalloc(&global_map, sizeof(CUtensorMap)));
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
    auto timed = [&](auto&& op) { return timer.median_ms(op); };
    const float copy = timed([&] { CK(cudaMemcpyAsync(dst, src, vals * 4, cudaMemcpyDeviceToDevice)); });
    std::printf("n=%d copy %.4f ms (%.0f GB/s read+write)\n", n, copy, 2.0 * vals * 4 / copy / 1e6);
    struct Config {
      int B, S, blocks_per_sm, ranges, box_x, map_index;
      int swizzled = 0, global = 0, late = 0;
    };
    std::vector<Config> configs;
    if (tile_mode) {
      // The register stream_yx tile's plan: batches of 4 planes, 2 buffers, one range at
      // 512^3 and two at 256^3; then one difference at a time.
      const int ranges = n == 256 ? 2 : 1;
      configs = {{4, 2, 1, ranges, 64, -1}, {4, 2, 1, ranges, 32, -1, 1}, {4, 2, 1, ranges, 32, -1, 1, 1},
                 {4, 2, 1, ranges, 32, -1, 1, 1, 1}, {4, 2, 1, ranges, 64, -1, 0, 0, 1}};
    } else if (sweep) {
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
        const std::size_t plane_bytes = (k.swizzled ? kPlaneFloats : k.box_x * kFoot) * 4;
        const std::size_t sm = static_cast<std::size_t>(S) * B * plane_bytes + 1024;
        if (sm * k.blocks_per_sm > 220 * 1024) continue;
        const cuuint32_t box[3] = {static_cast<cuuint32_t>(k.box_x), kFoot,
                                   static_cast<cuuint32_t>(k.swizzled ? 1 : B)};
        if (!encode_cube_map(&map, src, n, box, k.swizzled ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE)) {
          std::printf("cuTensorMapEncodeTiled failed (B=%d)\n", B);
          return 1;
        }
        const int threads = k.blocks_per_sm == 1 ? 512 : 256;
        Args a{dst,    n,      B,       S, W, ranges, (n / kPatch) * (n / kPatch) * ranges, threads, k.box_x,
               k.map_index, k.swizzled, k.late, k.global ? global_map : nullptr, ticket, {}};
        for (CUtensorMap& m : a.maps) m = map;
        if (k.global) CK(cudaMemcpy(global_map, &map, sizeof map, cudaMemcpyHostToDevice));
        const int grid = std::min(a.ntiles, sms * k.blocks_per_sm);
        const float ms = timed([&] {
          CK(cudaMemsetAsync(ticket, 0, 4));
          probe<<<grid, threads, sm>>>(map, a);
          CK(cudaGetLastError());
        });
        const double planes = static_cast<double>(a.ntiles) * (n / ranges + 2 * kHalo);
        const double foot = planes * kPlaneFloats * 4;
        if (tile_mode)
          std::printf("n=%d B=%d S=%d ranges=%d %s map=%s requests=%s W=%d: %.4f ms  footprint %.0f GB/s  x%.2f copy\n",
                      n, B, S, ranges, k.swizzled ? "2 swizzled 32x64 boxes/plane" : "one 64x64xB box",
                      k.global ? "global" : "argument", k.late ? "late" : "early", W, ms, foot / ms / 1e6, ms / copy);
        else if (sweep)
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
