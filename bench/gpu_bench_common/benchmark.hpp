// The benchmark mechanism shared by the standalone GPU benchmarks, in nvbench's spirit:
// a benchmark is a function plus declared axes; this runs the function at every point of
// the axes' cartesian product and writes one JSON file with the same statistics, the
// same run context and the same layout for every benchmark:
//
//   { "schema": NAME, "schema_version": N,
//     "context": { the harness's run context (git, compiler, CUDA, GPU, CPU, registry,
//                  implementations' run facts) + "timing": how regions are timed },
//     "benchmarks": { BENCHMARK: { "description": "...",
//                                  "axes": [{"name": AXIS, "values": [...]}, ...],
//                                  "rows": [{AXIS: value, ..., results...}, ...] } } }
//
// Timings inside rows are stats_json() objects in seconds, the keys of the harness's
// records: {"samples", "median", "min", "max", "q1", "q3", "iqr"}. A point that throws
// Unsupported gets "skipped": reason, any other exception "error": message (counted in
// failures()); the other points still run. The file is rewritten atomically after
// every point, so an interrupted run keeps what it finished.
//
// Plain C++ (no CUDA): the GPU side is gpu_timer.hpp.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "splinebench/runner/stats.hpp"

namespace splinebench::bench {

// One declared axis (nvbench's add_int64_axis / add_string_axis): its values may be
// numbers, strings or small objects (a named case).
struct Axis {
  std::string name;
  std::vector<nlohmann::json> values;
};

// Every combination of the axes' values as {"axis": value, ...}, the last axis varying
// fastest. No axes: one point, {}.
std::vector<nlohmann::json> cartesian_product(const std::vector<Axis>& axes);

// One point of a benchmark while its body runs.
class State {
 public:
  explicit State(nlohmann::json point) : point_(std::move(point)), row_(point_) {}
  // The point's value on `axis` (throws splinebench::Error for an axis not declared).
  const nlohmann::json& axis(const std::string& axis) const;
  std::int64_t int64(const std::string& axis) const { return this->axis(axis).get<std::int64_t>(); }
  std::string string(const std::string& axis) const { return this->axis(axis).get<std::string>(); }
  const nlohmann::json& point() const { return point_; }
  // The point's output row: starts as the axis values; the body adds its results.
  nlohmann::json& row() { return row_; }

 private:
  nlohmann::json point_;
  nlohmann::json row_;
};

struct Benchmark {
  std::string name;
  std::string description;
  std::vector<Axis> axes;
  std::function<void(State&)> body;
};

// Timing statistics as the harness writes them (seconds): the harness's own helper.
using runner::stats_json;

// The harness's run context for a standalone benchmark run (suite = the benchmark
// program's name), with `implementations` mapping each implementation measured to its
// run facts (run_facts()). `git_sha`, unless empty or "unknown", overrides the probed
// revision (which SPLINEBENCH_GIT_SHA also sets, see run_context.hpp).
nlohmann::json bench_context(const std::string& program, const std::string& machine, const std::string& git_sha,
                             const std::vector<std::string>& implementations);

// The output file of one benchmark program.
class ResultFile {
 public:
  // Nothing is written until the first benchmark finishes; the folder must exist.
  ResultFile(std::filesystem::path path, std::string schema, int schema_version, nlohmann::json context);

  // Runs `b` at every point of its axes (in order), rewriting the file after each.
  void run(const Benchmark& b);
  // Points that ended in an error (not counting skipped ones).
  int failures() const { return failures_; }
  nlohmann::json& doc() { return doc_; }
  void write() const;

 private:
  std::filesystem::path path_;
  nlohmann::json doc_;
  int failures_ = 0;
};

// Writes `doc` (indented) to `path` through the project's atomic writer: readers see
// the old file or the whole new one.
void write_json_atomically(const std::filesystem::path& path, const nlohmann::json& doc);

// Expensive set-up shared by consecutive points (a prepared grid, a query set): keeps
// one object, made again only when the key changes, so at most one is alive at a time.
template <typename T>
class Kept {
 public:
  T& get(const nlohmann::json& key, const std::function<std::unique_ptr<T>()>& make) {
    if (!object_ || key != key_) {
      object_.reset();  // free the old one before making the new one
      object_ = make();
      key_ = key;
    }
    return *object_;
  }
  void reset() { object_.reset(); }

 private:
  nlohmann::json key_;
  std::unique_ptr<T> object_;
};

}  // namespace splinebench::bench
