// gpu_eval_bench: the standalone GPU measurements behind the gpu_naive / gpu_texture /
// gpu_half numbers, as benchmarks with declared axes (bench/gpu_bench_common) in one JSON file
// (schema in README.md):
//   bandwidth             probe: L2-resident and DRAM read bandwidth of this GPU (the
//                         bounds the random gathers are compared with).
//   eval3d                pattern x impl: 3-D 256^3 f32 coefficients, 16 777 216 uniform
//                         random in-range queries and the same queries sorted by cell;
//                         evaluate kernel only, hot and cold; accuracy vs the double
//                         oracle on a subset; sector traffic per query; gpu_texture_binned
//                         with its binning inside the timed region; gpu_half_f16/bf16
//                         (the same coefficients stored as f16/bf16, global loads).
//   l2_fetch_granularity  bytes x impl: the random case under each L2 fetch granularity
//                         (32/64/128 bytes, restored afterwards).
//   thesis4d              case x impl: the thesis' 4-D rows (16^4/16^4, 32^4/32^4,
//                         64^4/64^4, 64^4/64^3, 64^4/64^2).
//   grid_sweep            edge x impl: 3-D random queries on grids from 64^3 to 256^3
//                         (L2-resident or not).
//   prefilter             gpu_naive's step prefilter of 512^3 f32, per axis, next to a
//                         device-to-device copy of the same buffer in the same run.
//   phases                impl: each implementation through the Implementation interface
//                         (upload, prefilter, bind, query_upload, evaluate, download): GPU
//                         time with and without transfers.
// Every timed input is fresh random data (never zeros); outputs are poisoned (NaN)
// before the runs and every element is checked to be written.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "footprint_sectors.hpp"
#include "gpu_bench_common/benchmark.hpp"
#include "gpu_bench_common/gpu_timer.hpp"
#include "gpu_common/evaluate_global.hpp"
#include "gpu_common/event_chain.hpp"
#include "gpu_common/prefilter_step.hpp"
#include "gpu_common/texture_field.hpp"
#include "gpu_half/half_storage.hpp"
#include "gpu_half/half_tolerance.hpp"
#include "gpu_texture/query_binner.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/cuda/device_buffer.hpp"
#include "splinebench/datasets.hpp"
#include "splinebench/error.hpp"
#include "splinebench/oracle_batch.hpp"
#include "splinebench/registry.hpp"

namespace splinebench::bench {
namespace {

using json = nlohmann::json;
using gpu::DeviceBuffer;

constexpr const char* kSchema = "splinebench-gpu-eval";
constexpr int kSchemaVersion = 2;
}  // namespace

// The benchmarks of this program, in the order they run.
const std::string kBenchmarkNames[] = {"bandwidth", "eval3d",  "l2_fetch_granularity", "thesis4d",
                                       "grid_sweep", "prefilter", "phases"};

namespace {

struct Config {
  std::string out;
  std::string git_sha;
  std::string machine;
  std::vector<std::string> only;  // benchmark names; empty: all
  TimingSettings timing;
  bool quick = false;
  bool profile = false;
};

void log(const std::string& msg) { std::cerr << "[gpu_eval] " << msg << std::endl; }

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

// One prepared problem: device coefficients (step prefilter), the texture, and the
// double oracle's coefficients for accuracy checks.
struct Prepared {
  GridShape shape;
  Mode mode = Mode::mirror;
  std::vector<float> samples;
  std::vector<double> ref_coeffs;
  DeviceBuffer<float> d_coeffs;
  DeviceBuffer<__half> d_f16;          // the coefficients stored as gpu_half_f16 stores them
  DeviceBuffer<__nv_bfloat16> d_bf16;  // ... and as gpu_half_bf16
  gpu::TextureField texture;
  double max_f = 0;
  double max_c = 0;
  double texture_bound = 0;  // hardware part of the texture error bound, relative to max|f|
};

std::unique_ptr<Prepared> prepare_problem(const GridShape& shape, Mode mode, std::uint64_t seed, cudaStream_t stream,
                                          bool with_oracle) {
  log("preparing " + shape.to_string());
  auto p = std::make_unique<Prepared>();
  p->shape = shape;
  p->mode = mode;
  p->samples = datasets::make_field(datasets::FieldKind::noise, shape, 1, seed);
  p->max_f = max_abs(p->samples);
  p->d_coeffs = upload(p->samples, stream);
  gpu::prefilter_step(shape, 1, mode, p->d_coeffs.data(), stream);
  p->texture.bind(shape, 1, mode, p->d_coeffs.data(), stream);
  const float dc = gpu::max_neighbour_difference(shape, 1, mode, p->d_coeffs.data(), stream);
  p->texture_bound = gpu::TextureField::interp_error_factor(shape, 1, mode) * dc / p->max_f;
  const std::int64_t count = shape.values();
  p->max_c = gpu::field_magnitudes(p->d_coeffs.data(), 1, count, stream).max_abs[0];
  p->d_f16.resize(static_cast<std::size_t>(count));
  p->d_bf16.resize(static_cast<std::size_t>(count));
  gpu::store_reduced(p->d_coeffs.data(), p->d_f16.data(), count, stream);
  gpu::store_reduced(p->d_coeffs.data(), p->d_bf16.data(), count, stream);
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (with_oracle) {
    p->ref_coeffs.assign(p->samples.begin(), p->samples.end());
    oracle::prefilter_f64(shape, 1, p->ref_coeffs.data(), mode);
  }
  return p;
}

// A query set on the device, with the sector count of gpu_naive's taps for it.
struct Queries {
  std::vector<float> coords;
  DeviceBuffer<float> d_coords;
  std::int64_t n = 0;
  double sectors = 0;  // mean distinct 32-byte sectors per query (uniform pattern only)
};

std::unique_ptr<Queries> make_queries(const GridShape& shape, datasets::QueryPattern pattern, std::int64_t n,
                                      std::uint64_t seed, cudaStream_t stream, bool count_sectors, Mode mode) {
  auto q = std::make_unique<Queries>();
  q->n = n;
  q->coords = datasets::make_queries(pattern, shape, n, seed);
  q->d_coords = upload(q->coords, stream);
  if (count_sectors) q->sectors = mean_sectors_per_query(shape, mode, q->coords, n, 200000);
  return q;
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

// The evaluation kernel an implementation name stands for, on prepared coefficients.
Region evaluator(const std::string& impl, Prepared& p, gpu::QueryBinner& binner, const Queries& q, float* d_out,
                 cudaStream_t stream) {
  const float* c = q.d_coords.data();
  const std::int64_t n = q.n;
  if (impl == "gpu_naive")
    return [&p, c, n, d_out, stream] {
      gpu::evaluate_global(p.shape, 1, p.mode, p.d_coeffs.data(), c, n, d_out, stream);
    };
  if (impl == "gpu_half_f16")
    return [&p, c, n, d_out, stream] {
      gpu::evaluate_global(p.shape, 1, p.mode, p.d_f16.data(), c, n, d_out, stream);
    };
  if (impl == "gpu_half_bf16")
    return [&p, c, n, d_out, stream] {
      gpu::evaluate_global(p.shape, 1, p.mode, p.d_bf16.data(), c, n, d_out, stream);
    };
  if (impl == "gpu_texture") return [&p, c, n, d_out, stream] { p.texture.evaluate(c, n, d_out, stream); };
  if (impl == "gpu_texture_binned")
    return [&p, &binner, c, n, d_out, stream] {
      binner.bin(p.shape, c, n, stream);
      p.texture.evaluate_records(binner.records(), n, d_out, stream);
    };
  throw Error("gpu_eval: unknown evaluator '" + impl + "'");
}

const std::vector<json> kAllEvaluators = {"gpu_naive", "gpu_texture", "gpu_texture_binned", "gpu_half_f16",
                                          "gpu_half_bf16"};

// Shared by the benchmarks of one run: the timer, the set-ups kept between points, and
// the L2 bandwidth measured by the first benchmark.
struct Run {
  const Config& cfg;
  GpuTimer& timer;
  gpu::QueryBinner binner;
  Kept<Prepared> prepared;
  Kept<Queries> queries;
  double l2_bandwidth = 0;
  cudaStream_t stream() const { return timer.stream(); }
};

// Times one evaluation hot and cold into `row` and checks its output.
void time_evaluate(Run& run, State& state, Prepared& p, const Queries& q) {
  const std::string impl = state.string("impl");
  json& r = state.row();
  DeviceBuffer<float> d_out(static_cast<std::size_t>(q.n));
  SB_CUDA_CHECK(cudaMemsetAsync(d_out.data(), 0xFF, d_out.bytes(), run.stream()));  // poison: NaN
  const Region region = evaluator(impl, p, run.binner, q, d_out.data(), run.stream());
  r["grid"] = p.shape.to_string();
  r["dims"] = p.shape.dims;
  r["mode"] = std::string(to_string(p.mode));
  r["data"] = "noise";
  r["queries"] = q.n;
  if (run.cfg.profile) {  // one run for an external profiler, nothing else
    region();
    SB_CUDA_CHECK(cudaStreamSynchronize(run.stream()));
    return;
  }
  const Measurement hot = run.timer.measure(region, L2State::hot);
  const Measurement cold = run.timer.measure(region, L2State::cold, 1, run.timer.settings().repetitions);
  r["evaluate_hot"] = to_json(hot);
  r["evaluate_cold"] = to_json(cold);
  r["queries_per_s_hot"] = static_cast<double>(q.n) / hot.gpu.median;
  r["queries_per_s_cold"] = static_cast<double>(q.n) / cold.gpu.median;
  r["accuracy"] = accuracy(p, q.coords, q.n, download(d_out, run.stream()), 65536);
  if (impl.rfind("gpu_texture", 0) == 0) {
    r["texture_error_bound_rel_to_maxf"] = p.texture_bound;
    r["texture_layout"] = gpu::describe(p.texture.layout());
  }
  if (impl.rfind("gpu_half_", 0) == 0) {
    const gpu::StorageFormat fmt = impl == "gpu_half_f16" ? gpu::f16_format() : gpu::bf16_format();
    r["storage_error_bound_rel_to_maxf"] = (fmt.unit_roundoff * p.max_c + fmt.subnormal_error) / p.max_f;
    r["storage"] = fmt.name + " coefficients (" + std::to_string(p.shape.values() * 2) + " bytes), f32 taps";
  }
  if (impl == "gpu_texture_binned")
    r["binning"] = {{"brick_edge_cells", 1 << run.binner.brick_shift()},
                    {"key_bits", run.binner.key_bits()},
                    {"note", "binning (keys + radix sort) inside the timed region"}};
  if (q.sectors > 0 && impl == "gpu_naive") {
    // Random queries share no sectors: each pulls its own footprint through L2.
    const double bytes = q.sectors * 32.0;
    const double bound_s = static_cast<double>(q.n) * bytes / run.l2_bandwidth;
    r["l2_traffic"] = {{"sectors_per_query", q.sectors},
                       {"bytes_per_query", bytes},
                       {"l2_read_bandwidth_Bps", run.l2_bandwidth},
                       {"l2_bound_s", bound_s},
                       {"bound_over_measured_hot", bound_s / hot.gpu.median},
                       {"basis", "distinct 32-byte sectors of the 4^D taps in the C-order layout, counted on the "
                                 "host for 200000 of these queries"}};
  }
}

std::int64_t eval3d_edge(const Config& cfg) { return cfg.quick ? 64 : 256; }
std::int64_t big_query_count(const Config& cfg) { return cfg.quick ? (1 << 20) : 16777216; }

Prepared& eval3d_problem(Run& run) {
  const std::int64_t N = eval3d_edge(run.cfg);
  const GridShape shape = GridShape::make({N, N, N});
  return run.prepared.get({"eval3d", N}, [&] {
    return prepare_problem(shape, Mode::mirror, 301, run.stream(), !run.cfg.profile);
  });
}

const Queries& eval3d_queries(Run& run, const std::string& pattern) {
  const Prepared& p = eval3d_problem(run);
  return run.queries.get({"eval3d", pattern}, [&] {
    const auto kind = pattern == "sorted" ? datasets::QueryPattern::sorted : datasets::QueryPattern::uniform;
    return make_queries(p.shape, kind, big_query_count(run.cfg), 302, run.stream(),
                        pattern == "uniform" && !run.cfg.profile, p.mode);
  });
}

Benchmark bandwidth(Run& run) {
  return {"bandwidth",
          "read bandwidth of this GPU: coalesced 16-byte __ldcg loads; l2: over L2/4 bytes, 64 passes per launch; "
          "dram: over 2 GiB, one pass",
          {{"probe", {"l2", "dram"}}},
          [&run](State& s) {
            int dev = 0, l2 = 0;
            SB_CUDA_CHECK(cudaGetDevice(&dev));
            SB_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
            const bool l2_probe = s.string("probe") == "l2";
            const double bw = l2_probe ? read_bandwidth(run.timer, static_cast<std::size_t>(l2) / 4, 64)
                                       : read_bandwidth(run.timer, std::size_t{2} << 30, 1);
            if (l2_probe) run.l2_bandwidth = bw;
            s.row()["read_Bps"] = bw;
          }};
}

Benchmark eval3d(Run& run) {
  return {"eval3d",
          "3-D grid of noise (256^3, mirror), 16.7 M queries uniform in range or the same sorted by cell; the "
          "evaluation kernel alone, hot and cold",
          {{"pattern", {"uniform", "sorted"}}, {"impl", kAllEvaluators}},
          [&run](State& s) {
            const Queries& q = eval3d_queries(run, s.string("pattern"));
            log("eval3d " + s.point().dump());
            time_evaluate(run, s, eval3d_problem(run), q);
          }};
}

// Restores the L2 fetch granularity limit when a point ends, even by an exception.
class FetchGranularity {
 public:
  explicit FetchGranularity(std::size_t bytes) {
    SB_CUDA_CHECK(cudaDeviceGetLimit(&original_, cudaLimitMaxL2FetchGranularity));
    SB_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, bytes));
    SB_CUDA_CHECK(cudaDeviceGetLimit(&actual_, cudaLimitMaxL2FetchGranularity));
  }
  ~FetchGranularity() { cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, original_); }
  std::size_t original() const { return original_; }
  std::size_t actual() const { return actual_; }

 private:
  std::size_t original_ = 0, actual_ = 0;
};

Benchmark l2_fetch_granularity(Run& run) {
  return {"l2_fetch_granularity",
          "eval3d's uniform case (hot) under each L2 fetch granularity (a per-process limit, restored after each "
          "point)",
          {{"bytes", {32, 64, 128}}, {"impl", {"gpu_naive", "gpu_texture"}}},
          [&run](State& s) {
            Prepared& p = eval3d_problem(run);
            const Queries& q = eval3d_queries(run, "uniform");
            DeviceBuffer<float> d_out(static_cast<std::size_t>(q.n));
            const Region region = evaluator(s.string("impl"), p, run.binner, q, d_out.data(), run.stream());
            const FetchGranularity limit(static_cast<std::size_t>(s.int64("bytes")));
            const Measurement m = run.timer.measure(region);
            s.row()["limit_bytes"] = limit.actual();
            s.row()["default_limit_bytes"] = limit.original();
            s.row()["pattern"] = "uniform";
            s.row()["queries"] = q.n;
            s.row()["evaluate_hot"] = to_json(m);
            s.row()["queries_per_s_hot"] = static_cast<double>(q.n) / m.gpu.median;
          }};
}

Benchmark thesis4d(Run& run) {
  // Thesis Table 1: grid edge and query count (queries = edge^k).
  std::vector<json> cases;
  const std::vector<std::pair<std::int64_t, std::int64_t>> rows =
      run.cfg.quick ? std::vector<std::pair<std::int64_t, std::int64_t>>{{16, 65536}, {32, 32768}}
                    : std::vector<std::pair<std::int64_t, std::int64_t>>{
                          {16, 65536}, {32, 1048576}, {64, 16777216}, {64, 262144}, {64, 4096}};
  for (const auto& [edge, n] : rows) cases.push_back({{"edge", edge}, {"queries", n}});
  return {"thesis4d",
          "the thesis' 4-D rows: edge^4 grid of noise (mirror), uniform queries; the evaluation kernel alone, hot "
          "and cold",
          {{"case", cases}, {"impl", kAllEvaluators}},
          [&run](State& s) {
            const std::int64_t edge = s.axis("case")["edge"].get<std::int64_t>();
            const std::int64_t n = s.axis("case")["queries"].get<std::int64_t>();
            const GridShape shape = GridShape::make({edge, edge, edge, edge});
            Prepared& p = run.prepared.get({"thesis4d", edge}, [&] {
              return prepare_problem(shape, Mode::mirror, 400 + static_cast<std::uint64_t>(edge), run.stream(),
                                     !run.cfg.profile);
            });
            const Queries& q = run.queries.get({"thesis4d", edge, n}, [&] {
              return make_queries(shape, datasets::QueryPattern::uniform, n, 500 + static_cast<std::uint64_t>(n),
                                  run.stream(), !run.cfg.profile, Mode::mirror);
            });
            log("thesis4d " + s.point().dump());
            s.row()["pattern"] = "uniform";
            time_evaluate(run, s, p, q);
          }};
}

Benchmark grid_sweep(Run& run) {
  return {"grid_sweep",
          "3-D uniform random queries (16.7 M) on grids from L2-resident to larger than L2; the evaluation kernel "
          "alone, hot, 9 repetitions",
          {{"edge", {64, 128, 160, 192, 224, 256}}, {"impl", kAllEvaluators}},
          [&run](State& s) {
            const std::int64_t N = s.int64("edge");
            const GridShape shape = GridShape::make({N, N, N});
            Prepared& p = run.prepared.get({"grid_sweep", N}, [&] {
              return prepare_problem(shape, Mode::mirror, 800 + static_cast<std::uint64_t>(N), run.stream(), false);
            });
            const std::int64_t n = big_query_count(run.cfg);
            const Queries& q = run.queries.get({"grid_sweep", N}, [&] {
              return make_queries(shape, datasets::QueryPattern::uniform, n, 900, run.stream(), false, Mode::mirror);
            });
            DeviceBuffer<float> d_out(static_cast<std::size_t>(n));
            const Region region = evaluator(s.string("impl"), p, run.binner, q, d_out.data(), run.stream());
            const Measurement m = run.timer.measure(region, L2State::hot, run.timer.settings().warmups, 9);
            s.row()["grid"] = shape.to_string();
            s.row()["grid_bytes"] = static_cast<double>(shape.values() * sizeof(float));
            s.row()["queries"] = n;
            s.row()["pattern"] = "uniform";
            s.row()["evaluate_hot"] = to_json(m);
            s.row()["queries_per_s_hot"] = static_cast<double>(n) / m.gpu.median;
          }};
}

Benchmark prefilter(Run& run) {
  return {"prefilter",
          "gpu_naive's step prefilter of a 512^3 noise grid (mirror), per axis (events between the axes), next to a "
          "device-to-device copy of the same buffer",
          {},
          [&run](State& s) {
            const Config& cfg = run.cfg;
            const cudaStream_t stream = run.stream();
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
            const int warmups = run.timer.settings().warmups, reps = run.timer.settings().repetitions;
            for (int rep = 0; rep < warmups + reps; ++rep) {
              SB_CUDA_CHECK(cudaMemcpyAsync(d_work.data(), d_src.data(), bytes, cudaMemcpyDeviceToDevice, stream));
              run.timer.hold();
              chain.record(0, stream);
              for (int axis = 0; axis < 3; ++axis) {
                gpu::prefilter_axis_step(shape, 1, mode, d_work.data(), axis, stream);
                chain.record(axis + 1, stream);
              }
              if (rep < warmups) {
                SB_CUDA_CHECK(cudaStreamSynchronize(stream));
                continue;
              }
              for (int axis = 0; axis < 3; ++axis) axis_samples[axis].push_back(chain.seconds(axis, axis + 1));
              total_samples.push_back(chain.seconds(0, 3));
            }
            DeviceBuffer<float> d_copy(samples.size());
            const Measurement copy = run.timer.measure([&] {
              SB_CUDA_CHECK(cudaMemcpyAsync(d_copy.data(), d_src.data(), bytes, cudaMemcpyDeviceToDevice, stream));
            });
            json& r = s.row();
            r["impl"] = "gpu_naive";
            r["grid"] = shape.to_string();
            r["mode"] = std::string(to_string(mode));
            r["data"] = "noise";
            r["bytes"] = static_cast<double>(bytes);
            for (int axis = 0; axis < 3; ++axis) {
              const runner::SampleStats st = runner::summarize(axis_samples[axis]);
              r["axes"].push_back({{"axis", axis},
                                   {"stride_floats", shape.stride(axis)},
                                   {"time", stats_json(st)},
                                   {"GBps_2x_bytes", 2.0 * bytes / st.median / 1e9}});
            }
            const runner::SampleStats total = runner::summarize(total_samples);
            r["total"] = stats_json(total);
            r["samples_per_s"] = static_cast<double>(shape.points()) / total.median;
            r["d2d_copy_same_buffer"] = to_json(copy);
            r["d2d_copy_GBps_2x_bytes"] = 2.0 * bytes / copy.gpu.median / 1e9;
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
          }};
}

Benchmark phases(Run& run) {
  return {"phases",
          "each implementation through the Implementation interface on 256^3 noise with 16.7 M uniform queries: "
          "medians per phase (CUDA events inside the implementation)",
          {{"impl", kAllEvaluators}},
          [&run](State& s) {
            const Config& cfg = run.cfg;
            const std::int64_t N = cfg.quick ? 64 : 256;
            const std::int64_t n = big_query_count(cfg);
            const GridShape shape = GridShape::make({N, N, N});
            const auto samples = datasets::make_field(datasets::FieldKind::noise, shape, 1, 701);
            const auto coords = datasets::make_queries(datasets::QueryPattern::uniform, shape, n, 702);
            std::vector<float> out(static_cast<std::size_t>(n));
            const std::string name = s.string("impl");
            log("phases: " + name);
            auto impl = make_implementation(name);
            std::map<std::string, std::vector<double>> samples_by_phase;
            const int reps = std::max(5, run.timer.settings().repetitions / 3);
            for (int rep = 0; rep < 1 + reps; ++rep) {
              PhaseTimes t;
              impl->prepare(shape, 1, samples.data(), Mode::mirror, true, t);
              impl->evaluate(coords.data(), n, out.data(), t);
              if (rep == 0) continue;  // warm-up
              for (const auto& [ph, sec] : t.entries()) samples_by_phase[ph].push_back(sec);
            }
            std::int64_t unwritten = 0;
            for (float v : out) unwritten += std::isnan(v);
            json& r = s.row();
            r["grid"] = shape.to_string();
            r["queries"] = n;
            r["pattern"] = "uniform";
            r["repetitions"] = reps;
            double device_total = 0;
            for (const auto& [ph, v] : samples_by_phase) {
              const runner::SampleStats st = runner::summarize(v);
              r["phases"][ph] = stats_json(st);
              if (ph != "host_staging" && ph != "bound_stats" && ph.rfind("prefilter_axis", 0) != 0)
                device_total += st.median;
            }
            r["gpu_time_with_transfers_s"] = device_total;
            r["gpu_time_without_transfers_s"] = device_total - r["phases"]["upload"]["median"].get<double>() -
                                                r["phases"]["query_upload"]["median"].get<double>() -
                                                r["phases"]["download"]["median"].get<double>();
            r["unwritten_values"] = unwritten;
            r["note"] = "medians per phase; with transfers = upload + prefilter + bind + query_upload + evaluate + "
                        "download (pinned buffers); host_staging (pageable <-> pinned memcpy) and bound_stats are "
                        "listed apart";
            impl->release();
          }};
}

int run_all(const Config& cfg) {
  const std::string reason = gpu::cuda_unavailable_reason();
  if (!reason.empty()) throw Error(reason);
  cudaStream_t stream;
  SB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  GpuTimer timer(stream, cfg.timing);
  json context = bench_context("gpu_eval_bench", cfg.machine, cfg.git_sha,
                               {"gpu_naive", "gpu_texture", "gpu_texture_binned", "gpu_half_f16", "gpu_half_bf16"});
  context["timing"] = to_json(cfg.timing);
  context["quick"] = cfg.quick;
  context["profile"] = cfg.profile;
  ResultFile file(cfg.out, kSchema, kSchemaVersion, context);
  Run run{cfg, timer, {}, {}, {}, 0.0};
  // The profiler mode times nothing: one run of each evaluation kernel, in order.
  std::vector<Benchmark> benchmarks;
  if (!cfg.profile) benchmarks.push_back(bandwidth(run));
  benchmarks.push_back(eval3d(run));
  if (!cfg.profile) benchmarks.push_back(l2_fetch_granularity(run));
  benchmarks.push_back(thesis4d(run));
  if (!cfg.profile) {
    benchmarks.push_back(grid_sweep(run));
    benchmarks.push_back(prefilter(run));
    benchmarks.push_back(phases(run));
  }
  for (const Benchmark& b : benchmarks) {
    if (!cfg.only.empty() && std::find(cfg.only.begin(), cfg.only.end(), b.name) == cfg.only.end()) continue;
    log("benchmark " + b.name);
    file.run(b);
  }
  SB_CUDA_CHECK(cudaStreamDestroy(stream));
  log("wrote " + cfg.out);
  return file.failures() ? 1 : 0;
}

}  // namespace
}  // namespace splinebench::bench

int main(int argc, char** argv) {
  splinebench::bench::Config cfg;
  CLI::App app{"gpu_eval_bench: gpu_naive / gpu_texture evaluation and prefilter measurements (JSON)"};
  app.add_option("--out", cfg.out, "output JSON file (its folder must exist)")->required();
  app.add_option("--git-sha", cfg.git_sha, "revision to record (default: probed from the source tree)");
  app.add_option("--machine", cfg.machine, "machine label to record (default: host name)");
  app.add_option("--reps", cfg.timing.repetitions, "kept repetitions per timing")
      ->check(CLI::Range(9, 100000))
      ->capture_default_str();
  app.add_option("--warmups", cfg.timing.warmups, "discarded runs before them")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  app.add_option("--hold-us", cfg.timing.hold_us, "blocking kernel ahead of each timed region (0: none)")
      ->check(CLI::Range(0.0, 1e6))
      ->capture_default_str();
  app.add_option("--only", cfg.only, "run only these benchmarks (names as in the JSON)")->delimiter(',');
  app.add_flag("--quick", cfg.quick, "small sizes (smoke test of the benchmark itself)");
  app.add_flag("--profile", cfg.profile, "one run per evaluate case, nothing else (for an external profiler)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  for (const auto& name : cfg.only)
    if (std::find(std::begin(splinebench::bench::kBenchmarkNames), std::end(splinebench::bench::kBenchmarkNames),
                  name) == std::end(splinebench::bench::kBenchmarkNames)) {
      std::cerr << "gpu_eval_bench: --only: no benchmark named '" << name << "'\n";
      return 2;
    }
  try {
    return splinebench::bench::run_all(cfg);
  } catch (const std::exception& e) {
    std::cerr << "gpu_eval_bench: " << e.what() << '\n';
    return 1;
  }
}
