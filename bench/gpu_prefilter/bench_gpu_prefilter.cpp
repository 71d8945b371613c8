// GPU prefilter benchmark: in one run, per case, the time of
//   copy            a device-to-device cudaMemcpyAsync of the same buffer (the bound),
//   gpu_flex        the single-launch flexible-allocation prefilter,
//   gpu_flex_fixed  its fixed-allocation baseline (one launch per axis),
//   gpu_naive       the step prefilter, through the registry (its `prefilter` phase),
// each as the median of interleaved repetitions in three L2 states (hot, cold, clean;
// README.md), GPU time only (a spin kernel ahead of each timed region hides the host's
// enqueue, stream_hold.hpp), with ratios to the copy of the same state; the
// result of gpu_flex and gpu_flex_fixed is checked against the double oracle
// (outputs poisoned first). Optional section: --eval (evaluate_global vs texture
// fetches on the same coefficients, per D).
// Output: JSON (schema in README.md), written atomically, and a table on stdout.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpu_common/cuda_check.hpp"
#include "gpu_common/device_buffer.hpp"
#include "gpu_flex/flex_launch.hpp"
#include "gpu_common/evaluate_global.hpp"
#include "gpu_common/texture_field.hpp"
#include "l2_state.hpp"
#include "stream_hold.hpp"
#include "splinebench/oracle_batch.hpp"
#include "splinebench/datasets.hpp"
#include "splinebench/error.hpp"
#include "splinebench/registry.hpp"

using namespace splinebench;
using nlohmann::json;
namespace flex = splinebench::gpu::flex;

namespace {

struct Config {
  std::string out = "gpu_prefilter.json";
  std::string git_sha = "unknown";
  std::string machine = "unknown";
  int reps = 15;
  int warmups = 3;
  double hold_us = 1000;  // --hold-us: spin ahead of every timed region (Timer)
  bool quick = false;
  bool eval = false;
  bool verify = true;
  std::string only;  // run only the case with this name
};

struct Case {
  std::string name;
  std::vector<std::int64_t> extents;
  int channels = 1;
  std::int64_t fields = 1;
};

std::vector<Case> cases(bool quick) {
  if (quick) return {{"3d_128", {128, 128, 128}, 1, 1}, {"frames_160x120_rgba_x100", {120, 160}, 4, 100}};
  return {
      {"3d_512", {512, 512, 512}, 1, 1},
      {"3d_256", {256, 256, 256}, 1, 1},
      {"1d_16M", {16777216}, 1, 1},
      {"frames_160x120_rgba_x100", {120, 160}, 4, 100},
      {"frame_1024x1024_rgba", {1024, 1024}, 4, 1},
      {"3d_128", {128, 128, 128}, 1, 1},
      {"2d_4096", {4096, 4096}, 1, 1},
      {"4d_48", {48, 48, 48, 48}, 1, 1},
  };
}

struct Stats {
  std::vector<double> samples;
  double median = 0, min = 0, q1 = 0, q3 = 0;
};

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

Stats summarise(const std::vector<double>& s) {
  Stats r;
  r.samples = s;
  if (s.empty()) return r;
  r.median = quantile(s, 0.5);
  r.q1 = quantile(s, 0.25);
  r.q3 = quantile(s, 0.75);
  r.min = *std::min_element(s.begin(), s.end());
  return r;
}

json to_json(const Stats& s) {
  return {{"samples_s", s.samples}, {"median_s", s.median}, {"min_s", s.min}, {"q1_s", s.q1}, {"q3_s", s.q3}};
}

// Times a region with CUDA events. With hold_us > 0 a spin kernel (stream_hold.hpp) is
// queued ahead of the start event, so the GPU reaches that event only after the host
// has enqueued the region (if the host takes less than hold_us): the events then time
// the GPU's work alone, not the host's planning and launch latency. The host time of
// each region's enqueue is kept too, and the regions whose enqueue outlasted the hold
// are counted (their times may include GPU idle time).
class Timer {
 public:
  Timer(cudaStream_t s, double hold_us) : stream_(s), hold_us_(hold_us) {
    SB_CUDA_CHECK(cudaEventCreate(&a_));
    SB_CUDA_CHECK(cudaEventCreate(&b_));
  }
  ~Timer() {
    cudaEventDestroy(a_);
    cudaEventDestroy(b_);
  }
  double time(const std::function<void()>& region) {
    bench::hold_stream(stream_, hold_us_);
    SB_CUDA_CHECK(cudaEventRecord(a_, stream_));
    const auto t0 = std::chrono::steady_clock::now();
    region();
    last_enqueue_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (hold_us_ > 0 && last_enqueue_s_ * 1e6 >= hold_us_) ++uncovered_;
    SB_CUDA_CHECK(cudaEventRecord(b_, stream_));
    SB_CUDA_CHECK(cudaEventSynchronize(b_));
    float ms = 0;
    SB_CUDA_CHECK(cudaEventElapsedTime(&ms, a_, b_));
    return ms * 1e-3;
  }
  // Host seconds the last region took to enqueue its work.
  double last_enqueue_s() const { return last_enqueue_s_; }
  // Regions since the last reset_uncovered() whose enqueue took longer than the hold
  // (not counted when hold_us == 0).
  long uncovered() const { return uncovered_; }
  void reset_uncovered() { uncovered_ = 0; }

 private:
  cudaStream_t stream_;
  double hold_us_;
  double last_enqueue_s_ = 0;
  long uncovered_ = 0;
  cudaEvent_t a_{}, b_{};
};

json gpu_context(const Config& cfg) {
  int dev = 0;
  SB_CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  SB_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  auto attr = [dev](cudaDeviceAttr a) {
    int v = 0;
    SB_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, dev));
    return v;
  };
  int rt = 0, drv = 0;
  SB_CUDA_CHECK(cudaRuntimeGetVersion(&rt));
  SB_CUDA_CHECK(cudaDriverGetVersion(&drv));
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return {{"machine", cfg.machine},
          {"date", date},
          {"git_sha", cfg.git_sha},
          {"cuda_runtime", std::to_string(rt / 1000) + "." + std::to_string(rt % 1000 / 10)},
          {"cuda_driver", std::to_string(drv / 1000) + "." + std::to_string(drv % 1000 / 10)},
          {"gpu",
           {{"name", prop.name},
            {"sm_count", prop.multiProcessorCount},
            {"l2_bytes", prop.l2CacheSize},
            {"sm_clock_mhz", attr(cudaDevAttrClockRate) / 1000},
            {"mem_clock_mhz", attr(cudaDevAttrMemoryClockRate) / 1000},
            {"mem_bus_bits", attr(cudaDevAttrGlobalMemoryBusWidth)},
            {"smem_per_block_optin", attr(cudaDevAttrMaxSharedMemoryPerBlockOptin)}}},
          {"repetitions", cfg.reps},
          {"warmups", cfg.warmups}};
}

double rel_l2(const std::vector<float>& a, const std::vector<double>& ref, std::int64_t& nans) {
  double num = 0, den = 0;
  nans = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i])) {
      ++nans;
      continue;
    }
    const double d = a[i] - ref[i];
    num += d * d;
    den += ref[i] * ref[i];
  }
  return nans ? INFINITY : std::sqrt(num / den);
}

struct Buffers {
  gpu::DeviceBuffer<float> in, out, tmp, flush;
  // Read before the "clean" runs, never written after its first zeroing (l2_state.hpp).
  gpu::DeviceBuffer<float> clean, sink;
};

json run_case(const Config& cfg, const Case& c, cudaStream_t stream, Buffers& buf) {
  const GridShape shape = GridShape::make(c.extents, c.channels);
  const std::int64_t n = shape.values() * c.fields;
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
  const Mode mode = Mode::mirror;
  std::cerr << "case " << c.name << " (" << n << " values)\n";

  const std::vector<float> host = datasets::make_field(datasets::FieldKind::noise, shape, c.fields, 2026);
  buf.in.resize(static_cast<std::size_t>(n));
  buf.out.resize(static_cast<std::size_t>(n));
  flex::FlexRunner runner;
  const std::int64_t tmp_values = runner.tmp_values(flex::Variant::fixed, shape, c.fields, mode);
  buf.tmp.resize(static_cast<std::size_t>(std::max<std::int64_t>(tmp_values, 1)));
  SB_CUDA_CHECK(cudaMemcpy(buf.in.data(), host.data(), bytes, cudaMemcpyHostToDevice));

  std::map<std::string, std::function<void()>> ops;
  ops["copy"] = [&] {
    SB_CUDA_CHECK(cudaMemcpyAsync(buf.out.data(), buf.in.data(), bytes, cudaMemcpyDeviceToDevice, stream));
  };
  ops["gpu_flex"] = [&] {
    runner.run(flex::Variant::flexible, shape, c.fields, mode, buf.in.data(), buf.out.data(), buf.tmp.data(), stream);
  };
  ops["gpu_flex_fixed"] = [&] {
    runner.run(flex::Variant::fixed, shape, c.fields, mode, buf.in.data(), buf.out.data(), buf.tmp.data(), stream);
  };
  auto flush = [&] { SB_CUDA_CHECK(cudaMemsetAsync(buf.flush.data(), 0, buf.flush.bytes(), stream)); };
  auto fill_clean = [&] {
    bench::fill_l2_with_clean_lines(buf.clean.data(), buf.clean.size(), buf.sink.data(),
                                    static_cast<int>(buf.sink.size()), stream);
  };

  // Three states of the L2 cache before a run: "hot" (right after the previous
  // operation, whose last writes are still dirty in it), "cold" (after a 256 MiB
  // memset: dirty lines of zeros) and "clean" (after reading 256 MiB that nothing
  // writes: only clean lines, so no write-back of anybody's data falls in the run).
  Timer timer(stream, cfg.hold_us);
  std::map<std::string, std::vector<double>> hot, cold, clean, enqueue;
  for (int r = 0; r < cfg.warmups + cfg.reps; ++r) {
    if (r == cfg.warmups) timer.reset_uncovered();  // count the kept samples only
    for (auto& [name, op] : ops) {
      const double t_hot = timer.time(op);
      if (r >= cfg.warmups) enqueue[name].push_back(timer.last_enqueue_s());
      flush();
      const double t_cold = timer.time(op);
      fill_clean();
      const double t_clean = timer.time(op);
      if (r >= cfg.warmups) {
        hot[name].push_back(t_hot);
        cold[name].push_back(t_cold);
        clean[name].push_back(t_clean);
      }
    }
  }

  json rec = {{"case", c.name},       {"shape", c.extents}, {"channels", c.channels}, {"fields", c.fields},
              {"mode", "mirror"},     {"values", n},        {"bytes", bytes}};
  json timings, ratios;
  for (auto& [name, op] : ops) {
    timings[name] = {{"hot", to_json(summarise(hot[name]))},
                     {"cold", to_json(summarise(cold[name]))},
                     {"clean", to_json(summarise(clean[name]))},
                     {"host_enqueue", to_json(summarise(enqueue[name]))}};
    if (name != "copy") {
      ratios[name] = {{"hot", summarise(hot[name]).median / summarise(hot["copy"]).median},
                      {"cold", summarise(cold[name]).median / summarise(cold["copy"]).median},
                      {"clean", summarise(clean[name]).median / summarise(clean["copy"]).median}};
    }
  }

  // gpu_naive through the registry: its own `prefilter` phase, after its own upload.
  try {
    ImplementationPtr naive = make_implementation("gpu_naive");
    if (naive->availability().ok) {
      const int reps = n > (std::int64_t{1} << 26) ? 5 : std::min(cfg.reps, 9);
      std::vector<double> t;
      for (int r = 0; r < reps + 1; ++r) {
        PhaseTimes times;
        naive->prepare(shape, c.fields, host.data(), mode, true, times);
        if (r > 0) t.push_back(times.get(phase::prefilter));
      }
      naive->release();
      timings["gpu_naive"] = {{"prefilter_phase", to_json(summarise(t))},
                              {"note", "Implementation::prepare's prefilter phase (one launch per axis), right after its upload"}};
      ratios["gpu_naive"] = {{"prefilter_phase_vs_copy_hot", summarise(t).median / summarise(hot["copy"]).median}};
    }
  } catch (const std::exception& e) {
    timings["gpu_naive"] = {{"error", e.what()}};
  }
  rec["timings"] = timings;
  rec["regions_enqueue_outlasted_hold"] = timer.uncovered();
  if (timer.uncovered() > 0)
    std::cerr << "warning: " << c.name << ": " << timer.uncovered() << " timed regions took longer than --hold-us "
              << cfg.hold_us << " to enqueue; their times include GPU idle time\n";
  rec["ratio_to_copy"] = ratios;

  // Plans and the design's memory traffic per value.
  for (auto v : {flex::Variant::flexible, flex::Variant::fixed}) {
    const flex::Plan p = runner.plan(v, shape, c.fields, mode);
    const flex::Traffic tr = flex::traffic(p);
    rec["plan"][v == flex::Variant::flexible ? "gpu_flex" : "gpu_flex_fixed"] = {
        {"description", flex::describe(p)},
        {"passes", p.passes.size()},
        {"read_bytes_per_value", tr.read_bytes / static_cast<double>(n)},
        {"write_bytes_per_value", tr.write_bytes / static_cast<double>(n)}};
  }

  if (cfg.verify) {
    std::vector<double> ref(host.begin(), host.end());
    oracle::prefilter_f64(shape, c.fields, ref.data(), mode);
    for (auto v : {flex::Variant::flexible, flex::Variant::fixed}) {
      SB_CUDA_CHECK(cudaMemsetAsync(buf.out.data(), 0xFF, bytes, stream));
      runner.run(v, shape, c.fields, mode, buf.in.data(), buf.out.data(), buf.tmp.data(), stream);
      SB_CUDA_CHECK(cudaStreamSynchronize(stream));
      std::vector<float> got(static_cast<std::size_t>(n));
      SB_CUDA_CHECK(cudaMemcpy(got.data(), buf.out.data(), bytes, cudaMemcpyDeviceToHost));
      std::int64_t nans = 0;
      const double e = rel_l2(got, ref, nans);
      rec["accuracy"][v == flex::Variant::flexible ? "gpu_flex" : "gpu_flex_fixed"] = {
          {"rel_l2_vs_oracle", e}, {"unwritten_or_nan", nans}, {"tolerance", shape.dims <= 3 ? 2e-7 : 5e-7}};
    }
  }

  std::printf("%-26s copy %9.4f ms | flex %9.4f ms (x%.2f) | fixed %9.4f ms (x%.2f)", c.name.c_str(),
              summarise(hot["copy"]).median * 1e3, summarise(hot["gpu_flex"]).median * 1e3,
              ratios["gpu_flex"]["hot"].get<double>(), summarise(hot["gpu_flex_fixed"]).median * 1e3,
              ratios["gpu_flex_fixed"]["hot"].get<double>());
  if (timings.contains("gpu_naive") && timings["gpu_naive"].contains("prefilter_phase"))
    std::printf(" | naive %9.4f ms", timings["gpu_naive"]["prefilter_phase"]["median_s"].get<double>() * 1e3);
  std::printf("  [cold: copy %.4f flex x%.2f | clean: copy %.4f flex %.4f x%.2f | host enqueue us: copy %.1f flex %.1f]\n",
              summarise(cold["copy"]).median * 1e3, ratios["gpu_flex"]["cold"].get<double>(),
              summarise(clean["copy"]).median * 1e3, summarise(clean["gpu_flex"]).median * 1e3,
              ratios["gpu_flex"]["clean"].get<double>(), summarise(enqueue["copy"]).median * 1e6,
              summarise(enqueue["gpu_flex"]).median * 1e6);
  std::fflush(stdout);
  return rec;
}

// Evaluation kernels available to gpu_flex, on the same coefficients and queries.
json run_eval(const Config& cfg, cudaStream_t stream) {
  json out = json::array();
  const std::vector<Case> eval_cases = {{"1d_1M", {1 << 20}, 1, 1},          {"2d_1024", {1024, 1024}, 1, 1},
                                        {"2d_1024_rgba", {1024, 1024}, 4, 1}, {"3d_128", {128, 128, 128}, 1, 1},
                                        {"4d_32", {32, 32, 32, 32}, 1, 1},     {"5d_16", {16, 16, 16, 16, 16}, 1, 1}};
  const std::int64_t q = 1 << 20;
  for (const Case& c : eval_cases) {
    const GridShape shape = GridShape::make(c.extents, c.channels);
    const std::int64_t n = shape.values();
    const std::vector<float> host = datasets::make_field(datasets::FieldKind::smooth, shape, 1, 3);
    const std::vector<float> coords = datasets::make_queries(datasets::QueryPattern::uniform, shape, q, 4);
    gpu::DeviceBuffer<float> d_in(n), d_c(n), d_tmp(n), d_q(coords.size()), d_v(q * c.channels);
    SB_CUDA_CHECK(cudaMemcpy(d_in.data(), host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    SB_CUDA_CHECK(cudaMemcpy(d_q.data(), coords.data(), coords.size() * sizeof(float), cudaMemcpyHostToDevice));
    flex::FlexRunner runner;
    runner.run(flex::Variant::flexible, shape, 1, Mode::mirror, d_in.data(), d_c.data(), d_tmp.data(), stream);
    Timer timer(stream, cfg.hold_us);
    auto measure = [&](const std::function<void()>& f) {
      std::vector<double> t;
      for (int r = 0; r < cfg.warmups + cfg.reps; ++r) {
        const double s = timer.time(f);
        if (r >= cfg.warmups) t.push_back(s);
      }
      return summarise(t);
    };
    json rec = {{"case", c.name}, {"queries", q}};
    const Stats g = measure([&] {
      gpu::evaluate_global(shape, 1, Mode::mirror, d_c.data(), d_q.data(), q, d_v.data(), stream);
    });
    rec["global"] = to_json(g);
    double tex_ms = -1;
    try {
      gpu::TextureField field;
      field.bind(shape, 1, Mode::mirror, d_c.data(), stream);
      const Stats t = measure([&] { field.evaluate(d_q.data(), q, d_v.data(), stream); });
      rec["texture"] = to_json(t);
      tex_ms = t.median * 1e3;
    } catch (const Unsupported& e) {
      rec["texture"] = {{"skipped", e.what()}};
    }
    out.push_back(rec);
    std::printf("eval %-14s global %8.4f ms  texture %8.4f ms\n", c.name.c_str(), g.median * 1e3, tex_ms);
  }
  std::fflush(stdout);
  return out;
}

void usage() {
  std::cerr << "usage: bench_gpu_prefilter [--out FILE] [--git-sha SHA] [--machine LABEL] [--reps N] [--quick]\n"
               "                           [--hold-us US]   (GPU spin ahead of each timed region; 0: none)\n"
               "                           [--case NAME] [--eval] [--no-verify]\n";
}

}  // namespace

int main(int argc, char** argv) {
  Config cfg;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error("missing value after " + a);
      return argv[++i];
    };
    try {
      if (a == "--out") cfg.out = value();
      else if (a == "--git-sha") cfg.git_sha = value();
      else if (a == "--machine") cfg.machine = value();
      else if (a == "--reps") cfg.reps = std::stoi(value());
      else if (a == "--hold-us") cfg.hold_us = std::stod(value());
      else if (a == "--case") cfg.only = value();
      else if (a == "--quick") cfg.quick = true;
      else if (a == "--eval") cfg.eval = true;
      else if (a == "--no-verify") cfg.verify = false;
      else if (a == "--help") { usage(); return 0; }
      else throw Error("unknown argument " + a);
    } catch (const std::exception& e) {
      std::cerr << "bench_gpu_prefilter: " << e.what() << "\n";
      usage();
      return 2;
    }
  }
  if (!(cfg.hold_us >= 0 && cfg.hold_us <= 1e6)) {
    std::cerr << "bench_gpu_prefilter: --hold-us must be between 0 and 1e6\n";
    return 2;
  }
  if (cfg.reps < 3) {
    std::cerr << "bench_gpu_prefilter: --reps must be >= 3\n";
    return 2;
  }
  try {
    const std::string why = gpu::cuda_unavailable_reason();
    if (!why.empty()) throw Error("no CUDA device: " + why);
    cudaStream_t stream;
    SB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    json doc = {{"schema", "splinebench-gpu-prefilter"}, {"schema_version", 2}, {"context", gpu_context(cfg)}};
    doc["context"]["hold_us"] = cfg.hold_us;
    Buffers buf;
    buf.flush.resize(std::size_t{64} << 20);  // 256 MiB: more than any L2
    buf.clean.resize(std::size_t{64} << 20);
    buf.sink.resize(1024);
    SB_CUDA_CHECK(cudaMemset(buf.clean.data(), 0, buf.clean.bytes()));
    // Evicts (writes back) the clean buffer's lines that its zeroing left dirty.
    SB_CUDA_CHECK(cudaMemset(buf.flush.data(), 0, buf.flush.bytes()));
    doc["records"] = json::array();
    for (const Case& c : cases(cfg.quick)) {
      if (!cfg.only.empty() && c.name != cfg.only) continue;
      doc["records"].push_back(run_case(cfg, c, stream, buf));
    }
    if (cfg.eval) doc["evaluate"] = run_eval(cfg, stream);
    SB_CUDA_CHECK(cudaStreamDestroy(stream));
    const std::filesystem::path out(cfg.out);
    if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path());
    const std::filesystem::path tmp = out.string() + ".tmp";
    {
      std::ofstream f(tmp);
      f << doc.dump(1) << "\n";
      if (!f) throw Error("cannot write " + tmp.string());
    }
    std::filesystem::rename(tmp, out);
    std::cerr << "wrote " << out << "\n";
  } catch (const std::exception& e) {
    std::cerr << "bench_gpu_prefilter: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
