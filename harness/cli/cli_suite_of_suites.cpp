#include "cli_suite_of_suites.hpp"

#include <algorithm>
#include <set>

#include "cli_systems.hpp"
#include "splinebench/error.hpp"
#include "splinebench/runner/plan.hpp"
#include "splinebench/runner/suite.hpp"

namespace splinebench::cli {
namespace {

using nlohmann::json;

// One run over several suites (of any systems), case by case in the order given: the
// parts' cases, sweeps (named "<suite>/<sweep>") and notes one after the other.
class SuitesRun final : public runner::SystemRun {
 public:
  SuitesRun(std::string name, json document, std::vector<std::unique_ptr<runner::SystemRun>> parts, json options)
      : name_(std::move(name)), document_(std::move(document)), parts_(std::move(parts)), options_(std::move(options)) {
    for (std::size_t p = 0; p < parts_.size(); ++p) {
      const std::size_t offset = cases_.size();
      for (const auto& c : parts_[p]->cases()) {
        cases_.push_back(c);
        owner_.push_back({p, cases_.size() - 1 - offset});
      }
      for (auto s : parts_[p]->sweeps()) {
        s.name = parts_[p]->suite() + "/" + s.name;
        s.first_case += offset;
        sweeps_.push_back(s);
      }
      for (const auto& n : parts_[p]->notes()) notes_.push_back(parts_[p]->suite() + ": " + n);
      ranges_.push_back({offset, cases_.size()});
    }
  }
  const std::string& suite() const override { return name_; }
  const std::vector<runner::PlannedCase>& cases() const override { return cases_; }
  const std::vector<runner::PlannedSweep>& sweeps() const override { return sweeps_; }
  const std::vector<std::string>& notes() const override { return notes_; }
  json options() const override { return options_; }
  json suite_document() const override { return document_; }
  json entry_facts() const override {
    json facts = json::object();
    for (const auto& p : parts_) facts.update(p->entry_facts());
    return facts;
  }
  void set_output_dir(const std::filesystem::path& dir) override {
    for (auto& p : parts_) p->set_output_dir(dir);
  }
  json run_case(std::size_t index, runner::SkipKind* kind) override {
    const auto [part, local] = owner_.at(index);
    return parts_[part]->run_case(local, kind);
  }
  // Each part's table of its own records, found by case id (a shard's records are a
  // subset of the cases, not their index ranges).
  std::string summary_table(const std::vector<json>& records) const override {
    std::string out;
    for (std::size_t p = 0; p < parts_.size(); ++p) {
      const auto [first, last] = ranges_[p];
      std::set<std::string> ids;
      for (std::size_t i = first; i < last; ++i) ids.insert(cases_[i].id);
      std::vector<json> mine;
      for (const json& r : records)
        if (ids.count(r.value("case_id", ""))) mine.push_back(r);
      if (mine.empty()) continue;
      out += (out.empty() ? "" : "\n") + parts_[p]->suite() + ":\n" + parts_[p]->summary_table(mine);
    }
    return out;
  }

 private:
  std::string name_;
  json document_;
  std::vector<std::unique_ptr<runner::SystemRun>> parts_;
  json options_;
  std::vector<runner::PlannedCase> cases_;
  std::vector<runner::PlannedSweep> sweeps_;
  std::vector<std::string> notes_;
  std::vector<std::pair<std::size_t, std::size_t>> owner_;   // case -> (part, index in the part)
  std::vector<std::pair<std::size_t, std::size_t>> ranges_;  // part -> [first, last) case
};

// The entries a system's registry names.
std::set<std::string> entry_names(const runner::System& system) {
  std::set<std::string> names;
  for (const auto& e : system.registry()) names.insert(e.value("name", ""));
  return names;
}

}  // namespace

std::unique_ptr<runner::SystemRun> SuitesSystem::prepare(const json& doc, const std::string& origin,
                                                         const runner::RunRequest& request, const json& saved) const {
  for (const auto& [key, value] : doc.items())
    if (key != "name" && key != "system" && key != "description" && key != "note" && key != "suites")
      throw Error(origin + ": " + key + ": unknown key (a suite of suites has name, system, description, note, suites)");
  if (!doc.contains("name") || !doc["name"].is_string() || doc["name"].get<std::string>().empty())
    throw Error(origin + ": name: missing");
  if (!doc.contains("suites") || !doc["suites"].is_array() || doc["suites"].empty())
    throw Error(origin + ": suites: a non-empty list of suite names (or suite objects) is required");
  // The parts as documents: names are resolved now, and run.json keeps the documents, so
  // a resume plans the same cases whatever the suite files say by then.
  json resolved = doc;
  resolved["suites"] = json::array();
  std::set<std::string> claimed;  // --impl names some part knows
  std::vector<std::unique_ptr<runner::SystemRun>> parts;
  for (const auto& item : doc["suites"]) {
    runner::SuiteDocument part;
    if (item.is_string()) part = runner::find_named_suite(item.get<std::string>());
    else if (item.is_object()) part = {item, origin + " (suites[" + std::to_string(resolved["suites"].size()) + "])"};
    else throw Error(origin + ": suites: " + item.dump() + " is neither a suite name nor a suite");
    const std::string system = runner::suite_system(part.doc, part.origin);
    if (system == name()) throw Error(part.origin + ": a suite of suites cannot hold another");
    const runner::System& sys = system_named(system, part.origin);
    const std::set<std::string> known = entry_names(sys);
    runner::RunRequest narrowed = request;
    narrowed.only.clear();
    for (const auto& o : request.only)
      if (known.count(o)) {
        narrowed.only.push_back(o);
        claimed.insert(o);
      }
    resolved["suites"].push_back(part.doc);
    if (!request.only.empty() && narrowed.only.empty()) continue;  // --impl names none of this part's entries
    try {
      parts.push_back(sys.prepare(part.doc, part.origin, narrowed, saved));
    } catch (const runner::NoCases&) {
      // A part that --impl or --filter leaves empty is no error in a suite of suites.
      if (request.filter.empty() && request.only.empty()) throw;
    }
  }
  for (const auto& o : request.only)
    if (!claimed.count(o)) throw Error("--impl: '" + o + "' is no implementation, solver or scheme of this suite's systems");
  if (parts.empty()) throw Error(origin + ": no case to run (check --impl and --filter)");
  int repetitions = 0, warmups = 0;
  for (const auto& p : parts) {
    repetitions = std::max(repetitions, p->options().value("repetitions", 0));
    warmups = std::max(warmups, p->options().value("warmups", 0));
  }
  json options = runner::request_options_json(request.only, request.filter, request.threads, repetitions, warmups);
  return std::make_unique<SuitesRun>(doc["name"].get<std::string>(), std::move(resolved), std::move(parts),
                                     std::move(options));
}

}  // namespace splinebench::cli
