// gpu_lines' runner (impls/gpu_lines: LinesRunner, its plan, kernels and graph) on a device,
// without the rest of the implementation library: fresh random samples, outputs poisoned
// with NaN, every mode, against the double oracle, plus a rough hot median of the replay
// behind a 1 ms stream hold. A first device check of the product code path; the full
// checks are tools/device/checks.sh's (conformance, test_gpu, sanitizers, the benchmark).
//   run.sh OUT  (from the repository root)
// Environment: SMOKE_PRECEDE_SMEM_KB=K launches, before each timed run's hold, a kernel
// of K KiB dynamic shared memory per block on every SM (what gpu_flex's tiles leave the
// SMs configured for in bench_gpu_prefilter's interleaving); SMOKE_TIMED_ONLY=1 runs only
// the timed cases in mirror mode; SMOKE_WITH_256=1 adds 256^3 to the timed cases; SMOKE_OTHER_GRAPH=1 replays, before each timed run's
// hold, another gpu_lines graph (a 3x1000 problem) on the same stream, as
// bench_gpu_prefilter's interleaving replays gpu_flex's graph between gpu_lines' runs;
// SMOKE_FLUSH_MB=M reads M MiB before each timed run's hold (L2 emptied of the kernels'
// code and data, as the benchmark's other operations and L2 conditioning leave it).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "gpu_lines/lines_launch.hpp"
#include "gpu_lines/lines_plan.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/oracle_batch.hpp"

namespace sb = splinebench;
namespace lines = splinebench::gpu::lines;

namespace {

__global__ void hold_spin(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

__global__ void big_shared(float* sink) {
  extern __shared__ float sm[];
  sm[threadIdx.x] = static_cast<float>(threadIdx.x);
  __syncthreads();
  if (sm[(threadIdx.x + 1) % blockDim.x] == -1.f) sink[blockIdx.x] = 0.f;
}

int env_int(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : 0;
}

__global__ void read_all(const float4* p, std::size_t n, float* sink) {
  float acc = 0.f;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    acc += p[i].x + p[i].w;
  if (acc == 1234.5f) sink[0] = acc;
}

struct Case {
  const char* name;
  std::vector<std::int64_t> extents;
  int channels;
  std::int64_t fields;
  bool timed;
};

}  // namespace

int main() {
  const std::vector<Case> cases = {
      {"3d_128", {128, 128, 128}, 1, 1, true},
      {"4d_48", {48, 48, 48, 48}, 1, 1, true},
      {"frames_160x120_rgba_x100", {120, 160}, 4, 100, true},
      {"3d_256", {256, 256, 256}, 1, 1, std::getenv("SMOKE_WITH_256") != nullptr},
      {"1d_1000_c2_f3", {1000}, 2, 3, false},
      {"3d_5x17x3_c4_f2", {5, 17, 3}, 4, 2, false},
      {"6d_3x2x5x3x2x4", {3, 2, 5, 3, 2, 4}, 1, 2, false},
      {"2d_3x1000", {3, 1000}, 1, 1, false},
  };
  cudaStream_t st;
  SB_CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  int failures = 0;
  const int precede_kb = env_int("SMOKE_PRECEDE_SMEM_KB");
  const bool timed_only = env_int("SMOKE_TIMED_ONLY") != 0;
  int sms = 0;
  SB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  float* sink = nullptr;
  SB_CUDA_CHECK(cudaMalloc(&sink, sms * sizeof(float)));
  if (precede_kb > 0)
    SB_CUDA_CHECK(cudaFuncSetAttribute(big_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, precede_kb * 1024));
  std::printf("preceding kernel: %d KiB shared\n", precede_kb);
  const bool other_graph = env_int("SMOKE_OTHER_GRAPH") != 0;
  const sb::GridShape other_shape = sb::GridShape::make({3, 1000}, 1);
  float *other_in = nullptr, *other_out = nullptr, *other_tmp = nullptr;
  lines::LinesRunner other;
  if (other_graph) {
    SB_CUDA_CHECK(cudaMalloc(&other_in, 3000 * sizeof(float)));
    SB_CUDA_CHECK(cudaMalloc(&other_out, 3000 * sizeof(float)));
    SB_CUDA_CHECK(cudaMalloc(&other_tmp, 3000 * sizeof(float)));
    SB_CUDA_CHECK(cudaMemset(other_in, 0, 3000 * sizeof(float)));
    other.ready(other_shape, 1, sb::Mode::mirror, other_in, other_out, other_tmp, st);
  }
  std::printf("another graph between runs: %s\n", other_graph ? "yes" : "no");
  const std::size_t flush_bytes = static_cast<std::size_t>(env_int("SMOKE_FLUSH_MB")) << 20;
  float* flush = nullptr;
  if (flush_bytes) {
    SB_CUDA_CHECK(cudaMalloc(&flush, flush_bytes));
    SB_CUDA_CHECK(cudaMemset(flush, 0, flush_bytes));
  }
  std::printf("L2 flush before each timed run: %zu MiB\n", flush_bytes >> 20);
  std::printf("| case | mode | launch | plan | rel L2 | NaN | bound | hot ms |\n|---|---|---|---|---|---|---|---|\n");
  for (const Case& c : cases) {
    if (timed_only && !c.timed) continue;
    const sb::GridShape shape = sb::GridShape::make(c.extents, c.channels);
    const std::int64_t n = shape.values() * c.fields;
    std::mt19937 rng(2026);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    std::vector<float> host(static_cast<std::size_t>(n));
    for (float& v : host) v = u(rng);
    float *in, *out, *tmp = nullptr;
    SB_CUDA_CHECK(cudaMalloc(&in, n * sizeof(float)));
    SB_CUDA_CHECK(cudaMalloc(&out, n * sizeof(float)));
    SB_CUDA_CHECK(cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    for (sb::Mode mode : sb::kAllModes) {
      if (timed_only && mode != sb::Mode::mirror) continue;
      lines::LinesRunner r;
      const std::int64_t tv = r.tmp_values(shape, c.fields);
      if (tv > 0 && !tmp) SB_CUDA_CHECK(cudaMalloc(&tmp, tv * sizeof(float)));
      SB_CUDA_CHECK(cudaMemset(out, 0xFF, n * sizeof(float)));
      r.ready(shape, c.fields, mode, in, out, tmp, st);
      r.run(shape, c.fields, mode, in, out, tmp, st);
      SB_CUDA_CHECK(cudaStreamSynchronize(st));
      std::vector<float> got(static_cast<std::size_t>(n));
      SB_CUDA_CHECK(cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
      std::vector<double> ref(host.begin(), host.end());
      sb::oracle::prefilter_f64(shape, c.fields, ref.data(), mode);
      double num = 0, den = 0;
      long nans = 0;
      for (std::size_t i = 0; i < got.size(); ++i) {
        if (!std::isfinite(got[i])) ++nans;
        num += (got[i] - ref[i]) * (got[i] - ref[i]);
        den += ref[i] * ref[i];
      }
      const double e = std::sqrt(num / den);
      const double bound = shape.dims <= 3 ? 2e-7 : lines::tolerance(shape).prefilter_rel_l2;
      const bool ok = nans == 0 && e <= bound;
      failures += ok ? 0 : 1;
      double ms = -1;
      if (c.timed && mode == sb::Mode::mirror) {
        cudaEvent_t e0, e1;
        SB_CUDA_CHECK(cudaEventCreate(&e0));
        SB_CUDA_CHECK(cudaEventCreate(&e1));
        std::vector<float> t;
        for (int rep = 0; rep < 24; ++rep) {
          if (flush) {
            read_all<<<4 * sms, 256, 0, st>>>(reinterpret_cast<const float4*>(flush), flush_bytes / 16, sink);
            SB_CUDA_CHECK(cudaGetLastError());
          }
          if (other_graph) other.run(other_shape, 1, sb::Mode::mirror, other_in, other_out, other_tmp, st);
          if (precede_kb > 0) {
            big_shared<<<sms, 256, precede_kb * 1024, st>>>(sink);
            SB_CUDA_CHECK(cudaGetLastError());
          }
          hold_spin<<<1, 1, 0, st>>>(1000000ull);
          SB_CUDA_CHECK(cudaGetLastError());
          SB_CUDA_CHECK(cudaEventRecord(e0, st));
          r.run(shape, c.fields, mode, in, out, tmp, st);
          SB_CUDA_CHECK(cudaEventRecord(e1, st));
          SB_CUDA_CHECK(cudaEventSynchronize(e1));
          float x;
          SB_CUDA_CHECK(cudaEventElapsedTime(&x, e0, e1));
          if (rep >= 3) t.push_back(x);
        }
        std::sort(t.begin(), t.end());
        ms = t[t.size() / 2];
        SB_CUDA_CHECK(cudaEventDestroy(e0));
        SB_CUDA_CHECK(cudaEventDestroy(e1));
      }
      std::printf("| %s | %s | %s | %s | %.3g | %ld | %.3g %s | %s |\n", c.name, std::string(sb::to_string(mode)).c_str(),
                  r.launch_description().c_str(), r.plan_description().c_str(), e, nans, bound, ok ? "ok" : "FAIL",
                  ms < 0 ? "-" : std::to_string(ms).c_str());
      std::fflush(stdout);
    }
    SB_CUDA_CHECK(cudaFree(in));
    SB_CUDA_CHECK(cudaFree(out));
    if (tmp) SB_CUDA_CHECK(cudaFree(tmp));
  }
  SB_CUDA_CHECK(cudaFree(sink));
  for (float* p : {other_in, other_out, other_tmp, flush})
    if (p) SB_CUDA_CHECK(cudaFree(p));
  std::printf("%s\n", failures ? "FAILED" : "all within bounds");
  return failures ? 1 : 0;
}
