// Google Benchmark microbenchmarks of the CPU kernels, separate from the harness
// sweeps: evaluation per D, the 3-D acceptance case (2^20 random queries in 128^3),
// the 4-D thesis case, and the 3-D prefilter of 256^3 with per-axis times (Ruijters'
// Table 1 columns), for cpu_scalar, cpu_sse and cpu_simd, through the same
// Implementation interface the harness drives. How to run: bench/README.md.
//
// Extra flags (before the Google Benchmark ones):
//   --sb_threads=1,16     thread counts for cpu_simd (default: 1)
//   --sb_impls=a,b        implementations (default: cpu_scalar,cpu_sse,cpu_simd)
//   --sb_suite=all|acceptance|dims   which groups to register (default: all)
// Every benchmark measures wall time (prefilter: the implementation's own prefilter
// phase as manual time, so copying the input in is not counted).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "splinebench/datasets.hpp"
#include "splinebench/error.hpp"
#include "splinebench/registry.hpp"

using namespace splinebench;

namespace {

struct Config {
  std::vector<int> threads{1};
  std::vector<std::string> impls{"cpu_scalar", "cpu_sse", "cpu_simd"};
  std::string suite = "all";
};

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string p; std::getline(in, p, ',');)
    if (!p.empty()) parts.push_back(p);
  return parts;
}

// Removes our --sb_* flags from argv (Google Benchmark rejects unknown ones).
Config parse_flags(int& argc, char** argv) {
  Config cfg;
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const std::string& key) { return arg.substr(key.size()); };
    if (arg.rfind("--sb_threads=", 0) == 0) {
      cfg.threads.clear();
      for (const auto& t : split(value("--sb_threads="))) cfg.threads.push_back(std::stoi(t));
    } else if (arg.rfind("--sb_impls=", 0) == 0) {
      cfg.impls = split(value("--sb_impls="));
    } else if (arg.rfind("--sb_suite=", 0) == 0) {
      cfg.suite = value("--sb_suite=");
    } else if (arg.rfind("--sb_", 0) == 0) {
      throw Error("unknown flag " + arg + " (known: --sb_threads, --sb_impls, --sb_suite)");
    } else {
      argv[out++] = argv[i];
    }
  }
  argc = out;
  if (cfg.suite != "all" && cfg.suite != "acceptance" && cfg.suite != "dims")
    throw Error("--sb_suite must be all, acceptance or dims, got " + cfg.suite);
  return cfg;
}

std::string facts_of(const Implementation& impl) {
  std::string s;
  for (const auto& f : impl.run_facts()) s += (s.empty() ? "" : " ") + f;
  return s;
}

ImplementationPtr make_configured(const std::string& name, int threads) {
  ImplementationPtr impl = make_implementation(name);
  const Availability a = impl->availability();
  if (!a.ok) throw Unsupported(name + ": " + a.reason);
  impl->configure(Options{threads});
  return impl;
}

// Inputs are generated once per shape and reused: Google Benchmark calls a benchmark
// function once per repetition, and generating 2^24 random samples each time would
// dominate a short run.
const std::vector<float>& cached_field(const GridShape& shape, std::uint64_t seed) {
  static std::map<std::string, std::vector<float>> cache;
  const std::string key = shape.to_string() + "/C" + std::to_string(shape.channels) + "/" + std::to_string(seed);
  auto it = cache.find(key);
  if (it == cache.end())
    it = cache.emplace(key, datasets::make_field(datasets::FieldKind::noise, shape, 1, seed)).first;
  return it->second;
}

const std::vector<float>& cached_queries(const GridShape& shape, std::int64_t n, std::uint64_t seed) {
  static std::map<std::string, std::vector<float>> cache;
  const std::string key = shape.to_string() + "/q" + std::to_string(n) + "/" + std::to_string(seed);
  auto it = cache.find(key);
  if (it == cache.end())
    it = cache.emplace(key, datasets::make_queries(datasets::QueryPattern::uniform, shape, n, seed)).first;
  return it->second;
}

// Reconstruction: prepare once (prefiltered noise, never zeros), then time evaluate().
void bench_evaluate(benchmark::State& state, std::string name, int threads, GridShape shape, std::int64_t queries) {
  ImplementationPtr impl = make_configured(name, threads);
  const std::vector<float>& field = cached_field(shape, 11);
  const std::vector<float>& coords = cached_queries(shape, queries, 12);
  std::vector<float> values(static_cast<std::size_t>(queries * shape.channels));
  PhaseTimes times;
  impl->prepare(shape, 1, field.data(), Mode::mirror, true, times);
  for (auto _ : state) {
    impl->evaluate(coords.data(), queries, values.data(), times);
    benchmark::DoNotOptimize(values.data());
    benchmark::ClobberMemory();
  }
  for (const float v : values)
    if (!std::isfinite(v)) {
      state.SkipWithError("non-finite value: an element was not written");
      break;
    }
  state.SetItemsProcessed(state.iterations() * queries);
  state.counters["Mq_per_s"] = benchmark::Counter(static_cast<double>(queries) * 1e-6,
                                                  benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(facts_of(*impl));
}

// Prefilter: manual time = the implementation's prefilter phase; per-axis phases as
// counters (seconds per iteration).
void bench_prefilter(benchmark::State& state, std::string name, int threads, GridShape shape) {
  ImplementationPtr impl = make_configured(name, threads);
  const std::vector<float>& field = cached_field(shape, 13);
  std::vector<double> axis_seconds(static_cast<std::size_t>(shape.dims), 0.0);
  for (auto _ : state) {
    PhaseTimes times;
    impl->prepare(shape, 1, field.data(), Mode::mirror, true, times);
    state.SetIterationTime(times.get(phase::prefilter));
    for (int d = 0; d < shape.dims; ++d) axis_seconds[d] += times.get(phase::prefilter_axis(d));
  }
  for (int d = 0; d < shape.dims; ++d)
    state.counters["axis" + std::to_string(d) + "_s"] =
        benchmark::Counter(axis_seconds[d], benchmark::Counter::kAvgIterations);
  state.SetItemsProcessed(state.iterations() * shape.points());
  state.SetBytesProcessed(state.iterations() * shape.values() * 4 * 2);  // read + write once
  state.SetLabel(facts_of(*impl));
}

std::vector<int> threads_for(const Config& cfg, const std::string& impl) {
  if (impl == "cpu_simd") return cfg.threads;
  return {1};
}

void register_all(const Config& cfg) {
  const bool acceptance = cfg.suite != "dims";
  const bool dims = cfg.suite != "acceptance";
  for (const std::string& impl : cfg.impls)
    for (const int t : threads_for(cfg, impl)) {
      const std::string suffix = "/" + impl + "/threads:" + std::to_string(t);
      if (acceptance) {
        benchmark::RegisterBenchmark(("eval3d_128cubed_q2e20" + suffix).c_str(), bench_evaluate, impl, t,
                                     GridShape::make({128, 128, 128}), std::int64_t{1} << 20)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
        benchmark::RegisterBenchmark(("prefilter3d_256cubed" + suffix).c_str(), bench_prefilter, impl, t,
                                     GridShape::make({256, 256, 256}))
            ->Unit(benchmark::kMillisecond)
            ->UseManualTime();
        benchmark::RegisterBenchmark(("thesis4d_32e4_q32e4" + suffix).c_str(), bench_evaluate, impl, t,
                                     GridShape::make({32, 32, 32, 32}), std::int64_t{32 * 32 * 32 * 32})
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
      if (dims) {
        // About 4 MiB of coefficients per D (past L2, in L3), random queries.
        const std::vector<std::vector<std::int64_t>> grids = {
            {1 << 20}, {1024, 1024}, {101, 101, 101}, {32, 32, 32, 32}, {16, 16, 16, 16, 16}, {10, 10, 10, 10, 10, 10}};
        for (int d = 1; d <= 6; ++d) {
          const std::int64_t q = d <= 3 ? (1 << 18) : d == 4 ? (1 << 16) : d == 5 ? (1 << 14) : (1 << 12);
          benchmark::RegisterBenchmark(("eval_D" + std::to_string(d) + suffix).c_str(), bench_evaluate, impl, t,
                                       GridShape::make(grids[d - 1]), q)
              ->Unit(benchmark::kMillisecond)
              ->UseRealTime();
        }
        // 3-D evaluation against the memory hierarchy: 128 KiB (L2), 1 MiB (L2),
        // 8 MiB (L3), 64 MiB (DRAM) of coefficients.
        for (const std::int64_t side : {32, 64, 128, 256})
          benchmark::RegisterBenchmark(("eval3d_side" + std::to_string(side) + "_q2e18" + suffix).c_str(),
                                       bench_evaluate, impl, t, GridShape::make({side, side, side}),
                                       std::int64_t{1} << 18)
              ->Unit(benchmark::kMillisecond)
              ->UseRealTime();
        // Per-axis prefilter cost on a smaller volume (fits in L3 here).
        benchmark::RegisterBenchmark(("prefilter3d_128cubed" + suffix).c_str(), bench_prefilter, impl, t,
                                     GridShape::make({128, 128, 128}))
            ->Unit(benchmark::kMillisecond)
            ->UseManualTime();
      }
    }
}

std::string read_first_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Config cfg = parse_flags(argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::AddCustomContext("loadavg_at_start", read_first_line("/proc/loadavg"));
    for (const std::string& name : cfg.impls) {
      const ImplementationPtr impl = make_implementation(name);
      benchmark::AddCustomContext("facts_" + name, facts_of(*impl));
    }
    register_all(cfg);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_kernels: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
