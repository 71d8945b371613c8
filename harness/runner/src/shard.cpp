#include "splinebench/runner/shard.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <numeric>
#include <set>

#include "splinebench/error.hpp"

namespace splinebench::runner {

using nlohmann::json;
namespace fs = std::filesystem;

Shard parse_shard(const std::string& text, const std::string& what) {
  const auto bad = [&] {
    return Error(what + ": '" + text + "' is not I/N (this process's part I of N, 1 <= I <= N <= 4096)");
  };
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size()) throw bad();
  const auto number = [&](const std::string& digits) {
    if (digits.empty() || digits.size() > 4 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      throw bad();
    return std::stoi(digits);
  };
  Shard s{number(text.substr(0, slash)), number(text.substr(slash + 1))};
  if (s.count < 1 || s.count > 4096 || s.index < 1 || s.index > s.count) throw bad();
  return s;
}

std::vector<std::size_t> shard_case_indices(const std::vector<PlannedCase>& cases, const Shard& shard) {
  std::vector<std::size_t> order(cases.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (cases[a].work != cases[b].work) return cases[a].work > cases[b].work;
    return cases[a].id < cases[b].id;
  });
  std::vector<double> load(static_cast<std::size_t>(shard.count), 0.0);
  std::vector<std::size_t> mine;
  for (std::size_t i : order) {
    const auto least = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[least] += std::max(cases[i].work, 0.0);
    if (static_cast<int>(least) + 1 == shard.index) mine.push_back(i);
  }
  std::sort(mine.begin(), mine.end());
  return mine;
}

namespace {

class ShardedRun final : public SystemRun {
 public:
  ShardedRun(std::unique_ptr<SystemRun> inner, const Shard& shard)
      : inner_(std::move(inner)), shard_(shard), index_(shard_case_indices(inner_->cases(), shard)) {
    for (std::size_t i : index_) cases_.push_back(inner_->cases()[i]);
    // A sweep keeps the name and covers its cases that fell to this shard (the indices
    // are ascending, so they stay contiguous).
    for (const PlannedSweep& s : inner_->sweeps()) {
      const auto first = std::lower_bound(index_.begin(), index_.end(), s.first_case);
      const auto last = std::lower_bound(index_.begin(), index_.end(), s.first_case + s.case_count);
      sweeps_.push_back({s.name, static_cast<std::size_t>(first - index_.begin()),
                         static_cast<std::size_t>(last - first)});
    }
    notes_ = inner_->notes();
    notes_.push_back("shard " + shard_.text() + ": " + std::to_string(cases_.size()) + " of " +
                     std::to_string(inner_->cases().size()) + " cases");
  }
  const std::string& suite() const override { return inner_->suite(); }
  const std::vector<PlannedCase>& cases() const override { return cases_; }
  const std::vector<PlannedSweep>& sweeps() const override { return sweeps_; }
  const std::vector<std::string>& notes() const override { return notes_; }
  json options() const override {
    json o = inner_->options();
    o["shard"] = shard_.text();
    return o;
  }
  json entry_facts() const override { return inner_->entry_facts(); }
  json run_case(std::size_t index, SkipKind* kind) override { return inner_->run_case(index_.at(index), kind); }
  json suite_document() const override { return inner_->suite_document(); }
  void set_output_dir(const fs::path& dir) override { inner_->set_output_dir(dir); }
  std::string summary_table(const std::vector<json>& records) const override {
    return inner_->summary_table(records);
  }

 private:
  std::unique_ptr<SystemRun> inner_;
  Shard shard_;
  std::vector<std::size_t> index_;
  std::vector<PlannedCase> cases_;
  std::vector<PlannedSweep> sweeps_;
  std::vector<std::string> notes_;
};

json read_json_file(const fs::path& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) throw Error(what + ": cannot read " + path.string());
  try {
    return json::parse(in);
  } catch (const json::parse_error& e) {
    throw Error(what + ": " + path.string() + " is not JSON: " + e.what());
  }
}

json without_shard(json options) {
  options.erase("shard");
  return options;
}

}  // namespace

std::unique_ptr<SystemRun> shard_run(std::unique_ptr<SystemRun> inner, const Shard& shard) {
  return std::make_unique<ShardedRun>(std::move(inner), shard);
}

json merge_shard_runs(const std::vector<fs::path>& dirs, Replan replan) {
  if (dirs.empty()) throw Error("merge: give the shard runs' folders");
  struct Part {
    fs::path dir;
    json manifest, results;
    Shard shard;
  };
  std::vector<Part> parts;
  for (const fs::path& dir : dirs) {
    Part p;
    p.dir = dir;
    const std::string name = dir.string();
    if (!fs::is_directory(dir)) throw Error("merge: " + name + " is not a folder");
    p.manifest = read_json_file(dir / "run.json", "merge");
    if (!p.manifest.is_object() || p.manifest.value("schema", "") != "splinebench-run")
      throw Error("merge: " + name + " is not a run folder (no splinebench-run run.json)");
    for (const char* key : {"suite", "options", "context"})
      if (!p.manifest.contains(key) || !p.manifest[key].is_object())
        throw Error("merge: " + name + "/run.json has no \"" + key + "\" object");
    if (!fs::exists(dir / "results.json"))
      throw Error("merge: " + name + (fs::exists(dir / "results.json.gz")
                                          ? " is compacted; merge shard runs before `reports.compact`"
                                          : " is not finished (no results.json); finish it with --resume"));
    p.results = read_json_file(dir / "results.json", "merge");
    const json& options = p.manifest.value("options", json::object());
    if (!options.contains("shard") || !options["shard"].is_string())
      throw Error("merge: " + name + " is not a shard run (its options have no \"shard\"; made without --shard)");
    p.shard = parse_shard(options["shard"].get<std::string>(), "merge: " + name + ": options.shard");
    parts.push_back(std::move(p));
  }
  std::sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) { return a.shard.index < b.shard.index; });
  const Part& first = parts.front();
  const int count = first.shard.count;
  if (static_cast<int>(parts.size()) != count) {
    std::set<int> have;
    for (const Part& p : parts) have.insert(p.shard.index);
    std::string missing;
    for (int i = 1; i <= count; ++i)
      if (!have.count(i)) missing += (missing.empty() ? "" : ", ") + std::to_string(i) + "/" + std::to_string(count);
    throw Error("merge: " + std::to_string(parts.size()) + " runs given for " + std::to_string(count) +
                " shards" + (missing.empty() ? "" : " (missing: " + missing + ")"));
  }
  const json options = without_shard(first.manifest["options"]);
  const json& ctx0 = first.manifest["context"];
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const Part& p = parts[k];
    const std::string name = p.dir.string();
    if (p.shard.count != count) throw Error("merge: " + name + " is shard " + p.shard.text() + ", not of " +
                                            std::to_string(count));
    if (p.shard.index != static_cast<int>(k) + 1)
      throw Error("merge: shard " + p.shard.text() + " given twice (" + name + ")");
    if (p.manifest["suite"] != first.manifest["suite"] || p.manifest.value("system", "") != first.manifest.value("system", ""))
      throw Error("merge: " + name + " ran another suite than " + first.dir.string());
    if (without_shard(p.manifest["options"]) != options)
      throw Error("merge: " + name + " ran with other options than " + first.dir.string() + ": " +
                  without_shard(p.manifest["options"]).dump() + " against " + options.dump());
    const json& ctx = p.manifest["context"];
    for (const char* key : {"git_sha", "git_dirty", "build_type", "machine"})
      if (ctx.value(key, json(nullptr)) != ctx0.value(key, json(nullptr)))
        throw Error("merge: " + name + " has context." + key + " " + ctx.value(key, json(nullptr)).dump() +
                    ", " + first.dir.string() + " " + ctx0.value(key, json(nullptr)).dump() +
                    ": shards of one run come from one build and one machine label");
  }
  // The union of the shards' records is exactly the unsharded plan's cases.
  const std::string origin = (first.dir / "run.json").string() + " (suite)";
  const std::unique_ptr<SystemRun> whole = replan(first.manifest["suite"], origin, options);
  std::map<std::string, json> by_id;
  json shards = json::array();
  for (const Part& p : parts) {
    const json& records = p.results.value("records", json::array());
    for (const json& r : records) {
      const std::string id = r.value("case_id", "");
      if (!by_id.emplace(id, r).second)
        throw Error("merge: case " + id + " is in two shards (" + p.dir.string() + " and another)");
    }
    const json& ctx = p.manifest["context"];
    const json& gpu = ctx.value("gpu", json(nullptr));
    shards.push_back({{"shard", p.shard.text()},
                      {"run_id", ctx.value("run_id", json(nullptr))},
                      {"hostname", ctx.value("hostname", json(nullptr))},
                      {"gpu", gpu.is_object() ? gpu.value("name", json(nullptr)) : json(nullptr)},
                      {"gpu_uuid", gpu.is_object() ? gpu.value("uuid", json(nullptr)) : json(nullptr)},
                      {"date", ctx.value("date", json(nullptr))},
                      {"wall_seconds", p.results.value("context", json::object()).value("wall_seconds", json(nullptr))},
                      {"cases", records.size()}});
  }
  json ordered = json::array();
  for (const PlannedCase& c : whole->cases()) {
    auto found = by_id.find(c.id);
    if (found == by_id.end()) throw Error("merge: case " + c.id + " of the plan is in no shard");
    ordered.push_back(found->second);
    by_id.erase(found);
  }
  if (!by_id.empty())
    throw Error("merge: case " + by_id.begin()->first + " is in a shard but not in the suite's plan");
  json manifest = first.manifest;
  manifest["options"] = options;
  manifest["resumed"] = json::array();
  manifest["context"]["shards"] = shards;
  manifest["context"].erase("resumed");
  return {{"manifest", manifest}, {"records", ordered}};
}

}  // namespace splinebench::runner
