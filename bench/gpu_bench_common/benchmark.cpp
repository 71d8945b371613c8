#include "benchmark.hpp"

#include <chrono>
#include <iostream>

#include "splinebench/error.hpp"
#include "splinebench/io/atomic_file.hpp"
#include "splinebench/registry.hpp"
#include "splinebench/runner/run_context.hpp"

namespace splinebench::bench {

using nlohmann::json;

std::vector<json> cartesian_product(const std::vector<Axis>& axes) {
  std::vector<json> points{json::object()};
  for (const Axis& axis : axes) {
    if (axis.values.empty()) throw Error("benchmark axis '" + axis.name + "' has no values");
    std::vector<json> next;
    next.reserve(points.size() * axis.values.size());
    for (const json& p : points)
      for (const json& v : axis.values) {
        json q = p;
        q[axis.name] = v;
        next.push_back(std::move(q));
      }
    points = std::move(next);
  }
  return points;
}

const json& State::axis(const std::string& axis) const {
  const auto it = point_.find(axis);
  if (it == point_.end()) throw Error("benchmark has no axis '" + axis + "'");
  return *it;
}

json bench_context(const std::string& program, const std::string& machine, const std::string& git_sha,
                   const std::vector<std::string>& implementations) {
  const auto now = runner::Clock::now();
  json facts = json::object();
  for (const auto& name : implementations) facts[name] = make_implementation(name)->run_facts();
  json ctx = runner::collect_context(machine.empty() ? runner::host_name() : machine, runner::utc_compact(now),
                                     program, now, facts);
  // "unknown" is what scripts pass when they know nothing better: probe instead.
  if (!git_sha.empty() && git_sha != "unknown") {
    ctx["git_sha"] = git_sha;
    ctx["git_dirty"] = nullptr;
    ctx["git_source"] = "--git-sha";
  }
  return ctx;
}

ResultFile::ResultFile(std::filesystem::path path, std::string schema, int schema_version, json context)
    : path_(std::move(path)) {
  doc_ = {{"schema", std::move(schema)},
          {"schema_version", schema_version},
          {"context", std::move(context)},
          {"benchmarks", json::object()}};
}

void ResultFile::run(const Benchmark& b) {
  json axes = json::array();
  for (const Axis& a : b.axes) axes.push_back({{"name", a.name}, {"values", a.values}});
  json& entry = doc_["benchmarks"][b.name];
  entry = {{"description", b.description}, {"axes", std::move(axes)}, {"rows", json::array()}};
  // Rewritten after every point: a long point (minutes at 2048^3) that is killed, by a
  // time limit or the host's memory, leaves the points before it on disk and its own name
  // as the last line on stderr.
  for (const json& point : cartesian_product(b.axes)) {
    State state(point);
    const auto t0 = std::chrono::steady_clock::now();
    std::cerr << "[" << b.name << "] " << point.dump() << " ..." << std::endl;
    try {
      b.body(state);
    } catch (const Unsupported& e) {
      state.row()["skipped"] = e.what();
      std::cerr << "[" << b.name << "] " << point.dump() << " skipped: " << e.what() << std::endl;
    } catch (const std::exception& e) {
      state.row()["error"] = e.what();
      ++failures_;
      std::cerr << "[" << b.name << "] " << point.dump() << " failed: " << e.what() << std::endl;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cerr << "[" << b.name << "] " << point.dump() << " done in " << seconds << " s" << std::endl;
    entry["rows"].push_back(std::move(state.row()));
    write();
  }
}

void ResultFile::write() const { write_json_atomically(path_, doc_); }

void write_json_atomically(const std::filesystem::path& path, const json& doc) {
  const std::string text = doc.dump(1) + "\n";
  io::write_file_atomically(path, [&](const io::PutBytes& put) { put(text.data(), text.size()); });
}

}  // namespace splinebench::bench
