// bench_gpu_slabs: the split prefilter over the visible GPUs (gpu_slabs) against one GPU,
// for volumes of 2048^3 f32 and more (3456^3, 165 GB, on a 256 GiB host), where the
// harness's whole-field f64 oracle is too big to run per case. Run it once per device set
// (CUDA_VISIBLE_DEVICES=0, =0,1, =0,1,2,3), as benchmarks with declared axes
// (bench/gpu_bench_common) in one JSON file:
//   prefilter  edge x impl: the `prefilter` phase of prepare() (upload excluded), for
//              gpu_slabs (every visible device) and the single-device gpu_naive (the same
//              step recursion) and gpu_flex (the fastest); beside it, the bound: a
//              device-to-device copy of each device's share of the volume, all devices
//              at once (`copy_split`), and of the whole volume on device 0 (`copy_one`).
//              An implementation whose devices cannot hold the volume is skipped (its
//              prepare throws Unsupported) and its buffers released.
//   streamed   edge: gpu_slabs' streamed prefilter (stream_prefilter.hpp) of the volume in
//              host memory through device 0, slabs forced thin enough that there are at
//              least 4 (as if the volume were larger than the device): the report's
//              phases, and the host-link bound beside them, bytes / h2d + bytes / d2h with
//              both bandwidths measured on a pinned 1 GiB buffer.
//   Host memory: the samples are generated (fill(), in parallel) rather than kept beside
//   the 1-D factors, so the host holds the volume once where it must. `streamed` refills
//   its one buffer before every run (the call works in place). `prefilter` keeps one
//   samples buffer per edge across the implementations and reads the coefficients back
//   into a second buffer while the host can hold the volume twice; above that it reads
//   them back into the samples buffer itself, and the next implementation refills it.
//   Accuracy without a whole-field oracle: the input is a sum of three separable terms
//   a_r(x) b_r(y) c_r(z) of fresh random vectors, whose exact coefficients are the
//   products of the three 1-D f64 prefilters; the coefficients read back are compared at
//   every plane near the quarter, half and three-quarter marks and the ends (where slab
//   boundaries of 1, 2 and 4 devices fall) and at random voxels: rel. L2 against the f32
//   prefilter bound.
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "gpu_bench_common/benchmark.hpp"
#include "gpu_common/scoped_device.hpp"
#include "gpu_slabs/stream_prefilter.hpp"
#include "splinebench/cuda/device_buffer.hpp"
#include "splinebench/cuda/event.hpp"
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
// factors (each 1-D vector prefiltered in f64). Only the factors are kept: the samples
// are written by fill() into the buffer a run uses, so a volume the host can hold only
// once (3456^3 f32 is 165 GB) is never held twice; generating them costs little beside a
// run.
struct SeparableVolume {
  std::int64_t edge = 0;
  Mode mode = Mode::mirror;
  std::vector<std::vector<double>> factors;  // [term * 3 + axis][edge] samples
  std::vector<std::vector<double>> coeffs;   // the same, prefiltered

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
  }
  std::size_t values() const { return static_cast<std::size_t>(edge * edge * edge); }
  // Writes the edge^3 samples (C order) into `dst`, rows spread over the cores; a fresh
  // buffer's pages are first touched here, each by the thread that writes it.
  void fill(float* dst) const {
    const std::int64_t e = edge;
#pragma omp parallel for collapse(2) schedule(static)
    for (std::int64_t x = 0; x < e; ++x)
      for (std::int64_t y = 0; y < e; ++y) {
        double xy[kTerms];
        for (int t = 0; t < kTerms; ++t) xy[t] = factors[3 * t][x] * factors[3 * t + 1][y];
        float* row = dst + (x * e + y) * e;
        for (std::int64_t z = 0; z < e; ++z) {
          double s = 0;
          for (int t = 0; t < kTerms; ++t) s += xy[t] * factors[3 * t + 2][z];
          row[z] = static_cast<float>(s);
        }
      }
  }
  double exact(std::int64_t x, std::int64_t y, std::int64_t z) const {
    double s = 0;
    for (int t = 0; t < kTerms; ++t) s += coeffs[3 * t][x] * coeffs[3 * t + 1][y] * coeffs[3 * t + 2][z];
    return s;
  }
};

// A volume's worth of host memory, not initialised: fill() or a readback writes every
// value (zeroing it first would be one more pass over up to 165 GB, on one thread).
// `holds_samples` says whether it holds v's samples or what a readback left there.
struct HostVolume {
  std::unique_ptr<float[]> values;
  bool holds_samples = false;

  explicit HostVolume(std::size_t count) : values(std::make_unique_for_overwrite<float[]>(count)) {}
  float* data() const { return values.get(); }
};

// Sums for a rel. L2 over some voxels, and the largest error.
struct Errors {
  double num = 0, den = 0, max_abs = 0;
  std::int64_t count = 0;

  void add(float got, double ref) {
    const double d = static_cast<double>(got) - ref;
    num += d * d;
    den += ref * ref;
    max_abs = std::max(max_abs, std::abs(d));
    ++count;
  }
  void merge(const Errors& o) {
    num += o.num;
    den += o.den;
    max_abs = std::max(max_abs, o.max_abs);
    count += o.count;
  }
};

// Rel. L2 of `got` against the exact coefficients over the checked voxels: every voxel
// of the planes around 0, n/4, n/2, 3n/4 and n-1 (16 each side), rows spread over the
// cores, and 2^20 random voxels.
json check(const SeparableVolume& v, const float* got) {
  const std::int64_t e = v.edge;
  std::vector<std::int64_t> planes;
  for (std::int64_t mark : {std::int64_t(0), e / 4, e / 2, 3 * e / 4, e - 1})
    for (std::int64_t k = mark - 16; k <= mark + 16; ++k)
      if (k >= 0 && k < e) planes.push_back(k);
  std::sort(planes.begin(), planes.end());
  planes.erase(std::unique(planes.begin(), planes.end()), planes.end());
  const auto at = [&](std::int64_t x, std::int64_t y, std::int64_t z, Errors& errors) {
    errors.add(got[(x * e + y) * e + z], v.exact(x, y, z));
  };
  Errors all;
  const std::int64_t rows = static_cast<std::int64_t>(planes.size()) * e;
#pragma omp parallel
  {
    Errors mine;
#pragma omp for schedule(static) nowait
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t z = 0; z < e; ++z) at(planes[static_cast<std::size_t>(r / e)], r % e, z, mine);
#pragma omp critical
    all.merge(mine);
  }
  std::mt19937_64 rng(99);
  std::uniform_int_distribution<std::int64_t> index(0, e - 1);
  for (int i = 0; i < (1 << 20); ++i) at(index(rng), index(rng), index(rng), all);
  const double rel_l2 = std::sqrt(all.num / all.den);
  const double bound = f32_accuracy::prefilter_rel_l2_bound(GridShape::make({e, e, e}));
  return {{"rel_l2", rel_l2}, {"bound", bound}, {"max_abs", all.max_abs}, {"checked_voxels", all.count},
          {"planes_checked_whole", planes.size()}, {"verdict", rel_l2 <= bound ? "pass" : "fail"}};
}

// One device's part of copy_seconds: two buffers, a stream and its events, freed on every
// path. Where two buffers of the whole share do not fit (a share of 3456^3 is more than half
// an H200), they are as large as 40% of the device's free memory allows and the share is
// copied between them piece by piece.
struct CopyLane {
  int device = 0;
  std::size_t piece = 0;  // bytes per cudaMemcpyAsync
  gpu::DeviceBuffer<char> src, dst;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;

  CopyLane(int d, std::size_t bytes) : device(d) {
    SB_CUDA_CHECK(cudaSetDevice(d));
    std::size_t free = 0, total = 0;
    SB_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    piece = std::min(bytes, free / 5 * 2 / 256 * 256);
    if (piece == 0) throw Unsupported("copy bound: no free memory on device " + std::to_string(d));
    src.resize(piece);
    dst.resize(piece);
    SB_CUDA_CHECK(cudaMemset(src.data(), 0, piece));
    SB_CUDA_CHECK(cudaStreamCreate(&stream));
    SB_CUDA_CHECK(cudaEventCreate(&start));
    SB_CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~CopyLane() {
    cudaSetDevice(device);  // the buffers are freed after this body, with their device current
    if (stream) {
      cudaStreamSynchronize(stream);
      cudaStreamDestroy(stream);
    }
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
  }
  CopyLane(const CopyLane&) = delete;
  CopyLane& operator=(const CopyLane&) = delete;

  void enqueue(std::size_t bytes) {
    SB_CUDA_CHECK(cudaSetDevice(device));
    SB_CUDA_CHECK(cudaEventRecord(start, stream));
    for (std::size_t off = 0; off < bytes; off += piece)
      SB_CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), std::min(piece, bytes - off), cudaMemcpyDeviceToDevice,
                                    stream));
    SB_CUDA_CHECK(cudaEventRecord(stop, stream));
  }
  double seconds() const {
    SB_CUDA_CHECK(cudaSetDevice(device));
    SB_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    SB_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms * 1e-3;
  }
};

struct CopyTime {
  double seconds = 0;     // median over the repetitions of the slowest device
  std::size_t piece = 0;  // bytes per copy (the smallest over the devices)
};

// Median seconds of a device-to-device copy of `bytes` on every visible device at once
// (each its own buffers and stream), or on device 0 alone.
CopyTime copy_seconds(std::size_t bytes, int devices, int repetitions) {
  const gpu::ScopedDevice restore(0);  // declared first: the caller's device again once the lanes are freed
  std::vector<std::unique_ptr<CopyLane>> lanes;
  for (int d = 0; d < devices; ++d) lanes.push_back(std::make_unique<CopyLane>(d, bytes));
  std::vector<double> times;
  for (int rep = -2; rep < repetitions; ++rep) {
    for (const auto& lane : lanes) SB_CUDA_CHECK(cudaSetDevice(lane->device)), SB_CUDA_CHECK(cudaDeviceSynchronize());
    for (const auto& lane : lanes) lane->enqueue(bytes);
    double slowest = 0;
    for (const auto& lane : lanes) slowest = std::max(slowest, lane->seconds());
    if (rep >= 0) times.push_back(slowest);
  }
  CopyTime t;
  t.piece = bytes;
  for (const auto& lane : lanes) t.piece = std::min(t.piece, lane->piece);
  std::sort(times.begin(), times.end());
  t.seconds = times[times.size() / 2];
  return t;
}

// Host-link bandwidth of device 0, bytes per second each way: cudaMemcpyAsync of a
// pinned 1 GiB buffer, the median of 5 after one warm-up.
struct LinkBandwidth {
  double h2d = 0;
  double d2h = 0;
};

LinkBandwidth measure_link() {
  constexpr std::size_t kBytes = std::size_t{1} << 30;
  SB_CUDA_CHECK(cudaSetDevice(0));
  gpu::PinnedBuffer<char> host(kBytes);
  gpu::DeviceBuffer<char> device(kBytes);
  std::memset(host.data(), 1, kBytes);  // touched, so no first-use cost lands in a copy
  SB_CUDA_CHECK(cudaMemset(device.data(), 0, kBytes));
  cudaStream_t stream = nullptr;
  SB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  auto median_seconds = [&](cudaMemcpyKind kind) {
    std::vector<double> times;
    gpu::Event start, stop;
    for (int rep = -1; rep < 5; ++rep) {
      start.record(stream);
      if (kind == cudaMemcpyHostToDevice)
        SB_CUDA_CHECK(cudaMemcpyAsync(device.data(), host.data(), kBytes, kind, stream));
      else
        SB_CUDA_CHECK(cudaMemcpyAsync(host.data(), device.data(), kBytes, kind, stream));
      stop.record(stream);
      const double t = stop.seconds_since(start);
      if (rep >= 0) times.push_back(t);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  };
  LinkBandwidth bw;
  try {
    bw.h2d = static_cast<double>(kBytes) / median_seconds(cudaMemcpyHostToDevice);
    bw.d2h = static_cast<double>(kBytes) / median_seconds(cudaMemcpyDeviceToHost);
  } catch (...) {
    cudaStreamDestroy(stream);
    throw;
  }
  SB_CUDA_CHECK(cudaStreamDestroy(stream));
  return bw;
}

// Statistics (stats_json) of one StreamReport field over the timed runs.
json report_stats(const std::vector<gpu::slabs::StreamReport>& reports, double gpu::slabs::StreamReport::*field) {
  std::vector<double> v;
  for (const auto& r : reports) v.push_back(r.*field);
  return stats_json(v);
}

// Its median.
double median_of(const std::vector<gpu::slabs::StreamReport>& reports, double gpu::slabs::StreamReport::*field) {
  std::vector<double> v;
  for (const auto& r : reports) v.push_back(r.*field);
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The host's physical memory in bytes (0 when sysconf does not say).
double physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0;
}

// Whether the prefilter benchmark reads the coefficients back into a buffer of their own:
// only while the host holds the volume twice (the samples, kept for the next
// implementation at the edge, and the coefficients) within 80% of its memory, the rest
// left to the implementation's own host buffers and the system.
bool separate_readback(std::size_t bytes, double host_memory) {
  return 2.0 * static_cast<double>(bytes) <= 0.8 * host_memory;
}

// Runs `body` (an implementation's prepares and readback), then releases the
// implementation's buffers, also when `body` throws: prepare throws Unsupported when the
// devices cannot hold the volume, and the next point must find them empty. The body's
// exception is the one recorded.
void run_then_release(Implementation& impl, const std::function<void()>& body) {
  try {
    body();
  } catch (...) {
    try {
      impl.release();
    } catch (...) {  // the body's error says more than a failing release after it
    }
    throw;
  }
  impl.release();
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
  double host_memory_gib = 0;
  app.add_option("--host-memory-gib", host_memory_gib,
                 "Host memory the prefilter benchmark plans its readback for (default: the physical memory)");
  std::vector<std::int64_t> stream_edges = {1024, 2048};
  std::int64_t stream_planes = 0;
  int stream_buffers = 3, stream_repetitions = 3;
  bool stream_staged = false;
  app.add_option("--stream-edge", stream_edges, "Cube edges of the streamed benchmark (default 1024 2048)");
  app.add_option("--stream-planes", stream_planes,
                 "Planes per slab of the streamed benchmark (default edge/16, 16 slabs; it must leave 4 slabs or more)");
  app.add_option("--stream-buffers", stream_buffers, "Device slab buffers of the streamed benchmark (default 3)");
  app.add_option("--stream-repetitions", stream_repetitions, "Timed streamed runs per point (default 3, after 1 warm-up)");
  app.add_flag("--stream-staged", stream_staged,
               "Stage the streamed benchmark's slabs through pinned buffers instead of registering the volume");
  CLI11_PARSE(app, argc, argv);
  if (stream_repetitions < 1) throw Error("--stream-repetitions must be >= 1");
  const std::optional<Mode> parsed = parse_mode(mode_name);
  if (!parsed) throw Error("--mode: unknown boundary mode '" + mode_name + "' (mirror, half, periodic)");
  const Mode mode = *parsed;
  // No device (or driver): the GPU points are skipped as unavailable; a CPU implementation
  // (--impl cpu_scalar) still runs, which checks the separable oracle itself.
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) devices = 0;

  const double host_memory = host_memory_gib > 0 ? host_memory_gib * double(1 << 30) : physical_memory_bytes();

  ResultFile file(out, "splinebench-gpu-slabs", 1, bench_context("bench_gpu_slabs", machine, git_sha, impls));
  file.doc()["context"]["visible_devices"] = devices;
  file.doc()["context"]["host_memory_bytes"] = host_memory;
  std::vector<json> edge_values(edges.begin(), edges.end()), impl_values(impls.begin(), impls.end());
  Kept<SeparableVolume> volume;  // the factors, for both benchmarks
  Kept<HostVolume> samples;      // the prefilter's input at the current edge
  // Each point reads the coefficients back into a buffer of its own, or, where the host
  // cannot hold the volume twice, into the samples, which the next point refills.
  file.run({"prefilter", "prepare()'s prefilter phase on a separable random volume, and the copy bound",
            {{"edge", edge_values}, {"impl", impl_values}},
            [&](State& s) {
              const std::int64_t e = s.int64("edge");
              ImplementationPtr impl = make_implementation(s.string("impl"));
              if (const Availability a = impl->availability(); !a.ok) throw Unsupported(a.reason);
              const json key{e, mode_name};
              const SeparableVolume& v =
                  volume.get(key, [&] { return std::make_unique<SeparableVolume>(e, mode, 2024 + e); });
              const GridShape shape = GridShape::make({e, e, e});
              const std::size_t bytes = v.values() * sizeof(float);
              HostVolume& input = samples.get(key, [&] { return std::make_unique<HostVolume>(v.values()); });
              if (!input.holds_samples) {
                v.fill(input.data());
                input.holds_samples = true;
              }
              const bool separate = separate_readback(bytes, host_memory);
              std::unique_ptr<HostVolume> readback;  // the separate readback's buffer
              run_then_release(*impl, [&] {
                std::vector<double> prefilter, upload;
                std::map<std::string, std::vector<double>> parts;  // the prefilter's own sub-phases
                for (int rep = -1; rep < repetitions; ++rep) {
                  PhaseTimes times;
                  impl->prepare(shape, 1, input.data(), mode, true, times);
                  if (rep < 0) continue;
                  prefilter.push_back(times.get(phase::prefilter));
                  upload.push_back(times.get(phase::upload));
                  for (const auto& [name, seconds] : times.entries())
                    if (name.rfind("prefilter_", 0) == 0) parts[name].push_back(seconds);
                }
                s.row()["prefilter"] = stats_json(prefilter);
                s.row()["upload"] = stats_json(upload);
                for (const auto& [name, seconds] : parts) s.row()["prefilter_parts"][name] = stats_json(seconds);
                if (separate)
                  readback = std::make_unique<HostVolume>(v.values());
                else
                  input.holds_samples = false;  // from here on, also if the readback fails
                PhaseTimes read;
                impl->read_coefficients(separate ? readback->data() : input.data(), read);
              });
              s.row()["readback"] = separate ? "separate" : "in place";
              s.row()["accuracy"] = check(v, separate ? readback->data() : input.data());
              readback.reset();
              if (impl->capabilities().device != Device::gpu || devices == 0) return;
              const int used = s.string("impl") == "gpu_slabs" ? devices : 1;
              const std::size_t share = (bytes + used - 1) / used;
              s.row()["devices"] = used;
              const CopyTime split = copy_seconds(share, used, 9), one = copy_seconds(bytes, 1, 9);
              s.row()["copy_split"] = split.seconds;
              s.row()["copy_one"] = one.seconds;
              if (split.piece < share) s.row()["copy_split_piece_bytes"] = split.piece;
              if (one.piece < bytes) s.row()["copy_one_piece_bytes"] = one.piece;
            }});
  samples.reset();  // the streamed benchmark holds its own buffer

  // The streamed prefilter through device 0 on the one copy of the volume in host memory,
  // refilled before every run (it works in place); the bandwidths measured once, at the
  // first point that runs.
  std::optional<LinkBandwidth> link;
  std::vector<json> stream_edge_values(stream_edges.begin(), stream_edges.end());
  file.run({"streamed",
            "gpu_slabs' streamed prefilter of a separable random volume in host memory through device 0 (at least 4 "
            "slabs), and the host-link bound bytes / h2d + bytes / d2h",
            {{"edge", stream_edge_values}},
            [&](State& s) {
              if (const std::string reason = gpu::cuda_unavailable_reason(); !reason.empty()) throw Unsupported(reason);
              const std::int64_t e = s.int64("edge");
              const std::int64_t planes = stream_planes > 0 ? stream_planes : std::max<std::int64_t>(1, e / 16);
              const std::int64_t slabs = (e + planes - 1) / planes;
              if (slabs < 4)
                throw Error("--stream-planes " + std::to_string(planes) + " gives " + std::to_string(slabs) +
                            " slabs for edge " + std::to_string(e) + "; the streamed benchmark needs at least 4");
              const SeparableVolume& v =
                  volume.get(json{e, mode_name}, [&] { return std::make_unique<SeparableVolume>(e, mode, 2024 + e); });
              const GridShape shape = GridShape::make({e, e, e});
              gpu::slabs::StreamOptions options;
              options.slab_planes = planes;
              options.buffers = stream_buffers;
              options.register_host = !stream_staged;
              HostVolume work(v.values());
              std::vector<gpu::slabs::StreamReport> reports;
              for (int rep = -1; rep < stream_repetitions; ++rep) {
                v.fill(work.data());  // not timed
                gpu::slabs::StreamReport report;
                gpu::slabs::prefilter_streamed(work.data(), shape, mode, options, report);
                if (rep >= 0) reports.push_back(report);
              }
              using R = gpu::slabs::StreamReport;
              const R& last = reports.back();
              json& row = s.row();
              row["pin"] = report_stats(reports, &R::pin_seconds);
              row["unpin"] = report_stats(reports, &R::unpin_seconds);
              row["prepass"] = report_stats(reports, &R::prepass_seconds);
              row["sweep"] = report_stats(reports, &R::sweep_seconds);
              row["host_corrections"] = report_stats(reports, &R::host_correction_seconds);
              row["total"] = report_stats(reports, &R::total_seconds);
              row["bytes_to_device"] = last.bytes_to_device;
              row["bytes_to_host"] = last.bytes_to_host;
              row["prepass_planes"] = last.prepass_planes;
              row["corrected_planes"] = last.corrected_planes;
              row["slabs"] = last.slabs;
              row["slab_planes"] = last.slab_planes;
              row["buffers"] = last.buffers;
              row["host_memory"] = last.host_memory;
              row["accuracy"] = check(v, work.data());
              if (!link) link = measure_link();
              const double bytes = static_cast<double>(shape.values()) * sizeof(float);
              const double bound = bytes / link->h2d + bytes / link->d2h;
              row["h2d_bytes_per_second"] = link->h2d;
              row["d2h_bytes_per_second"] = link->d2h;
              row["volume_bytes"] = bytes;
              row["bound_seconds"] = bound;
              // Both directions at once, where the link carries them in parallel.
              row["duplex_bound_seconds"] = std::max(bytes / link->h2d, bytes / link->d2h);
              row["total_over_bound"] = median_of(reports, &R::total_seconds) / bound;
              row["sweep_over_bound"] = median_of(reports, &R::sweep_seconds) / bound;
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
