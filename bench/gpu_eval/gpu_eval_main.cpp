// gpu_eval_bench: the standalone GPU measurements behind the gpu_naive / gpu_texture
// acceptance numbers, written as one JSON file:
//   eval3d     3-D 256^3 f32 coefficients, 16 777 216 uniform random in-range queries,
//              and the same queries sorted by grid cell; evaluate kernel only (CUDA
//              events), hot (repeated) and cold (L2 flushed before each run);
//              accuracy vs the double oracle on a subset; sector traffic per query;
//              gpu_texture_binned (binning included) reported as its own rows; the
//              random case again under each L2 fetch granularity (32/64/128 bytes,
//              restored afterwards).
//   grid_sweep 3-D random queries on grids from 64^3 to 256^3 (L2-resident or not).
//   thesis4d   the thesis' 4-D rows (16^4/16^4, 32^4/32^4, 64^4/64^4, 64^4/64^3, 64^4/64^2).
//   prefilter  gpu_naive's step prefilter of 512^3 f32, per axis, next to a
//              device-to-device copy of the same buffer in the same run.
//   phases     both implementations through the Implementation interface (upload,
//              prefilter, bind, query_upload, evaluate, download): GPU time with and
//              without transfers.
//   bandwidth  L2-resident and DRAM read bandwidth of this GPU (the bounds the random
//              gathers are compared with).
// Every timed input is fresh random data (never zeros); outputs are poisoned (NaN)
// before the runs and every element is checked to be written.
//
// Usage: gpu_eval_bench --out FILE.json [--git-sha SHA] [--reps N] [--quick] [--profile]
//   --quick    small sizes (smoke test of the benchmark itself)
//   --profile  one run per evaluate case, nothing else (for an external profiler)
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bandwidth_probe.hpp"
#include "bench_timing.hpp"
#include "footprint_sectors.hpp"
#include "gpu_common/cuda_check.hpp"
#include "gpu_common/device_buffer.hpp"
#include "gpu_common/evaluate_global.hpp"
#include "gpu_common/event_chain.hpp"
#include "gpu_common/prefilter_step.hpp"
#include "gpu_texture/query_binner.hpp"
#include "gpu_common/texture_field.hpp"
#include "splinebench/oracle_batch.hpp"
#include "splinebench/datasets.hpp"
#include "splinebench/error.hpp"
#include "splinebench/registry.hpp"

namespace splinebench::bench {
namespace {

using json = nlohmann::json;
using gpu::DeviceBuffer;

struct Config {
  std::string out;
  std::string git_sha = "unknown";
  int reps = 15;
  int warmups = 3;
  bool quick = false;
  bool profile = false;
};

void log(const std::string& msg) {
  std::cerr << "[gpu_eval] " << msg << std::endl;
}

template <typename T>
DeviceBuffer<T> upload(const std::vector<T>& host, cudaStream_t stream) {
  DeviceBuffer<T> d(host.size());
  SB_CUDA_CHECK(cudaMemcpyAsync(d.data(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, stream));
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return d;
}

template <typename T>
std::vector<T> download(const DeviceBuffer<T>& d, cudaStream_t stream) {
  std::vector<T> host(d.size());
  SB_CUDA_CHECK(cudaMemcpyAsync(host.data(), d.data(), d.size() * sizeof(T), cudaMemcpyDeviceToHost, stream));
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

double max_abs(const std::vector<float>& v) {
  double m = 0;
  for (float x : v) m = std::max(m, static_cast<double>(std::abs(x)));
  return m;
}

json device_context(const Config& cfg) {
  int dev = 0;
  SB_CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  SB_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  auto attr = [dev](cudaDeviceAttr a) {
    int v = 0;
    SB_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, dev));
    return v;
  };
  int driver = 0, runtime = 0;
  SB_CUDA_CHECK(cudaDriverGetVersion(&driver));
  SB_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); };
  return {{"date", date},
          {"git_sha", cfg.git_sha},
          {"cuda_runtime", version(runtime)},
          {"cuda_driver", version(driver)},
          {"gpu",
           {{"name", prop.name},
            {"sm_count", attr(cudaDevAttrMultiProcessorCount)},
            {"l2_bytes", attr(cudaDevAttrL2CacheSize)},
            {"sm_clock_mhz", attr(cudaDevAttrClockRate) / 1000},
            {"mem_clock_mhz", attr(cudaDevAttrMemoryClockRate) / 1000},
            {"mem_bus_bits", attr(cudaDevAttrGlobalMemoryBusWidth)},
            {"global_mem_bytes", static_cast<double>(prop.totalGlobalMem)}}},
          {"timing",
           "CUDA events around the kernel(s) only; median of `reps` runs after warm-up; hot = repeated "
           "runs, cold = L2 overwritten (2x its size) before each run"}};
}

// One prepared 3-D or 4-D problem: device coefficients (step prefilter), the texture,
// and the double oracle's coefficients for accuracy checks.
struct Prepared {
  GridShape shape;
  Mode mode = Mode::mirror;
  std::vector<float> samples;
  std::vector<double> ref_coeffs;
  DeviceBuffer<float> d_coeffs;
  gpu::TextureField texture;
  double max_f = 0;
  double texture_bound = 0;  // hardware part of the texture error bound, relative to max|f|
};

void prepare_problem(Prepared& p, const GridShape& shape, Mode mode, std::uint64_t seed, cudaStream_t stream,
                     bool with_oracle) {
  p.shape = shape;
  p.mode = mode;
  p.samples = datasets::make_field(datasets::FieldKind::noise, shape, 1, seed);
  p.max_f = max_abs(p.samples);
  p.d_coeffs = upload(p.samples, stream);
  gpu::prefilter_step(shape, 1, mode, p.d_coeffs.data(), stream);
  p.texture.bind(shape, 1, mode, p.d_coeffs.data(), stream);
  const float dc = gpu::max_neighbour_difference(shape, 1, mode, p.d_coeffs.data(), stream);
  p.texture_bound = gpu::TextureField::interp_error_factor(shape, 1, mode) * dc / p.max_f;
  if (with_oracle) {
    p.ref_coeffs.assign(p.samples.begin(), p.samples.end());
    oracle::prefilter_f64(shape, 1, p.ref_coeffs.data(), mode);
  }
}

// Accuracy of `out` (all n values, C = 1) against the oracle on `subset` queries, and
// the count of values left unwritten (NaN) over all of them.
json accuracy(const Prepared& p, const std::vector<float>& coords, std::int64_t n, const std::vector<float>& out,
              std::int64_t subset) {
  std::vector<std::int64_t> ids;
  const std::int64_t step = std::max<std::int64_t>(1, n / subset);
  for (std::int64_t q = 0; q < n && static_cast<std::int64_t>(ids.size()) < subset; q += step) ids.push_back(q);
  std::vector<double> ref(ids.size());
  oracle::evaluate_subset_f64(p.shape, 1, p.ref_coeffs.data(), p.mode, coords.data(), n, ids, ref.data());
  double worst = 0, sq = 0;
  for (std::size_t j = 0; j < ids.size(); ++j) {
    const double e = std::abs(static_cast<double>(out[ids[j]]) - ref[j]);
    worst = std::isnan(e) ? INFINITY : std::max(worst, e);
    sq += e * e;
  }
  std::int64_t unwritten = 0;
  for (float v : out) unwritten += std::isnan(v);
  return {{"checked_queries", ids.size()},
          {"max_abs", worst},
          {"rms", std::sqrt(sq / static_cast<double>(ids.size()))},
          {"max_rel_to_maxf", worst / p.max_f},
          {"unwritten_values", unwritten}};
}

using Evaluate = std::function<void(const float* d_coords, std::int64_t n, float* d_out)>;

// Times one evaluation kernel hot and cold and checks its output.
json time_evaluate(const Config& cfg, const Prepared& p, const std::vector<float>& coords,
                   const DeviceBuffer<float>& d_coords, std::int64_t n, const Evaluate& evaluate, L2Flusher& flusher,
                   cudaStream_t stream, bool with_accuracy) {
  DeviceBuffer<float> d_out(static_cast<std::size_t>(n));
  SB_CUDA_CHECK(cudaMemsetAsync(d_out.data(), 0xFF, d_out.bytes(), stream));  // poison: NaN
  auto region = [&] { evaluate(d_coords.data(), n, d_out.data()); };
  json r;
  if (cfg.profile) {
    region();
    SB_CUDA_CHECK(cudaStreamSynchronize(stream));
    return r;
  }
  const Stats hot = time_region(stream, cfg.warmups, cfg.reps, region);
  const Stats cold = time_region(stream, 1, cfg.reps, region, [&] { flusher.flush(stream); });
  r["evaluate_hot"] = to_json(hot);
  r["evaluate_cold"] = to_json(cold);
  r["queries_per_s_hot"] = static_cast<double>(n) / hot.median;
  r["queries_per_s_cold"] = static_cast<double>(n) / cold.median;
  if (with_accuracy) r["accuracy"] = accuracy(p, coords, n, download(d_out, stream), 65536);
  return r;
}

// The evaluation kernels compared, by the name they are reported under.
std::vector<std::pair<std::string, Evaluate>> evaluators(Prepared& p, gpu::QueryBinner& binner, cudaStream_t stream,
                                                         bool all) {
  std::vector<std::pair<std::string, Evaluate>> list;
  list.emplace_back("gpu_naive", [&p, stream](const float* c, std::int64_t m, float* o) {
    gpu::evaluate_global(p.shape, 1, p.mode, p.d_coeffs.data(), c, m, o, stream);
  });
  list.emplace_back("gpu_texture",
                    [&p, stream](const float* c, std::int64_t m, float* o) { p.texture.evaluate(c, m, o, stream); });
  if (all)
    list.emplace_back("gpu_texture_binned", [&p, &binner, stream](const float* c, std::int64_t m, float* o) {
      binner.bin(p.shape, c, m, stream);
      p.texture.evaluate_records(binner.records(), m, o, stream);
    });
  return list;
}

json run_eval_cases(const Config& cfg, Prepared& p, const std::vector<std::pair<std::string, std::vector<float>>>&
                                                         patterns, std::int64_t n, L2Flusher& flusher,
                    cudaStream_t stream, double l2_bandwidth) {
  json cases = json::array();
  gpu::QueryBinner binner;
  for (const auto& [pattern, coords] : patterns) {
    const auto d_coords = upload(coords, stream);
    double sectors = 0;
    if (pattern == "uniform" && !cfg.profile) sectors = mean_sectors_per_query(p.shape, p.mode, coords, n, 200000);
    for (const auto& [impl, fn] : evaluators(p, binner, stream, true)) {
      log("evaluate " + impl + " " + p.shape.to_string() + " " + pattern + " n=" + std::to_string(n));
      json r = time_evaluate(cfg, p, coords, d_coords, n, fn, flusher, stream, !cfg.profile);
      r["impl"] = impl;
      r["grid"] = p.shape.to_string();
      r["dims"] = p.shape.dims;
      r["mode"] = std::string(to_string(p.mode));
      r["data"] = "noise";
      r["queries"] = n;
      r["pattern"] = pattern;
      if (impl.rfind("gpu_texture", 0) == 0 && !cfg.profile) r["texture_error_bound_rel_to_maxf"] = p.texture_bound;
      if (impl == "gpu_texture_binned") r["binning"] = {{"brick_edge_cells", 1 << binner.brick_shift()},
                                                          {"key_bits", binner.key_bits()},
                                                          {"note", "binning (keys + radix sort) inside the timed region"}};
      if (sectors > 0 && impl == "gpu_naive" && !cfg.profile) {
        // Random queries share no sectors: each pulls its own footprint through L2.
        const double bytes = sectors * 32.0;
        const double bound_s = static_cast<double>(n) * bytes / l2_bandwidth;
        r["l2_traffic"] = {{"sectors_per_query", sectors},
                           {"bytes_per_query", bytes},
                           {"l2_read_bandwidth_Bps", l2_bandwidth},
                           {"l2_bound_s", bound_s},
                           {"bound_over_measured_hot", bound_s / r["evaluate_hot"]["median"].get<double>()},
                           {"basis", "distinct 32-byte sectors of the 4^D taps in the C-order layout, counted "
                                     "on the host for 200000 of these queries"}};
      }
      cases.push_back(r);
    }
  }
  return cases;
}

json section_eval3d(const Config& cfg, L2Flusher& flusher, cudaStream_t stream, double l2_bw) {
  const std::int64_t N = cfg.quick ? 64 : 256;
  const std::int64_t n = cfg.quick ? (1 << 20) : 16777216;
  const GridShape shape = GridShape::make({N, N, N});
  log("eval3d: preparing " + shape.to_string());
  Prepared p;
  prepare_problem(p, shape, Mode::mirror, 301, stream, !cfg.profile);
  std::vector<std::pair<std::string, std::vector<float>>> patterns;
  patterns.emplace_back("uniform", datasets::make_queries(datasets::QueryPattern::uniform, shape, n, 302));
  patterns.emplace_back("sorted", datasets::make_queries(datasets::QueryPattern::sorted, shape, n, 302));
  json result;
  result["cases"] = run_eval_cases(cfg, p, patterns, n, flusher, stream, l2_bw);
  if (cfg.profile) return result;

  // The random case under each L2 fetch granularity (a per-process limit; restored).
  log("eval3d: L2 fetch granularity");
  std::size_t original = 0;
  SB_CUDA_CHECK(cudaDeviceGetLimit(&original, cudaLimitMaxL2FetchGranularity));
  result["l2_fetch_granularity_default"] = original;
  const auto d_coords = upload(patterns[0].second, stream);
  DeviceBuffer<float> d_out(static_cast<std::size_t>(n));
  gpu::QueryBinner binner;
  for (std::size_t bytes : {32, 64, 128}) {
    SB_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, bytes));
    std::size_t actual = 0;
    SB_CUDA_CHECK(cudaDeviceGetLimit(&actual, cudaLimitMaxL2FetchGranularity));
    for (const auto& [impl, fn] : evaluators(p, binner, stream, false)) {
      const Stats s = time_region(stream, cfg.warmups, cfg.reps, [&] { fn(d_coords.data(), n, d_out.data()); });
      result["l2_fetch_granularity"].push_back({{"requested_bytes", bytes},
                                                {"limit_bytes", actual},
                                                {"impl", impl},
                                                {"pattern", "uniform"},
                                                {"evaluate_hot", to_json(s)},
                                                {"queries_per_s_hot", static_cast<double>(n) / s.median}});
    }
  }
  SB_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, original));
  return result;
}

// Random 3-D queries on grids from L2-resident to larger than L2.
json section_grid_sweep(const Config& cfg, cudaStream_t stream) {
  const std::int64_t n = cfg.quick ? (1 << 20) : 16777216;
  json cases = json::array();
  gpu::QueryBinner binner;
  for (std::int64_t N : {64, 128, 160, 192, 224, 256}) {
    const GridShape shape = GridShape::make({N, N, N});
    log("grid sweep " + shape.to_string());
    Prepared p;
    prepare_problem(p, shape, Mode::mirror, 800 + static_cast<std::uint64_t>(N), stream, false);
    const auto coords = datasets::make_queries(datasets::QueryPattern::uniform, shape, n, 900);
    const auto d_coords = upload(coords, stream);
    DeviceBuffer<float> d_out(static_cast<std::size_t>(n));
    for (const auto& [impl, fn] : evaluators(p, binner, stream, true)) {
      const Stats s = time_region(stream, cfg.warmups, 9, [&] { fn(d_coords.data(), n, d_out.data()); });
      cases.push_back({{"impl", impl},
                       {"grid", shape.to_string()},
                       {"grid_bytes", static_cast<double>(shape.values() * sizeof(float))},
                       {"queries", n},
                       {"pattern", "uniform"},
                       {"evaluate_hot", to_json(s)},
                       {"queries_per_s_hot", static_cast<double>(n) / s.median}});
    }
  }
  return cases;
}

json section_thesis4d(const Config& cfg, L2Flusher& flusher, cudaStream_t stream, double l2_bw) {
  // Thesis Table 1: grid edge and query count (queries = edge^k).
  const std::vector<std::pair<std::int64_t, std::int64_t>> rows =
      cfg.quick ? std::vector<std::pair<std::int64_t, std::int64_t>>{{16, 65536}, {32, 32768}}
                : std::vector<std::pair<std::int64_t, std::int64_t>>{
                      {16, 65536}, {32, 1048576}, {64, 16777216}, {64, 262144}, {64, 4096}};
  json cases = json::array();
  std::int64_t prepared_edge = 0;
  std::unique_ptr<Prepared> prepared;
  for (const auto& [edge, n] : rows) {
    const GridShape shape = GridShape::make({edge, edge, edge, edge});
    if (edge != prepared_edge) {
      log("thesis4d: preparing " + shape.to_string());
      prepared.reset();  // free the previous grid first
      prepared = std::make_unique<Prepared>();
      prepare_problem(*prepared, shape, Mode::mirror, 400 + static_cast<std::uint64_t>(edge), stream, !cfg.profile);
      prepared_edge = edge;
    }
    Prepared& p = *prepared;
    std::vector<std::pair<std::string, std::vector<float>>> patterns;
    patterns.emplace_back("uniform",
                          datasets::make_queries(datasets::QueryPattern::uniform, shape, n, 500 + static_cast<std::uint64_t>(n)));
    for (auto& r : run_eval_cases(cfg, p, patterns, n, flusher, stream, l2_bw)) cases.push_back(r);
  }
  return cases;
}

json section_prefilter(const Config& cfg, cudaStream_t stream) {
  const std::int64_t N = cfg.quick ? 128 : 512;
  const GridShape shape = GridShape::make({N, N, N});
  const Mode mode = Mode::mirror;
  log("prefilter: " + shape.to_string());
  const auto samples = datasets::make_field(datasets::FieldKind::noise, shape, 1, 601);
  const auto d_src = upload(samples, stream);
  DeviceBuffer<float> d_work(samples.size());
  const std::size_t bytes = samples.size() * sizeof(float);
  gpu::EventChain chain(4);
  std::vector<std::vector<double>> axis_samples(3);
  std::vector<double> total_samples;
  for (int rep = 0; rep < cfg.warmups + cfg.reps; ++rep) {
    SB_CUDA_CHECK(cudaMemcpyAsync(d_work.data(), d_src.data(), bytes, cudaMemcpyDeviceToDevice, stream));
    chain.record(0, stream);
    for (int axis = 0; axis < 3; ++axis) {
      gpu::prefilter_axis_step(shape, 1, mode, d_work.data(), axis, stream);
      chain.record(axis + 1, stream);
    }
    if (rep < cfg.warmups) {
      SB_CUDA_CHECK(cudaStreamSynchronize(stream));
      continue;
    }
    for (int axis = 0; axis < 3; ++axis) axis_samples[axis].push_back(chain.seconds(axis, axis + 1));
    total_samples.push_back(chain.seconds(0, 3));
  }
  DeviceBuffer<float> d_copy(samples.size());
  const Stats copy = time_region(stream, cfg.warmups, cfg.reps, [&] {
    SB_CUDA_CHECK(cudaMemcpyAsync(d_copy.data(), d_src.data(), bytes, cudaMemcpyDeviceToDevice, stream));
  });
  json r;
  r["impl"] = "gpu_naive";
  r["grid"] = shape.to_string();
  r["mode"] = std::string(to_string(mode));
  r["data"] = "noise";
  r["bytes"] = static_cast<double>(bytes);
  for (int axis = 0; axis < 3; ++axis) {
    const Stats s = summarise(axis_samples[axis]);
    r["axes"].push_back({{"axis", axis},
                         {"stride_floats", shape.stride(axis)},
                         {"time", to_json(s)},
                         {"GBps_2x_bytes", 2.0 * bytes / s.median / 1e9}});
  }
  const Stats total = summarise(total_samples);
  r["total"] = to_json(total);
  r["samples_per_s"] = static_cast<double>(shape.points()) / total.median;
  r["d2d_copy_same_buffer"] = to_json(copy);
  r["d2d_copy_GBps_2x_bytes"] = 2.0 * bytes / copy.median / 1e9;
  r["axis_note"] = "axis 0 is the outermost (stride N^2), axis 2 the contiguous one (stride 1)";
  // Accuracy of the last run's coefficients against the oracle.
  log("prefilter: oracle check");
  const auto coeffs = download(d_work, stream);
  std::vector<double> ref(samples.begin(), samples.end());
  oracle::prefilter_f64(shape, 1, ref.data(), mode);
  long double num = 0, den = 0;
  double worst = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double d = static_cast<double>(coeffs[i]) - ref[i];
    num += static_cast<long double>(d) * d;
    den += static_cast<long double>(ref[i]) * ref[i];
    worst = std::isnan(d) ? INFINITY : std::max(worst, std::abs(d));
  }
  r["accuracy"] = {{"rel_l2", static_cast<double>(std::sqrt(num / den))}, {"max_abs", worst}};
  return r;
}

json section_phases(const Config& cfg) {
  const std::int64_t N = cfg.quick ? 64 : 256;
  const std::int64_t n = cfg.quick ? (1 << 20) : 16777216;
  const GridShape shape = GridShape::make({N, N, N});
  const auto samples = datasets::make_field(datasets::FieldKind::noise, shape, 1, 701);
  const auto coords = datasets::make_queries(datasets::QueryPattern::uniform, shape, n, 702);
  std::vector<float> out(static_cast<std::size_t>(n));
  json cases = json::array();
  for (const char* name : {"gpu_naive", "gpu_texture", "gpu_texture_binned"}) {
    log(std::string("phases: ") + name);
    auto impl = make_implementation(name);
    std::map<std::string, std::vector<double>> phases;
    const int reps = std::max(5, cfg.reps / 3);
    for (int rep = 0; rep < 1 + reps; ++rep) {
      PhaseTimes t;
      impl->prepare(shape, 1, samples.data(), Mode::mirror, true, t);
      impl->evaluate(coords.data(), n, out.data(), t);
      if (rep == 0) continue;  // warm-up
      for (const auto& [ph, s] : t.entries()) phases[ph].push_back(s);
    }
    std::int64_t unwritten = 0;
    for (float v : out) unwritten += std::isnan(v);
    json r{{"impl", name}, {"grid", shape.to_string()}, {"queries", n}, {"pattern", "uniform"}, {"repetitions", reps}};
    double device_total = 0;
    for (const auto& [ph, s] : phases) {
      const Stats st = summarise(s);
      r["phases"][ph] = to_json(st);
      if (ph != "host_staging" && ph != "bound_stats" && ph.rfind("prefilter_axis", 0) != 0) device_total += st.median;
    }
    r["gpu_time_with_transfers_s"] = device_total;
    r["gpu_time_without_transfers_s"] =
        device_total - r["phases"]["upload"]["median"].get<double>() - r["phases"]["query_upload"]["median"].get<double>() -
        r["phases"]["download"]["median"].get<double>();
    r["unwritten_values"] = unwritten;
    r["note"] = "medians per phase; with transfers = upload + prefilter + bind + query_upload + evaluate + download "
                "(pinned buffers); host_staging (pageable <-> pinned memcpy) and bound_stats are listed apart";
    cases.push_back(r);
    impl->release();
  }
  return cases;
}

void write_json(const json& doc, const std::string& path) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    f << doc.dump(1) << '\n';
    if (!f) throw Error("cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path);
}

int run(const Config& cfg) {
  const std::string reason = gpu::cuda_unavailable_reason();
  if (!reason.empty()) throw Error("gpu_eval_bench: " + reason);
  cudaStream_t stream;
  SB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  json doc;
  doc["schema"] = "splinebench-gpu-eval";
  doc["schema_version"] = 1;
  doc["context"] = device_context(cfg);
  doc["context"]["reps"] = cfg.reps;
  doc["context"]["warmups"] = cfg.warmups;
  doc["context"]["quick"] = cfg.quick;
  const auto l2 = static_cast<std::size_t>(doc["context"]["gpu"]["l2_bytes"].get<int>());
  L2Flusher flusher(2 * l2);
  double l2_bw = 0;
  if (!cfg.profile) {
    log("bandwidth probes");
    l2_bw = read_bandwidth(l2 / 4, 64, 9, stream);
    const double dram_bw = read_bandwidth(std::size_t{2} << 30, 1, 9, stream);
    doc["bandwidth"] = {{"l2_read_Bps", l2_bw},
                        {"dram_read_Bps", dram_bw},
                        {"l2_probe", "coalesced 16-byte __ldcg loads over L2/4 bytes, 64 passes per launch"},
                        {"dram_probe", "coalesced 16-byte __ldcg loads over 2 GiB, one pass"}};
  }
  // Each section on its own: a failing one is recorded with its message and the
  // others still run; the file is rewritten (atomically) after every section, so an
  // interrupted run keeps what it finished.
  int failures = 0;
  auto section = [&](const char* name, const std::function<json()>& body) {
    try {
      doc[name] = body();
    } catch (const std::exception& e) {
      log(std::string(name) + " failed: " + e.what());
      doc[name] = {{"error", e.what()}};
      ++failures;
    }
    write_json(doc, cfg.out);
  };
  section("eval3d", [&] { return section_eval3d(cfg, flusher, stream, l2_bw); });
  section("thesis4d", [&] { return section_thesis4d(cfg, flusher, stream, l2_bw); });
  if (!cfg.profile) {
    section("grid_sweep", [&] { return section_grid_sweep(cfg, stream); });
    section("prefilter", [&] { return section_prefilter(cfg, stream); });
    section("phases", [&] { return section_phases(cfg); });
  }
  SB_CUDA_CHECK(cudaStreamDestroy(stream));
  log("wrote " + cfg.out);
  return failures ? 1 : 0;
}

}  // namespace
}  // namespace splinebench::bench

int main(int argc, char** argv) {
  splinebench::bench::Config cfg;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "gpu_eval_bench: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--out") cfg.out = value();
    else if (a == "--git-sha") cfg.git_sha = value();
    else if (a == "--reps") cfg.reps = std::stoi(value());
    else if (a == "--quick") cfg.quick = true;
    else if (a == "--profile") cfg.profile = true;
    else {
      std::cerr << "gpu_eval_bench: unknown argument '" << a
                << "'\nusage: gpu_eval_bench --out FILE.json [--git-sha SHA] [--reps N] [--quick] [--profile]\n";
      return 2;
    }
  }
  if (cfg.out.empty()) {
    std::cerr << "gpu_eval_bench: --out FILE.json is required\n";
    return 2;
  }
  if (cfg.reps < 9) {
    std::cerr << "gpu_eval_bench: --reps must be >= 9 (medians for the U-test)\n";
    return 2;
  }
  try {
    return splinebench::bench::run(cfg);
  } catch (const std::exception& e) {
    std::cerr << "gpu_eval_bench: " << e.what() << '\n';
    return 1;
  }
}
