// bench_gpu_prefilter: how fast the single-launch prefilter gpu_flex is against the
// memory bound, as benchmarks with declared axes (bench/gpu_bench_common) in one JSON
// file (schema in README.md):
//   prefilter  case: per case, on the same device buffers,
//                copy            a device-to-device cudaMemcpyAsync of the buffer (the bound),
//                gpu_flex        the single-launch flexible-allocation prefilter,
//                gpu_flex_fixed  its fixed-allocation baseline (one launch per pass),
//                gpu_flex_graph  gpu_flex captured once into a CUDA graph and replayed
//                                (what a caller that repeats the call pays),
//                gpu_lines       a pass per axis of independent segment lanes, replayed from
//                                its own cached graph (the small-field design),
//                empty_launch    a kernel that does nothing (the floor of launched work),
//              timed interleaved in the hot, cold and clean L2 states (each repetition
//              runs every operation in every state, so drifts of the GPU hit all alike),
//              with ratios to the copy of the same state; gpu_naive's `prefilter`
//              phase through the registry; both gpu_flex plans and their memory traffic
//              per value, gpu_lines' plan; the outputs (poisoned first) against the
//              double oracle.
//   evaluate   case x path (--eval): gpu::evaluate_global against gpu::TextureField on
//              the same coefficients, per D: how gpu_flex picks its evaluation path.
// A summary table (ratios to the copy per L2 state, medians, rel L2) ends stdout.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "gpu_bench_common/benchmark.hpp"
#include "gpu_bench_common/gpu_timer.hpp"
#include "gpu_common/evaluate_global.hpp"
#include "gpu_common/texture_field.hpp"
#include "gpu_common/flex/flex_launch.hpp"
#include "gpu_lines/lines_launch.hpp"
#include "splinebench/cuda/captured_graph.hpp"
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
namespace flex = gpu::flex;

constexpr const char* kProgram = "bench_gpu_prefilter";
constexpr const char* kSchema = "splinebench-gpu-prefilter";
constexpr int kSchemaVersion = 3;

// The operations timed together in the prefilter benchmark, in their interleaved order.
const std::vector<L2State> kStates = {L2State::hot, L2State::cold, L2State::clean};

struct Config {
  std::string out = "gpu_prefilter.json";
  std::string git_sha;
  std::string machine;
  std::vector<std::string> cases;  // --case: only these; empty: all
  TimingSettings timing;
  bool quick = false;
  bool eval = false;
  bool verify = true;
};

struct Case {
  std::string name;
  std::vector<std::int64_t> extents;
  int channels = 1;
  std::int64_t fields = 1;
};

std::vector<Case> prefilter_cases(bool quick) {
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

std::vector<Case> evaluate_cases() {
  return {{"1d_1M", {1 << 20}, 1, 1},          {"2d_1024", {1024, 1024}, 1, 1},
          {"2d_1024_rgba", {1024, 1024}, 4, 1}, {"3d_128", {128, 128, 128}, 1, 1},
          {"4d_32", {32, 32, 32, 32}, 1, 1},     {"5d_16", {16, 16, 16, 16, 16}, 1, 1}};
}

const Case& find_case(const std::vector<Case>& cases, const std::string& name) {
  for (const Case& c : cases)
    if (c.name == name) return c;
  throw Error("no case named '" + name + "'");
}

// The `case` axis: the cases' names, those named by --case only.
std::vector<json> case_axis(const std::vector<Case>& cases, const std::vector<std::string>& only) {
  std::vector<json> names;
  for (const Case& c : cases)
    if (only.empty() || std::find(only.begin(), only.end(), c.name) != only.end()) names.emplace_back(c.name);
  return names;
}

void log(const std::string& msg) { std::cerr << msg << std::endl; }

// Relative L2 distance of `got` from `ref`; values left NaN (unwritten: the output was
// poisoned) are counted in *nans and make the distance infinite.
double rel_l2(const std::vector<float>& got, const std::vector<double>& ref, std::int64_t* nans) {
  long double num = 0, den = 0;
  *nans = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i])) {
      ++*nans;
      continue;
    }
    const long double d = static_cast<long double>(got[i]) - ref[i];
    num += d * d;
    den += static_cast<long double>(ref[i]) * ref[i];
  }
  return *nans ? INFINITY : static_cast<double>(std::sqrt(num / den));
}

// Formatting of the progress lines and the summary table.
std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// j[key], or null when j is not an object or has no such key (a row cut short by an
// error lacks some).
json field(const json& j, const std::string& key) {
  return j.is_object() && j.contains(key) ? j.at(key) : json();
}

// A string as it is, anything else as JSON.
std::string text(const json& j) { return j.is_string() ? j.get<std::string>() : j.dump(); }

// "a, b, c" of the three states' values (numbers, or timings' medians) at j[state], or
// "-" when one is absent.
std::string per_state(const json& j, const char* f, double scale = 1.0) {
  std::string s;
  for (L2State st : kStates) {
    json v = field(j, std::string(to_string(st)));
    if (v.is_object()) v = field(v, "median");
    if (!v.is_number()) return "-";
    s += (s.empty() ? "" : ", ") + fmt(f, v.get<double>() * scale);
  }
  return s;
}

// Shared by the benchmarks of one run.
struct Run {
  const Config& cfg;
  GpuTimer& timer;
  // Device buffers of the prefilter cases, kept between cases (resized as needed).
  DeviceBuffer<float> in, out, tmp, tmp_lines;
  // Problems that do not stop a row but must fail the run (an output outside its
  // tolerance, gpu_naive failing): printed at the end, exit status 1.
  std::vector<std::string> problems;
  cudaStream_t stream() const { return timer.stream(); }
};

const char* flex_name(flex::Variant v) { return v == flex::Variant::flexible ? "gpu_flex" : "gpu_flex_fixed"; }

// gpu_naive through the registry: Implementation::prepare's `prefilter` phase (one
// launch per axis, timed by the implementation's own events), right after its upload.
json time_gpu_naive(Run& run, const Case& c, const GridShape& shape, const std::vector<float>& host,
                    const runner::SampleStats& copy_hot, json& ratios) {
  try {
    ImplementationPtr naive = make_implementation("gpu_naive");
    const Availability a = naive->availability();
    if (!a.ok) return {{"skipped", a.reason}};
    const std::int64_t n = shape.values() * c.fields;
    // The largest cases take seconds per run: fewer repetitions there.
    const int reps = n > (std::int64_t{1} << 26) ? 5 : std::min(run.timer.settings().repetitions, 9);
    std::vector<double> t;
    for (int r = 0; r < reps + 1; ++r) {  // the first run is a warm-up
      PhaseTimes times;
      naive->prepare(shape, c.fields, host.data(), Mode::mirror, true, times);
      if (r > 0) t.push_back(times.get(phase::prefilter));
    }
    naive->release();
    const runner::SampleStats st = runner::summarize(std::move(t));
    ratios["gpu_naive"] = {{"prefilter_phase_vs_copy_hot", st.median / copy_hot.median}};
    return {{"prefilter_phase", stats_json(st)},
            {"note", "Implementation::prepare's prefilter phase (one launch per axis), right after its upload"}};
  } catch (const Unsupported& e) {
    return {{"skipped", e.what()}};
  } catch (const std::exception& e) {
    run.problems.push_back(c.name + ": gpu_naive: " + e.what());
    return {{"error", e.what()}};
  }
}

Benchmark prefilter(Run& run, const std::vector<Case>& cases) {
  return {
      "prefilter",
      "per case: copy (device-to-device cudaMemcpyAsync of the buffer), gpu_flex, gpu_flex_fixed and gpu_lines timed "
      "interleaved in the hot, cold and clean L2 states, ratios to the copy of the same state; gpu_naive's "
      "prefilter phase through the registry; plans and their traffic per value; outputs against the double oracle",
      {{"case", case_axis(cases, run.cfg.cases)}},
      [&run, cases](State& s) {
        const Case& c = find_case(cases, s.string("case"));
        const cudaStream_t stream = run.stream();
        const GridShape shape = GridShape::make(c.extents, c.channels);
        const std::int64_t n = shape.values() * c.fields;
        const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
        const Mode mode = Mode::mirror;
        log("case " + c.name + " (" + std::to_string(n) + " values)");

        const std::vector<float> host = datasets::make_field(datasets::FieldKind::noise, shape, c.fields, 2026);
        run.in.resize(static_cast<std::size_t>(n));
        run.out.resize(static_cast<std::size_t>(n));
        flex::FlexRunner runner;
        const std::int64_t tmp_values = std::max(runner.tmp_values(flex::Variant::fixed, shape, c.fields, mode),
                                                 runner.tmp_values(flex::Variant::flexible, shape, c.fields, mode));
        run.tmp.resize(static_cast<std::size_t>(std::max<std::int64_t>(tmp_values, 1)));
        gpu::lines::LinesRunner lines;
        const std::int64_t lines_tmp_values = lines.tmp_values(shape, c.fields);
        run.tmp_lines.resize(static_cast<std::size_t>(std::max<std::int64_t>(lines_tmp_values, 1)));
        float* const lines_tmp = lines_tmp_values > 0 ? run.tmp_lines.data() : nullptr;
        SB_CUDA_CHECK(cudaMemcpyAsync(run.in.data(), host.data(), bytes, cudaMemcpyHostToDevice, stream));
        SB_CUDA_CHECK(cudaStreamSynchronize(stream));

        auto flex_region = [&](flex::Variant v) -> Region {
          return [&, v] {
            runner.run(v, shape, c.fields, mode, run.in.data(), run.out.data(), run.tmp.data(), stream);
          };
        };
        // The floors beside them: an empty launch (what any launched work costs) and the
        // copy; and gpu_flex replayed from a CUDA graph, as a caller that repeats it would.
        // Relaxed: the first run's planning sets the kernel's attributes and may allocate.
        const gpu::CapturedGraph flex_graph(stream, flex_region(flex::Variant::flexible), cudaStreamCaptureModeRelaxed);
        // gpu_lines plans and captures its graph here, outside the timed regions.
        lines.ready(shape, c.fields, mode, run.in.data(), run.out.data(), lines_tmp, stream);
        const Region lines_region = [&] {
          lines.run(shape, c.fields, mode, run.in.data(), run.out.data(), lines_tmp, stream);
        };
        std::vector<std::pair<std::string, Region>> ops = {
            {"copy",
             [&] {
               SB_CUDA_CHECK(
                   cudaMemcpyAsync(run.out.data(), run.in.data(), bytes, cudaMemcpyDeviceToDevice, stream));
             }},
            {"empty_launch", [&] { launch_empty(stream); }},
            {"gpu_flex", flex_region(flex::Variant::flexible)},
            {"gpu_flex_fixed", flex_region(flex::Variant::fixed)},
            {"gpu_lines", lines_region}};
        if (flex_graph.captured()) ops.emplace_back("gpu_flex_graph", [&] { flex_graph.replay(); });
        auto m = run.timer.measure_interleaved(ops, kStates);

        json& row = s.row();
        row["gpu_flex_graph"] = flex_graph.captured() ? "captured once, replayed per run" : "not captured: " + flex_graph.why();
        row["gpu_lines_launch"] = lines.launch_description();
        row["shape"] = c.extents;
        row["channels"] = c.channels;
        row["fields"] = c.fields;
        row["mode"] = std::string(to_string(mode));
        row["data"] = "noise";
        row["values"] = n;
        row["bytes"] = bytes;
        json timings, ratios;
        long outlasted = 0;
        for (const auto& [op, region] : ops) {
          for (L2State st : kStates) {
            const Measurement& x = m[op][st];
            timings[op][std::string(to_string(st))] = to_json(x);
            outlasted += x.enqueue_outlasted_hold;
            if (op != "copy")
              ratios[op][std::string(to_string(st))] = x.gpu.median / m["copy"][st].gpu.median;
          }
        }
        log("case " + c.name + ": copy " + fmt("%.4f", m["copy"][L2State::hot].gpu.median * 1e3) + " ms, gpu_flex " +
            fmt("%.4f", m["gpu_flex"][L2State::hot].gpu.median * 1e3) + " ms (hot); gpu_flex / copy hot, cold, clean " +
            per_state(ratios["gpu_flex"], "%.2f") + "; gpu_flex_fixed / copy " +
            per_state(ratios["gpu_flex_fixed"], "%.2f"));
        if (outlasted > 0)
          log("warning: " + c.name + ": " + std::to_string(outlasted) +
              " timed runs took longer than --hold-us to enqueue; their times include GPU idle time");
        timings["gpu_naive"] = time_gpu_naive(run, c, shape, host, m["copy"][L2State::hot].gpu, ratios);
        row["timings"] = std::move(timings);
        row["ratio_to_copy"] = std::move(ratios);

        // Both plans and the design's memory traffic per value (footprints with halos and
        // warm-up planes, at the L2 level).
        for (flex::Variant v : {flex::Variant::flexible, flex::Variant::fixed}) {
          const flex::Plan p = runner.plan(v, shape, c.fields, mode);
          const flex::Traffic tr = flex::traffic(p);
          row["plan"][flex_name(v)] = {{"description", flex::describe(p)},
                                       {"passes", p.passes.size()},
                                       {"read_bytes_per_value", tr.read_bytes / static_cast<double>(n)},
                                       {"write_bytes_per_value", tr.write_bytes / static_cast<double>(n)}};
        }
        row["plan"]["gpu_lines"] = {{"description", lines.plan_description()}};

        if (run.cfg.verify) {
          std::vector<double> ref(host.begin(), host.end());
          oracle::prefilter_f64(shape, c.fields, ref.data(), mode);
          std::vector<float> got(static_cast<std::size_t>(n));
          // impls/gpu_flex/README.md: float32 recursions as cpu_scalar, plus the halo
          // truncation (<= 1.0e-9 per axis).
          const double tolerance = shape.dims <= 3 ? 2e-7 : 5e-7;
          for (const char* op : {"gpu_flex", "gpu_flex_fixed", "gpu_lines"}) {
            const std::string name = op;
            SB_CUDA_CHECK(cudaMemsetAsync(run.out.data(), 0xFF, bytes, stream));  // poison: NaN
            if (name == "gpu_lines")
              lines_region();
            else
              flex_region(name == "gpu_flex" ? flex::Variant::flexible : flex::Variant::fixed)();
            SB_CUDA_CHECK(cudaMemcpyAsync(got.data(), run.out.data(), bytes, cudaMemcpyDeviceToHost, stream));
            SB_CUDA_CHECK(cudaStreamSynchronize(stream));
            std::int64_t nans = 0;
            const double e = rel_l2(got, ref, &nans);
            const bool ok = nans == 0 && e <= tolerance;
            row["accuracy"][name] = {
                {"rel_l2_vs_oracle", e}, {"unwritten_or_nan", nans}, {"tolerance", tolerance}, {"pass", ok}};
            if (!ok)
              run.problems.push_back(c.name + ": " + name + " rel L2 " + std::to_string(e) + " (tolerance " +
                                     std::to_string(tolerance) + "), " + std::to_string(nans) + " values NaN");
          }
        }
      }};
}

// Coefficients (gpu_flex's prefilter of smooth data) and uniform queries of one case.
struct EvalProblem {
  GridShape shape;
  std::int64_t queries = 0;
  DeviceBuffer<float> coeffs, coords, values;
};

std::unique_ptr<EvalProblem> make_eval_problem(const Case& c, std::int64_t queries, cudaStream_t stream) {
  auto p = std::make_unique<EvalProblem>();
  p->shape = GridShape::make(c.extents, c.channels);
  p->queries = queries;
  const std::int64_t n = p->shape.values();
  const std::vector<float> host = datasets::make_field(datasets::FieldKind::smooth, p->shape, 1, 3);
  const std::vector<float> coords = datasets::make_queries(datasets::QueryPattern::uniform, p->shape, queries, 4);
  DeviceBuffer<float> samples(static_cast<std::size_t>(n));
  p->coeffs.resize(static_cast<std::size_t>(n));
  p->coords.resize(coords.size());
  p->values.resize(static_cast<std::size_t>(queries * c.channels));
  SB_CUDA_CHECK(cudaMemcpyAsync(samples.data(), host.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
  SB_CUDA_CHECK(
      cudaMemcpyAsync(p->coords.data(), coords.data(), coords.size() * sizeof(float), cudaMemcpyHostToDevice, stream));
  flex::FlexRunner runner;
  const std::int64_t tmp_values = runner.tmp_values(flex::Variant::flexible, p->shape, 1, Mode::mirror);
  DeviceBuffer<float> tmp(static_cast<std::size_t>(std::max<std::int64_t>(tmp_values, 1)));
  runner.run(flex::Variant::flexible, p->shape, 1, Mode::mirror, samples.data(), p->coeffs.data(), tmp.data(), stream);
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));  // before `samples` and `tmp` are freed
  return p;
}

Benchmark evaluate(Run& run, const std::vector<Case>& cases, Kept<EvalProblem>& kept) {
  constexpr std::int64_t kQueries = 1 << 20;
  return {"evaluate",
          "per D: gpu::evaluate_global (global) against gpu::TextureField (texture) on the same coefficients "
          "(gpu_flex's prefilter of smooth data, mirror), 2^20 uniform queries; the evaluation kernel alone, hot",
          {{"case", case_axis(cases, run.cfg.cases)}, {"path", {"global", "texture"}}},
          [&run, &kept, cases](State& s) {
            const Case& c = find_case(cases, s.string("case"));
            const cudaStream_t stream = run.stream();
            EvalProblem& p = kept.get(c.name, [&] { return make_eval_problem(c, kQueries, stream); });
            const std::string path = s.string("path");
            log("evaluate " + s.point().dump());
            SB_CUDA_CHECK(cudaMemsetAsync(p.values.data(), 0xFF, p.values.bytes(), stream));  // poison: NaN
            Measurement m;
            if (path == "global") {
              m = run.timer.measure([&] {
                gpu::evaluate_global(p.shape, 1, Mode::mirror, p.coeffs.data(), p.coords.data(), p.queries,
                                     p.values.data(), stream);
              });
            } else {
              gpu::TextureField texture;  // bind throws Unsupported for shapes textures cannot hold
              texture.bind(p.shape, 1, Mode::mirror, p.coeffs.data(), stream);
              m = run.timer.measure([&] { texture.evaluate(p.coords.data(), p.queries, p.values.data(), stream); });
            }
            std::vector<float> values(p.values.size());
            SB_CUDA_CHECK(
                cudaMemcpyAsync(values.data(), p.values.data(), p.values.bytes(), cudaMemcpyDeviceToHost, stream));
            SB_CUDA_CHECK(cudaStreamSynchronize(stream));
            std::int64_t unwritten = 0;
            for (float v : values) unwritten += std::isnan(v);
            json& row = s.row();
            row["shape"] = c.extents;
            row["channels"] = c.channels;
            row["mode"] = "mirror";
            row["queries"] = p.queries;
            row["evaluate_hot"] = to_json(m);
            row["unwritten_values"] = unwritten;
            if (unwritten > 0)
              run.problems.push_back("evaluate " + c.name + " " + path + ": " + std::to_string(unwritten) +
                                     " values unwritten");
          }};
}

// The summary table (Markdown, on stdout): what a reader of the log needs.
void print_summary(const json& doc, const TimingSettings& timing) {
  const json benchmarks = field(doc, "benchmarks");
  if (benchmarks.contains("prefilter")) {
    std::printf("\nprefilter: medians of %d repetitions; ratios = median(op) / median(copy) of the same L2 state; "
                "each cell: hot, cold, clean\n",
                timing.repetitions);
    std::printf("| case | empty launch ms | copy ms | gpu_flex ms | gpu_flex / copy | gpu_flex graph / copy | "
                "gpu_flex_fixed / copy | gpu_naive ms | rel L2 gpu_flex, fixed, lines | gpu_lines ms | gpu_lines / copy "
                "|\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const json& r : field(benchmarks["prefilter"], "rows")) {
      const std::string name = text(field(r, "case"));
      for (const char* end : {"error", "skipped"})
        if (r.contains(end)) std::printf("| %s | %s: %s |\n", name.c_str(), end, text(field(r, end)).c_str());
      if (r.contains("error") || r.contains("skipped")) continue;
      const json t = field(r, "timings"), ratio = field(r, "ratio_to_copy"), naive = field(t, "gpu_naive");
      std::string naive_ms = "-";
      if (field(field(naive, "prefilter_phase"), "median").is_number())
        naive_ms = fmt("%.3f", naive["prefilter_phase"]["median"].get<double>() * 1e3);
      else if (naive.contains("error") || naive.contains("skipped"))
        naive_ms = naive.contains("error") ? "error" : "skipped";
      // Not verified: "-"; a NaN left in the output makes the distance infinite (null
      // in the file): "inf".
      std::string acc = "-";
      if (const json a = field(r, "accuracy"); a.is_object()) {
        acc.clear();
        for (const char* op : {"gpu_flex", "gpu_flex_fixed", "gpu_lines"}) {
          const json e = field(field(a, op), "rel_l2_vs_oracle");
          acc += (acc.empty() ? "" : ", ") + (e.is_number() ? fmt("%.2g", e.get<double>()) : std::string("inf"));
        }
      }
      const std::string graph = t.contains("gpu_flex_graph") ? per_state(field(ratio, "gpu_flex_graph"), "%.2f") : "-";
      std::printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name.c_str(),
                  per_state(field(t, "empty_launch"), "%.4f", 1e3).c_str(), per_state(field(t, "copy"), "%.4f", 1e3).c_str(),
                  per_state(field(t, "gpu_flex"), "%.4f", 1e3).c_str(), per_state(field(ratio, "gpu_flex"), "%.2f").c_str(),
                  graph.c_str(), per_state(field(ratio, "gpu_flex_fixed"), "%.2f").c_str(), naive_ms.c_str(), acc.c_str(),
                  per_state(field(t, "gpu_lines"), "%.4f", 1e3).c_str(), per_state(field(ratio, "gpu_lines"), "%.2f").c_str());
    }
  }
  if (benchmarks.contains("evaluate")) {
    std::printf("\nevaluate: medians (hot), 2^20 uniform queries\n| case | path | ms |\n|---|---|---|\n");
    for (const json& r : field(benchmarks["evaluate"], "rows")) {
      const json median = field(field(r, "evaluate_hot"), "median");
      const std::string ms = median.is_number() ? fmt("%.4f", median.get<double>() * 1e3)
                             : r.contains("skipped") ? "skipped: " + text(field(r, "skipped"))
                                                     : "error: " + text(field(r, "error"));
      std::printf("| %s | %s | %s |\n", text(field(r, "case")).c_str(), text(field(r, "path")).c_str(),
                  ms.c_str());
    }
  }
  std::fflush(stdout);
}

int run_all(const Config& cfg) {
  const std::string why = gpu::cuda_unavailable_reason();
  if (!why.empty()) throw Error("needs a CUDA device: " + why);
  const std::filesystem::path out(cfg.out);
  if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path());

  cudaStream_t stream;
  SB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  GpuTimer timer(stream, cfg.timing);
  json context = bench_context(kProgram, cfg.machine, cfg.git_sha, {"gpu_flex", "gpu_flex_fixed", "gpu_naive", "gpu_lines"});
  context["timing"] = to_json(cfg.timing);
  context["quick"] = cfg.quick;
  context["verify"] = cfg.verify;
  // The shared memory a block may opt in to sizes gpu_flex's tiles, so its plans.
  if (context["gpu"].is_object()) {
    int dev = 0, smem = 0;
    SB_CUDA_CHECK(cudaGetDevice(&dev));
    SB_CUDA_CHECK(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    context["gpu"]["smem_per_block_optin"] = smem;
  }
  ResultFile file(out, kSchema, kSchemaVersion, context);
  file.write();  // the context alone: an output path that cannot be written fails now, not after the run

  Run run{cfg, timer, {}, {}, {}, {}, {}};
  const std::vector<Case> pcases = prefilter_cases(cfg.quick);
  if (!case_axis(pcases, cfg.cases).empty()) file.run(prefilter(run, pcases));
  run.in.reset();
  run.out.reset();
  run.tmp.reset();
  run.tmp_lines.reset();
  if (cfg.eval) {
    const std::vector<Case> ecases = evaluate_cases();
    Kept<EvalProblem> kept;
    if (!case_axis(ecases, cfg.cases).empty()) file.run(evaluate(run, ecases, kept));
  }
  std::cerr << "wrote " << out.string() << std::endl;
  print_summary(file.doc(), cfg.timing);
  for (const std::string& p : run.problems) std::cerr << "FAILED: " << p << std::endl;
  if (file.failures()) std::cerr << "FAILED: " << file.failures() << " benchmark points ended in an error" << std::endl;
  SB_CUDA_CHECK(cudaStreamDestroy(stream));
  return file.failures() || !run.problems.empty() ? 1 : 0;
}

}  // namespace
}  // namespace splinebench::bench

int main(int argc, char** argv) {
  using namespace splinebench::bench;
  Config cfg;
  CLI::App app{"bench_gpu_prefilter: gpu_flex / gpu_flex_fixed / gpu_lines / gpu_naive prefilter against a device-to-device "
               "copy, in the hot, cold and clean L2 states (JSON, bench/gpu_prefilter/README.md)"};
  app.add_option("--out", cfg.out, "output JSON file (its folder is created)")->capture_default_str();
  app.add_option("--git-sha", cfg.git_sha, "revision to record (default or 'unknown': probed from the source tree)");
  app.add_option("--machine", cfg.machine, "machine label to record (default: host name)");
  app.add_option("--reps", cfg.timing.repetitions, "kept repetitions per timing")
      ->check(CLI::Range(9, 100000))
      ->capture_default_str();
  app.add_option("--warmups", cfg.timing.warmups, "discarded repetitions before them")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  app.add_option("--hold-us", cfg.timing.hold_us, "blocking kernel ahead of each timed region, microseconds (0: none)")
      ->check(CLI::Range(0.0, 1e6))
      ->capture_default_str();
  app.add_option("--case", cfg.cases, "run only these cases (names as in the JSON; repeat or comma-separate)")
      ->delimiter(',');
  app.add_flag("--quick", cfg.quick, "prefilter cases 3d_128 and frames_160x120_rgba_x100 only");
  app.add_flag("--eval", cfg.eval, "add the evaluate benchmark (global memory against texture, per D)");
  app.add_flag("!--no-verify", cfg.verify, "skip the check of the outputs against the double oracle");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  // Every --case must name a case of a benchmark this run has.
  for (const std::string& name : cfg.cases) {
    std::vector<Case> known = prefilter_cases(cfg.quick);
    if (cfg.eval)
      for (const Case& c : evaluate_cases()) known.push_back(c);
    if (std::none_of(known.begin(), known.end(), [&](const Case& c) { return c.name == name; })) {
      std::cerr << kProgram << ": --case: no case named '" << name << "' in this run; cases:";
      for (const Case& c : known) std::cerr << ' ' << c.name;
      std::cerr << (cfg.eval ? "" : " (evaluate cases need --eval)") << '\n';
      return 2;
    }
  }
  try {
    return run_all(cfg);
  } catch (const std::exception& e) {
    std::cerr << kProgram << ": " << e.what() << '\n';
    return 1;
  }
}
