// The 1-D cubic B-spline prefilter by truncated halos (segment_math.hpp): a warp per 512
// samples of a line, a lane per 16, no state passed between lanes, warps or blocks, so one
// launch reads each sample once (plus 32 halo samples per 512) and writes it once. Timed
// against a device-to-device copy of the same buffer (CUDA events, interleaved, medians),
// checked against the double oracle (every mode) and bit for bit against the host's
// emulation of the same arithmetic, on poisoned outputs. Lines: `lines` of `n` samples each.
//   nvcc -O3 -arch=sm_90 -std=c++20 -I../../../impls/core/include segments.cu \
//     ../../../build-device/impls/core/libsplinebench_core.a -Xcompiler -fopenmp -o /tmp/segments
//   /tmp/segments [n lines]...   (default: 16777216 1, 4096 4096, 512 262144)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "../probe_common.cuh"
#include "segment_math.hpp"
#include "splinebench/f32_accuracy.hpp"
#include "splinebench/oracle.hpp"

namespace sb = splinebench;

namespace {

constexpr int kWarps = 8;                            // warps per block
constexpr int kChunk = 32 * segments::kSeg;          // samples per warp
constexpr int kSpan = kChunk + 2 * segments::kHalo;  // with its halos
constexpr int kIn = segments::kHalo + segments::kSeg + segments::kHalo;

// Buffer index i holds sample c0 - kHalo + i, stored at i + i / 16 so that lane l's run of
// 48 (from 16 l) starts on bank 17 l mod 32: no two lanes of a read share a bank.
__device__ __forceinline__ int padded(int i) { return i + i / 16; }

__global__ void __launch_bounds__(32 * kWarps) segments_kernel(const float* __restrict__ in, float* __restrict__ out,
                                                               long long n, long long lines, int mode) {
  __shared__ float buf[kWarps][kSpan + kSpan / 16 + 1];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // Warps take chunks of lines in order: line-major, so short lines share a block.
  const long long per_line = (n + kChunk - 1) / kChunk;
  const long long gw = static_cast<long long>(blockIdx.x) * kWarps + warp;
  if (gw >= per_line * lines) return;
  const long long line = gw / per_line, c0 = (gw % per_line) * kChunk;
  const float* f = in + line * n;
  float* b = buf[warp];
  for (int i = lane; i < kSpan; i += 32) {
    const long long k = c0 - segments::kHalo + i;
    b[padded(i)] = __ldg(f + (k >= 0 && k < n ? k : sb::bspline::fold_index(mode, k, n)));
  }
  __syncwarp();
  float x[kIn], c[segments::kSeg];
#pragma unroll
  for (int k = 0; k < kIn; ++k) x[k] = b[padded(segments::kSeg * lane + k)];
  segments::lane_outputs(x, c);
  __syncwarp();
#pragma unroll
  for (int k = 0; k < segments::kSeg; ++k) b[padded(segments::kHalo + segments::kSeg * lane + k)] = c[k];
  __syncwarp();
  float* o = out + line * n;
  for (int i = lane; i < kChunk && c0 + i < n; i += 32) o[c0 + i] = b[padded(segments::kHalo + i)];
}

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void run(long long n, long long lines) {
  const long long total = n * lines;
  std::mt19937_64 rng(static_cast<unsigned long long>(total) * 7919 + 1);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> h(static_cast<std::size_t>(total));
  for (float& v : h) v = u(rng);
  float *d_in, *d_out, *d_copy;
  CK(cudaMalloc(&d_in, total * 4));
  CK(cudaMalloc(&d_out, total * 4));
  CK(cudaMalloc(&d_copy, total * 4));
  CK(cudaMemcpy(d_in, h.data(), total * 4, cudaMemcpyHostToDevice));
  const long long warps = (n + kChunk - 1) / kChunk * lines;
  const unsigned grid = static_cast<unsigned>((warps + kWarps - 1) / kWarps);
  cudaEvent_t a, z;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&z));
  for (const sb::Mode mode : {sb::Mode::mirror, sb::Mode::half, sb::Mode::periodic}) {
    CK(cudaMemset(d_out, 0xFF, total * 4));  // poison: an unwritten output is NaN
    segments_kernel<<<grid, 32 * kWarps>>>(d_in, d_out, n, lines, static_cast<int>(mode));
    CK(cudaGetLastError());
    std::vector<float> got(static_cast<std::size_t>(total));
    CK(cudaMemcpy(got.data(), d_out, total * 4, cudaMemcpyDeviceToHost));
    // The oracle on at most 64 lines (evenly spaced), f64.
    const long long step = std::max<long long>(1, lines / 64);
    double num = 0, den = 0;
    long long bad = 0, differ = 0;  // not finite; not the host emulation's bits
    float x[kIn], c[segments::kSeg];
    for (long long l = 0; l < lines; l += step) {
      std::vector<double> ref(h.begin() + l * n, h.begin() + (l + 1) * n);
      sb::oracle::prefilter(sb::GridShape::make({n}), 1, ref.data(), mode);
      for (long long s0 = 0; s0 < n; s0 += segments::kSeg) {
        for (int k = 0; k < kIn; ++k)
          x[k] = h[static_cast<std::size_t>(
              l * n + sb::bspline::fold_index(static_cast<int>(mode), s0 - segments::kHalo + k, n))];
        segments::lane_outputs(x, c);
        for (int k = 0; k < segments::kSeg && s0 + k < n; ++k)
          differ += got[static_cast<std::size_t>(l * n + s0 + k)] != c[k];
      }
      for (long long k = 0; k < n; ++k) {
        const double g = got[static_cast<std::size_t>(l * n + k)];
        if (!std::isfinite(g)) ++bad;
        num += (g - ref[static_cast<std::size_t>(k)]) * (g - ref[static_cast<std::size_t>(k)]);
        den += ref[static_cast<std::size_t>(k)] * ref[static_cast<std::size_t>(k)];
      }
    }
    std::vector<float> t_copy, t_seg;
    for (int rep = 0; rep < 25; ++rep) {
      float ms;
      CK(cudaEventRecord(a));
      CK(cudaMemcpyAsync(d_copy, d_in, total * 4, cudaMemcpyDeviceToDevice));
      CK(cudaEventRecord(z));
      CK(cudaEventSynchronize(z));
      CK(cudaEventElapsedTime(&ms, a, z));
      if (rep >= 5) t_copy.push_back(ms);
      CK(cudaEventRecord(a));
      segments_kernel<<<grid, 32 * kWarps>>>(d_in, d_out, n, lines, static_cast<int>(mode));
      CK(cudaEventRecord(z));
      CK(cudaEventSynchronize(z));
      CK(cudaEventElapsedTime(&ms, a, z));
      if (rep >= 5) t_seg.push_back(ms);
    }
    CK(cudaGetLastError());
    const double rel = std::sqrt(num / den);
    const double bound = sb::f32_accuracy::prefilter_rel_l2_bound(sb::GridShape::make({n}));
    std::printf("n %9lld x %7lld %-8s copy %.4f ms  segments %.4f ms  %.3fx  rel_l2 %.2e (bound %.2e) %s, "
                "%lld not finite, %lld differ from the host emulation\n",
                n, lines, std::string(sb::to_string(mode)).c_str(), median(t_copy), median(t_seg),
                median(t_seg) / median(t_copy), rel, bound, rel <= bound ? "ok" : "OVER", bad, differ);
  }
  CK(cudaFree(d_in));
  CK(cudaFree(d_out));
  CK(cudaFree(d_copy));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && argc % 2 == 1) {
    for (int i = 1; i < argc; i += 2) run(std::atoll(argv[i]), std::atoll(argv[i + 1]));
  } else {
    run(16777216, 1);
    run(4096, 4096);
    run(512, 262144);
    run(100, 1000);
  }
  return 0;
}
