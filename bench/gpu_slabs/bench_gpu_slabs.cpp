// bench_gpu_slabs: the split prefilter over the visible GPUs (gpu_slabs) against one GPU,
// for volumes up to 2048^3 f32, where the harness's whole-field f64 oracle is too big to
// run per case. Run it once per device set (CUDA_VISIBLE_DEVICES=0, =0,1, =0,1,2,3), as
// benchmarks with declared axes (bench/gpu_bench_common) in one JSON file:
//   prefilter  edge x impl: the `prefilter` phase of prepare() (upload excluded), for
//              gpu_slabs (every visible device) and the single-device gpu_naive (the same
//              step recursion) and gpu_flex (the fastest); beside it, the bound: a
//              device-to-device copy of each device's share of the volume, all devices
//              at once (`copy_split`), and of the whole volume on device 0 (`copy_one`).
//   Accuracy without a whole-field oracle: the input is a sum of three separable terms
//   a_r(x) b_r(y) c_r(z) of fresh random vectors, whose exact coefficients are the
//   products of the three 1-D f64 prefilters; the coefficients read back are compared at
//   every plane near the quarter, half and three-quarter marks and the ends (where slab
//   boundaries of 1, 2 and 4 devices fall) and at random voxels: rel. L2 against the f32
//   prefilter bound.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "gpu_bench_common/benchmark.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/error.hpp"
#include "splinebench/f32_accuracy.hpp"
#include "splinebench/oracle.hpp"
#include "splinebench/registry.hpp"

namespace splinebench::bench {
namespace {

using json = nlohmann::json;

constexpr int kTerms = 3;

// A cubic volume edge^3 made of kTerms separable terms, and its exact coefficients'
// factors (each 1-D vector prefiltered in f64).
struct SeparableVolume {
  std::int64_t edge = 0;
  Mode mode = Mode::mirror;
  std::vector<std::vector<double>> factors;  // [term * 3 + axis][edge] samples
  std::vector<std::vector<double>> coeffs;   // the same, prefiltered
  std::vector<float> samples;                // edge^3

  SeparableVolume(std::int64_t e, Mode m, std::uint64_t seed) : edge(e), mode(m) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> uniform(-1, 1);
    for (int t = 0; t < kTerms * 3; ++t) {
      std::vector<double> v(static_cast<std::size_t>(e));
      for (double& x : v) x = uniform(rng);
      std::vector<double> c = v;
      oracle::prefilter(GridShape::make({e}), 1, c.data(), m);
      factors.push_back(std::move(v));
      coeffs.push_back(std::move(c));
    }
    samples.resize(static_cast<std::size_t>(e * e * e));
#pragma omp parallel for schedule(static)
    for (std::int64_t x = 0; x < e; ++x)
      for (std::int64_t y = 0; y < e; ++y)
        for (std::int64_t z = 0; z < e; ++z) {
          double s = 0;
          for (int t = 0; t < kTerms; ++t) s += factors[3 * t][x] * factors[3 * t + 1][y] * factors[3 * t + 2][z];
          samples[static_cast<std::size_t>((x * e + y) * e + z)] = static_cast<float>(s);
        }
  }
  double exact(std::int64_t x, std::int64_t y, std::int64_t z) const {
    double s = 0;
    for (int t = 0; t < kTerms; ++t) s += coeffs[3 * t][x] * coeffs[3 * t + 1][y] * coeffs[3 * t + 2][z];
    return s;
  }
};

// Rel. L2 of `got` against the exact coefficients over the checked voxels: every voxel
// of the planes around 0, n/4, n/2, 3n/4 and n-1 (16 each side) and 2^20 random voxels.
json check(const SeparableVolume& v, const std::vector<float>& got) {
  const std::int64_t e = v.edge;
  std::vector<std::int64_t> planes;
  for (std::int64_t mark : {std::int64_t(0), e / 4, e / 2, 3 * e / 4, e - 1})
    for (std::int64_t k = mark - 16; k <= mark + 16; ++k)
      if (k >= 0 && k < e) planes.push_back(k);
  std::sort(planes.begin(), planes.end());
  planes.erase(std::unique(planes.begin(), planes.end()), planes.end());
  double num = 0, den = 0, max_abs = 0;
  std::int64_t checked = 0;
  auto at = [&](std::int64_t x, std::int64_t y, std::int64_t z) {
    const double ref = v.exact(x, y, z);
    const double d = static_cast<double>(got[static_cast<std::size_t>((x * e + y) * e + z)]) - ref;
    num += d * d;
    den += ref * ref;
    max_abs = std::max(max_abs, std::abs(d));
    ++checked;
  };
  for (std::int64_t x : planes)
    for (std::int64_t y = 0; y < e; ++y)
      for (std::int64_t z = 0; z < e; ++z) at(x, y, z);
  std::mt19937_64 rng(99);
  std::uniform_int_distribution<std::int64_t> index(0, e - 1);
  for (int i = 0; i < (1 << 20); ++i) at(index(rng), index(rng), index(rng));
  const double rel_l2 = std::sqrt(num / den);
  const double bound = f32_accuracy::prefilter_rel_l2_bound(GridShape::make({e, e, e}));
  return {{"rel_l2", rel_l2}, {"bound", bound}, {"max_abs", max_abs}, {"checked_voxels", checked},
          {"planes_checked_whole", planes.size()}, {"verdict", rel_l2 <= bound ? "pass" : "fail"}};
}

// Median seconds of a device-to-device copy of `bytes` on every visible device at once
// (each its own buffers and stream), or on device 0 alone.
double copy_seconds(std::size_t bytes, int devices, int repetitions) {
  std::vector<float*> src(devices), dst(devices);
  std::vector<cudaStream_t> streams(devices);
  std::vector<cudaEvent_t> start(devices), stop(devices);
  for (int d = 0; d < devices; ++d) {
    SB_CUDA_CHECK(cudaSetDevice(d));
    SB_CUDA_CHECK(cudaMalloc(&src[d], bytes));
    SB_CUDA_CHECK(cudaMalloc(&dst[d], bytes));
    SB_CUDA_CHECK(cudaMemset(src[d], 0, bytes));
    SB_CUDA_CHECK(cudaStreamCreate(&streams[d]));
    SB_CUDA_CHECK(cudaEventCreate(&start[d]));
    SB_CUDA_CHECK(cudaEventCreate(&stop[d]));
  }
  std::vector<double> times;
  for (int rep = -2; rep < repetitions; ++rep) {
    for (int d = 0; d < devices; ++d) SB_CUDA_CHECK(cudaSetDevice(d)), SB_CUDA_CHECK(cudaDeviceSynchronize());
    for (int d = 0; d < devices; ++d) {
      SB_CUDA_CHECK(cudaSetDevice(d));
      SB_CUDA_CHECK(cudaEventRecord(start[d], streams[d]));
      SB_CUDA_CHECK(cudaMemcpyAsync(dst[d], src[d], bytes, cudaMemcpyDeviceToDevice, streams[d]));
      SB_CUDA_CHECK(cudaEventRecord(stop[d], streams[d]));
    }
    double slowest = 0;
    for (int d = 0; d < devices; ++d) {
      SB_CUDA_CHECK(cudaSetDevice(d));
      SB_CUDA_CHECK(cudaEventSynchronize(stop[d]));
      float ms = 0;
      SB_CUDA_CHECK(cudaEventElapsedTime(&ms, start[d], stop[d]));
      slowest = std::max(slowest, ms * 1e-3);
    }
    if (rep >= 0) times.push_back(slowest);
  }
  for (int d = 0; d < devices; ++d) {
    SB_CUDA_CHECK(cudaSetDevice(d));
    cudaFree(src[d]);
    cudaFree(dst[d]);
    cudaStreamDestroy(streams[d]);
    cudaEventDestroy(start[d]);
    cudaEventDestroy(stop[d]);
  }
  SB_CUDA_CHECK(cudaSetDevice(0));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

int run(int argc, char** argv) {
  std::string out = "gpu_slabs.json", machine, git_sha;
  std::vector<std::int64_t> edges = {512, 1024, 2048};
  std::vector<std::string> impls = {"gpu_slabs", "gpu_naive", "gpu_flex"};
  std::string mode_name = "mirror";
  int repetitions = 5;
  CLI::App app{"The split prefilter over the visible GPUs against one GPU, with a copy bound"};
  app.add_option("--out", out, "Output JSON (written atomically)");
  app.add_option("--machine", machine, "Machine label for the context");
  app.add_option("--git-sha", git_sha, "Revision for the context");
  app.add_option("--edge", edges, "Cube edges (default 512 1024 2048)");
  app.add_option("--impl", impls, "Implementations (default gpu_slabs gpu_naive gpu_flex)");
  app.add_option("--mode", mode_name, "Boundary mode (default mirror)");
  app.add_option("--repetitions", repetitions, "Timed prepares per point (default 5, after 1 warm-up)");
  CLI11_PARSE(app, argc, argv);
  const std::optional<Mode> parsed = parse_mode(mode_name);
  if (!parsed) throw Error("--mode: unknown boundary mode '" + mode_name + "' (mirror, half, periodic)");
  const Mode mode = *parsed;
  // No device (or driver): the GPU points are skipped as unavailable; a CPU implementation
  // (--impl cpu_scalar) still runs, which checks the separable oracle itself.
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) devices = 0;

  ResultFile file(out, "splinebench-gpu-slabs", 1, bench_context("bench_gpu_slabs", machine, git_sha, impls));
  file.doc()["context"]["visible_devices"] = devices;
  std::vector<json> edge_values(edges.begin(), edges.end()), impl_values(impls.begin(), impls.end());
  Kept<SeparableVolume> volume;
  file.run({"prefilter", "prepare()'s prefilter phase on a separable random volume, and the copy bound",
            {{"edge", edge_values}, {"impl", impl_values}},
            [&](State& s) {
              const std::int64_t e = s.int64("edge");
              SeparableVolume& v =
                  volume.get(json{e, mode_name}, [&] { return std::make_unique<SeparableVolume>(e, mode, 2024 + e); });
              const GridShape shape = GridShape::make({e, e, e});
              const std::size_t bytes = static_cast<std::size_t>(shape.values()) * sizeof(float);
              ImplementationPtr impl = make_implementation(s.string("impl"));
              if (const Availability a = impl->availability(); !a.ok) throw Unsupported(a.reason);
              std::vector<double> prefilter, upload;
              for (int rep = -1; rep < repetitions; ++rep) {
                PhaseTimes times;
                impl->prepare(shape, 1, v.samples.data(), mode, true, times);
                if (rep < 0) continue;
                prefilter.push_back(times.get(phase::prefilter));
                upload.push_back(times.get(phase::upload));
              }
              s.row()["prefilter"] = stats_json(prefilter);
              s.row()["upload"] = stats_json(upload);
              std::vector<float> coeffs(v.samples.size());
              PhaseTimes read;
              impl->read_coefficients(coeffs.data(), read);
              impl->release();
              s.row()["accuracy"] = check(v, coeffs);
              if (impl->capabilities().device != Device::gpu || devices == 0) return;
              const int used = s.string("impl") == "gpu_slabs" ? devices : 1;
              s.row()["devices"] = used;
              s.row()["copy_split"] = copy_seconds((bytes + used - 1) / used, used, 9);
              s.row()["copy_one"] = copy_seconds(bytes, 1, 9);
            }});
  return file.failures() ? 1 : 0;
}

}  // namespace
}  // namespace splinebench::bench

int main(int argc, char** argv) {
  try {
    return splinebench::bench::run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "bench_gpu_slabs: " << e.what() << '\n';
    return 1;
  }
}
