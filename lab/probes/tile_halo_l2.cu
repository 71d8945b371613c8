// Does a one-pass 3-D prefilter's halo come from L2? (lab/NOTES.md, "The 3-D prefilter in
// one pass".) No filtering: each block takes a TX x TY x TZ tile of the N^3 field (tiles in
// launch order, x fastest), reads the tile plus H more samples after it on every axis (the
// look-ahead a tile needs when its causal state comes from its predecessors' carries; H = 0
// is the copy's own traffic through the same code, H = 32 the warm-up and look-ahead both
// read), with 16-byte loads, and writes the tile. What is timed is the read pattern's cost
// against a copy: ((T + H) / T)^3 values read per value, of which the part past the tile is
// the neighbours' (their own reads, shortly before or after), so the ratio to a copy says
// how much of the halo L2 serves.
//   nvcc -O3 -arch=sm_90 -std=c++20 lab/probes/tile_halo_l2.cu -o /tmp/tile_halo_l2
//   /tmp/tile_halo_l2 [N]   (default 512)
#include <cstdio>
#include <cstdlib>

#include "probe_common.cuh"

namespace {

// The block streams the region plane by plane along z; a thread holds no state but the
// halo sum (kept so the halo loads are not removed).
template <int TX, int TY, int TZ, int H>
__global__ void __launch_bounds__(256) tile_halo(const float4* __restrict__ in, float4* __restrict__ out, int n,
                                                 float* junk) {
  constexpr int kRowF4 = (TX + H) / 4, kRows = TY + H, kPlane = kRowF4 * kRows;
  const int tiles_x = n / TX, tiles_y = n / TY;
  const int t = blockIdx.x;
  const int x0 = (t % tiles_x) * TX, y0 = (t / tiles_x % tiles_y) * TY, z0 = t / (tiles_x * tiles_y) * TZ;
  const int nf4 = n / 4;
  float s = 0;
  for (int dz = 0; dz < TZ + H; ++dz) {
    const int z = min(z0 + dz, n - 1);
    for (int i = threadIdx.x; i < kPlane; i += blockDim.x) {
      const int fx = i % kRowF4, dy = i / kRowF4;
      const int y = min(y0 + dy, n - 1), xf = min(x0 / 4 + fx, nf4 - 1);
      const std::size_t at = (static_cast<std::size_t>(z) * n + y) * nf4 + xf;
      const float4 v = in[at];
      if (dz < TZ && dy < TY && fx < TX / 4)
        out[at] = v;
      else
        s += v.x + v.y + v.z + v.w;
    }
  }
  if (s == -1.0f) *junk = s;
}

template <int TX, int TY, int TZ, int H>
void measure(ProbeField& f, CleanTimer& timer, int n, float* junk, float copy_ms) {
  const int tiles = (n / TX) * (n / TY) * (n / TZ);
  CK(cudaMemset(f.dst, 0xff, f.values * 4));
  auto run = [&] {
    tile_halo<TX, TY, TZ, H><<<tiles, 256>>>(reinterpret_cast<const float4*>(f.src), reinterpret_cast<float4*>(f.dst), n,
                                             junk);
    CK(cudaGetLastError());
  };
  const float ms = timer.median_ms(run);
  CK(cudaDeviceSynchronize());
  const double reads = double(TX + H) * (TY + H) * (TZ + H) / (double(TX) * TY * TZ);
  std::printf("tile %3d x %3d x %3d  H %2d  reads/value %.3f  %.4f ms  %.3fx copy  (DRAM-only model %.3fx)  wrong %zu\n",
              TX, TY, TZ, H, reads, ms, ms / copy_ms, (reads + 1) / 2, f.dst_differences());
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 512;
  if (n % 128 != 0) {
    std::fprintf(stderr, "N must be a multiple of 128\n");
    return 2;
  }
  ProbeField f(n);
  CleanTimer timer;
  float* junk;
  CK(cudaMalloc(&junk, 4));
  const float copy_ms =
      timer.median_ms([&] { CK(cudaMemcpyAsync(f.dst, f.src, f.values * 4, cudaMemcpyDeviceToDevice)); });
  std::printf("N %d: copy %.4f ms (%.2f TB/s read + write)\n", n, copy_ms, 8.0 * f.values / copy_ms * 1e-9);
  for (int round = 0; round < 2; ++round) {
    measure<32, 32, 32, 0>(f, timer, n, junk, copy_ms);
    measure<32, 32, 32, 16>(f, timer, n, junk, copy_ms);
    measure<32, 32, 32, 32>(f, timer, n, junk, copy_ms);
    measure<64, 32, 32, 16>(f, timer, n, junk, copy_ms);
    measure<64, 16, 64, 16>(f, timer, n, junk, copy_ms);
    measure<128, 16, 16, 16>(f, timer, n, junk, copy_ms);
    measure<128, 32, 32, 16>(f, timer, n, junk, copy_ms);
    measure<64, 64, 64, 16>(f, timer, n, junk, copy_ms);
    measure<128, 8, 128, 16>(f, timer, n, junk, copy_ms);
  }
  CK(cudaFree(junk));
  return 0;
}
