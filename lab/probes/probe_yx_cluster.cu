// Load-throughput probe of the one-pass (stream_yx) footprint pattern when thread-block
// clusters share their halos through TMA multicast. No filtering: it measures the memory
// floor a one-pass tile of this shape could reach, as probe_yx_tma.cu does for lone blocks.
//
// Pattern: a cluster of CY x CX blocks owns a (32 CY) x (32 CX) (y, x) patch of an N^3
// float field and streams z over its range (+16 planes on both sides). Each block owns a
// 32 x 32 output patch and needs the 64 x 64 footprint around it (16-sample halos), as
// gpu_flex's register stream_yx tile does. The cluster's footprint is a grid of
// (CY + 1) x (CX + 1) boxes of 32 x 32; every box is read from L2 once and multicast to
// the 1, 2 or 4 blocks whose footprints contain it. Footprint traffic through L2 per
// output value: (CY + 1)(CX + 1) / (CY CX), against 4 for lone blocks (CY = CX = 1 here,
// which issues the same four boxes without multicast: the baseline, same code).
//
// Layout: multicast writes the same shared-memory offset in every destination block, so
// a box cannot go to "the footprint's top-left quarter" of one block and "its top-right"
// of another. Box (i, j) goes to slot (i & 1, j & 1) in every block: the two box rows a
// block needs (cy, cy + 1) differ in parity, as do its two box columns, so each block
// holds its footprint as the four quarters of a 64 x 64 torus shifted by (32 cy, 32 cx).
//
// Buffers: S stages of B planes; batch k + S - 1 is requested once every block of the
// cluster has finished batch k - 1 (a block writes into its peers' stages). Lock-step:
// a cluster barrier after every batch. Decoupled: after reading a stage, each block
// arrives on that stage's `empty` barrier in every block of the cluster, and a block
// waits only on its own `empty` before requesting into the stage again, so blocks may
// drift apart by the stages in flight. Tiles come from a ticket counter, one ticket per
// cluster (rank 0 takes it, the others read it through distributed shared memory). With
// W = 1 each block writes its 32 x 32 core of every plane of its range: the write stream
// of the real pass.
// After every W = 1 configuration the output is compared with the source, so a wrong
// mask, slot or offset shows as differing values.
//
// Build: nvcc -O3 -arch=sm_90a -std=c++20 probe_yx_cluster.cu -lcuda (multicast tensor
// copies need sm_90a); run: probe_yx_cluster
#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda/ptx>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_common.cuh"

namespace cg = cooperative_groups;

constexpr int kHalo = 16, kPatch = 32, kBox = 32;
constexpr int kBoxFloats = kBox * kBox;  // 4 KB
constexpr int kThreads = 512;

struct Args {
  float* dst;
  int n, batch, stages, write, ranges, ntiles, cy_blocks, cx_blocks, decoupled;
  unsigned* ticket;
};

extern __shared__ __align__(1024) unsigned char smem_raw[];

__global__ void __launch_bounds__(kThreads) probe(const __grid_constant__ CUtensorMap map, const __grid_constant__ Args a) {
  float* smem = reinterpret_cast<float*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023u) & ~std::uintptr_t{1023u});
  // full: the stage's copies have landed here. empty (decoupled mode): every block of
  // the cluster has finished reading the stage (one arrival from each).
  __shared__ std::uint64_t full[8], empty[8];
  __shared__ int tile_s;
  cg::cluster_group cluster = cg::this_cluster();
  const int CY = a.cy_blocks, CX = a.cx_blocks, csize = CY * CX, rank = static_cast<int>(cluster.block_rank());
  const int cy = rank / CX, cx = rank % CX;
  const int n = a.n, B = a.batch, S = a.stages;
  const int px_count = n / (kPatch * CX), range = n / a.ranges;
  const int count = range + 2 * kHalo, nbatch = (count + B - 1) / B;
  const int stage_floats = 4 * B * kBoxFloats;  // four slots of B planes
  if (threadIdx.x == 0) {
    for (int k = 0; k < S; ++k) {
      cuda::ptx::mbarrier_init(full + k, 1u);
      cuda::ptx::mbarrier_init(empty + k, static_cast<unsigned>(csize));
    }
    // Peers' tensor copies complete on these barriers: make the initialisation visible
    // to the cluster before any block of it can request.
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  cluster.sync();

  // The boxes this block requests: (i, j) with issuer (min(i, CY - 1), min(j, CX - 1)),
  // each multicast to the blocks (cy', cx') with cy' in {i - 1, i}, cx' in {j - 1, j}.
  int my_i[4], my_j[4], nmine = 0;
  std::uint16_t my_mask[4];
  for (int i = 0; i <= CY; ++i)
    for (int j = 0; j <= CX; ++j) {
      if (min(i, CY - 1) != cy || min(j, CX - 1) != cx) continue;
      std::uint16_t mask = 0;
      for (int dy = i - 1; dy <= i; ++dy)
        for (int dx = j - 1; dx <= j; ++dx)
          if (dy >= 0 && dy < CY && dx >= 0 && dx < CX) mask |= static_cast<std::uint16_t>(1u << (dy * CX + dx));
      my_i[nmine] = i, my_j[nmine] = j, my_mask[nmine] = mask, ++nmine;
    }

  // Batches are counted across tiles (`done`): batch g uses stage g % S for the
  // (g / S)-th time, and the barriers' phases follow that count.
  int done = 0;
  float sink = 0.f;
  for (;;) {
    if (rank == 0 && threadIdx.x == 0) tile_s = static_cast<int>(atomicAdd(a.ticket, 1u));
    cluster.sync();
    const int tile = *cluster.map_shared_rank(&tile_s, 0);
    cluster.sync();  // rank 0 may take the next ticket only after every block read this one
    if (tile >= a.ntiles) break;
    // Range first, then patches in x, then y: tiles taken together are neighbours.
    const int r = tile % a.ranges, p = tile / a.ranges;
    const int X0 = (p % px_count) * kPatch * CX, Y0 = (p / px_count) * kPatch * CY, z0 = r * range - kHalo;
    // Batch k of the tile (global batch g = done + k).
    auto request = [&](int k) {
      if (threadIdx.x != 0) return;
      const int g = done + k, st = g % S, use = g / S;
      // Every block receives four boxes of B planes per batch, whoever requests them.
      (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                                 cuda::ptx::space_shared, full + st,
                                                 static_cast<unsigned>(stage_floats * 4));
      // Decoupled: the stage is free in every block once all of them arrived on this
      // block's `empty` for its previous use (with cluster barriers it is free already).
      if (a.decoupled && use > 0)
        while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster, empty + st,
                                                    static_cast<unsigned>((use - 1) & 1))) {
        }
      for (int m = 0; m < nmine; ++m) {
        const int i = my_i[m], j = my_j[m];
        float* dst = smem + st * stage_floats + (((i & 1) << 1) | (j & 1)) * B * kBoxFloats;
        const int c[3] = {X0 - kHalo + kBox * j, Y0 - kHalo + kBox * i, z0 + k * B};
        if (CY * CX == 1)
          cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, &map, c, full + st);
        else
          cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, &map, c, full + st,
                                          my_mask[m]);
      }
    };
    for (int k = 0; k < S - 1 && k < nbatch; ++k) request(k);
    for (int k = 0; k < nbatch; ++k) {
      // Stage (done + k - 1) % S is free, or will be once every block has left it.
      if (k + S - 1 < nbatch) request(k + S - 1);
      const int g = done + k, st = g % S;
      while (!cuda::ptx::mbarrier_try_wait_parity(full + st, static_cast<unsigned>((g / S) & 1))) {
      }
      const float* buf = smem + st * stage_floats;
      // Core of each plane: footprint rows and columns [16, 48), 32 rows of 8 float4.
      for (int e = threadIdx.x; e < B * 256; e += kThreads) {
        const int q = e / 256, y = (e % 256) / 8, x4 = e % 8;
        const int rr = y + kHalo, cc = kHalo + 4 * x4;
        const int slot = (((cy + (rr >> 5)) & 1) << 1) | ((cx + (cc >> 5)) & 1);
        const float4 v =
            *reinterpret_cast<const float4*>(buf + (slot * B + q) * kBoxFloats + (rr & 31) * kBox + (cc & 31));
        sink += v.x;
        const int z = z0 + k * B + q;
        if (a.write && z >= r * range && z < (r + 1) * range && z >= 0 && z < n)
          *reinterpret_cast<float4*>(a.dst + (static_cast<std::int64_t>(z) * n + Y0 + kPatch * cy + y) * n + X0 +
                                     kPatch * cx + 4 * x4) = v;
      }
      if (a.decoupled) {
        __syncthreads();  // every thread of this block has left the stage
        if (threadIdx.x < csize)
          cuda::ptx::mbarrier_arrive(cuda::ptx::sem_release, cuda::ptx::scope_cluster, cuda::ptx::space_cluster,
                                     cluster.map_shared_rank(empty + st, static_cast<int>(threadIdx.x)));
      } else {
        cluster.sync();  // stage st is free in every block
      }
    }
    done += nbatch;
  }
  if (sink == -1.2345e30f) a.dst[0] = sink;
}

int main() {
  CleanTimer timer;
  unsigned* ticket;
  CK(cudaMalloc(&ticket, 4));
  CK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 220 * 1024));
  CK(cudaFuncSetAttribute(probe, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  for (int n : {256, 512}) {
    ProbeField field(n);
    const std::size_t vals = field.values;
    const float copy = timer.median_ms([&] {
      CK(cudaMemcpyAsync(field.dst, field.src, vals * 4, cudaMemcpyDeviceToDevice));
    });
    std::printf("n=%d copy %.4f ms (%.0f GB/s read+write)\n", n, copy, 2.0 * vals * 4 / copy / 1e6);
    struct Config {
      int CY, CX, B, S, ranges, decoupled;
    };
    const int ranges = n == 256 ? 2 : 1;  // as the register stream_yx tile's plans
    // Lone blocks and clusters, lock-step (a cluster barrier per batch) and decoupled
    // (per-stage `empty` barriers), with 1 and 2 batches in flight beside the one read.
    const std::vector<Config> configs = {
        {1, 1, 4, 2, ranges, 0}, {1, 1, 4, 2, ranges, 1}, {1, 1, 4, 3, ranges, 1}, {2, 2, 4, 2, ranges, 0},
        {2, 2, 4, 2, ranges, 1}, {2, 2, 4, 3, ranges, 1}, {2, 2, 2, 4, ranges, 1}, {2, 4, 4, 3, ranges, 1},
        {4, 4, 4, 3, ranges, 1}, {2, 2, 4, 3, 2 * ranges, 1}};
    for (const Config& k : configs) {
      const int B = k.B, S = k.S, csize = k.CY * k.CX;
      CUtensorMap map;
      if (!encode_cube_map(&map, field.src, n, {kBox, kBox, static_cast<cuuint32_t>(B)}, CU_TENSOR_MAP_SWIZZLE_NONE)) {
        std::printf("cuTensorMapEncodeTiled failed (B=%d)\n", B);
        return 1;
      }
      const std::size_t sm = static_cast<std::size_t>(S) * 4 * B * kBoxFloats * 4 + 1024;
      const int ntiles = (n / (kPatch * k.CY)) * (n / (kPatch * k.CX)) * k.ranges;
      cudaLaunchConfig_t cfg{};
      cudaLaunchAttribute attr{};
      attr.id = cudaLaunchAttributeClusterDimension;
      attr.val.clusterDim.x = static_cast<unsigned>(csize), attr.val.clusterDim.y = 1, attr.val.clusterDim.z = 1;
      cfg.blockDim = dim3(kThreads), cfg.dynamicSmemBytes = sm, cfg.attrs = &attr, cfg.numAttrs = 1;
      cfg.gridDim = dim3(static_cast<unsigned>(csize));
      int resident = 0;  // clusters that fit at once: the grid is that many persistent clusters
      if (cudaOccupancyMaxActiveClusters(&resident, probe, &cfg) != cudaSuccess || resident == 0) {
        std::printf("n=%d cluster %dx%d: does not fit (%s)\n", n, k.CY, k.CX, cudaGetErrorString(cudaGetLastError()));
        continue;
      }
      cfg.gridDim = dim3(static_cast<unsigned>(std::min(resident, ntiles) * csize));
      for (int W : {0, 1}) {
        const Args a{field.dst, n, B, S, W, k.ranges, ntiles, k.CY, k.CX, k.decoupled, ticket};
        if (W) CK(cudaMemset(field.dst, 0xff, vals * 4));  // NaN: unwritten values differ
        const float ms = timer.median_ms([&] {
          CK(cudaMemsetAsync(ticket, 0, 4));
          CK(cudaLaunchKernelEx(&cfg, probe, map, a));
        });
        CK(cudaDeviceSynchronize());
        const double planes = static_cast<double>(ntiles) * (n / k.ranges + 2 * kHalo);
        const double l2_bytes = planes * (k.CY + 1) * (k.CX + 1) * kBoxFloats * 4;
        std::printf("n=%d cluster %dx%d %s (%d resident) B=%d S=%d ranges=%d W=%d: %.4f ms  x%.2f copy  "
                    "L2 footprint %.2f per value, %.0f GB/s",
                    n, k.CY, k.CX, k.decoupled ? "decoupled" : "lock-step", resident, B, S, k.ranges, W, ms, ms / copy,
                    static_cast<double>((k.CY + 1) * (k.CX + 1)) / (k.CY * k.CX), l2_bytes / ms / 1e6);
        if (W) std::printf("  differing values %zu", field.dst_differences());
        std::printf("\n");
      }
    }
  }
  return 0;
}
