#include "splinebench/runner/suite_runner.hpp"

#include "splinebench/runner/memory.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <iomanip>
#include <set>
#include <sstream>

namespace splinebench::runner {
namespace {

using nlohmann::json;

void count(RunSummary& s, const json& record) {
  const std::string status = record.value("status", "");
  if (status == "skipped") {
    ++s.skipped;
  } else if (status == "error") {
    ++s.errored;
  } else if (record.value("verdict", "") == "pass") {
    ++s.passed;
  } else {
    ++s.failed;
    if (record.contains("known_defect")) ++s.known_defects;
  }
}

}  // namespace

std::string RunSummary::line() const {
  std::ostringstream out;
  out << records.size() << " cases: " << passed << " pass, " << failed << " fail";
  if (known_defects) out << " (" << known_defects << " of them a library's known defect)";
  out << ", " << skipped << " skipped, " << errored << " error";
  if (resumed) out << " (" << resumed << " from before the resume)";
  return out.str();
}

double estimated_work(const CaseSpec& spec, const RunOptions& options) {
  const double values = static_cast<double>(spec.shape.values()) * static_cast<double>(spec.fields);
  const double taps = std::pow(4.0, spec.shape.dims);
  const double evals = static_cast<double>(spec.queries) * static_cast<double>(spec.fields) * taps *
                       spec.shape.channels;
  // Per repetition: D passes over the data, the evaluations; plus a fixed overhead
  // for generating inputs and writing the record.
  return (options.warmups + options.repetitions) * (values * spec.shape.dims * 4.0 + evals) + 1e6;
}

RunSummary run_cases(SystemRun& run, const RunStore* store, const std::map<std::string, json>& finished,
                     RunObserver& observer) {
  const std::vector<PlannedCase>& cases = run.cases();
  const std::vector<PlannedSweep>& sweeps = run.sweeps();
  RunSummary summary;
  std::vector<double> work;
  std::size_t already = 0;
  for (const auto& c : cases) {
    work.push_back(c.work);
    already += finished.count(c.id);
  }
  observer.on_start(run.suite(), work, already);
  for (const auto& note : run.notes()) observer.on_note(note);

  std::set<std::string> announced;  // "<entry>: <reason>" lines already shown
  std::size_t sweep_index = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    while (sweep_index < sweeps.size() && sweeps[sweep_index].first_case == i) {
      if (sweeps[sweep_index].case_count > 0) observer.on_sweep(sweeps[sweep_index]);
      ++sweep_index;
    }
    const PlannedCase& c = cases[i];
    if (auto found = finished.find(c.id); found != finished.end()) {
      summary.records.push_back(found->second);
      count(summary, found->second);
      ++summary.resumed;
      observer.on_case_done(i, found->second);
      continue;
    }
    observer.on_case_start(i, c.id);
    SkipKind kind = SkipKind::none;
    const json j = run.run_case(i, &kind);
    if (store) store->save_record(c.hash(), j);
    summary.records.push_back(j);
    count(summary, j);

    const std::string status = j.value("status", "");
    const std::string message = j.value("message", "");
    if (status == "skipped") {
      // Availability and capability reasons are the same for many cases: once each.
      const std::string line =
          kind == SkipKind::thrown ? c.impl + ": skipped " + c.id + ": " + message : c.impl + ": skipped, " + message;
      if (kind == SkipKind::thrown || announced.insert(line).second) observer.on_note(line);
    } else if (status == "error") {
      observer.on_note(c.impl + ": ERROR in " + c.id + ": " + message);
    } else if (j.value("verdict", "") != "pass") {
      observer.on_note(c.impl + ": FAIL " + c.id + ": " + message);
    }
    observer.on_case_done(i, j);
  }
  observer.on_finish();
  return summary;
}

namespace {

// The grid system's run: CaseSpecs of a Plan through one CaseRunner (whose oracle cache
// serves consecutive implementations on the same inputs), implementations made once.
class GridRun final : public SystemRun {
 public:
  GridRun(Plan plan, RunOptions options, ImplFactory make_impl)
      : plan_(std::move(plan)), options_(options), make_impl_(std::move(make_impl)), runner_(options_) {
    for (const auto& spec : plan_.cases) {
      PlannedCase c;
      c.id = spec.case_id();
      c.impl = spec.impl;
      c.sweep = spec.sweep;
      c.work = estimated_work(spec, options_);
      cases_.push_back(std::move(c));
    }
  }
  // The memory pre-check's inputs: which cases will run here (implementation available,
  // case supported) and the peak host bytes of each.
  void estimate_host_bytes() {
    const auto bytes = runnable_case_bytes(plan_, options_, make_impl_);
    for (std::size_t i = 0; i < cases_.size(); ++i) {
      cases_[i].will_run = bytes[i].has_value();
      cases_[i].host_bytes = bytes[i].value_or(0);
    }
  }
  const std::string& suite() const override { return plan_.suite; }
  const std::vector<PlannedCase>& cases() const override { return cases_; }
  const std::vector<PlannedSweep>& sweeps() const override { return plan_.sweeps; }
  const std::vector<std::string>& notes() const override { return plan_.notes; }
  json options() const override { return json::object(); }
  json entry_facts() const override { return implementation_facts(plan_, make_impl_); }
  json run_case(std::size_t index, SkipKind* kind) override {
    const CaseSpec& spec = plan_.cases.at(index);
    auto& impl = impls_[spec.impl];
    if (!impl) impl = make_impl_(spec.impl);
    return to_json(runner_.run(*impl, spec, kind));
  }
  std::string summary_table(const std::vector<json>& records) const override { return accuracy_table(records); }

 private:
  Plan plan_;
  RunOptions options_;
  ImplFactory make_impl_;
  CaseRunner runner_;
  std::vector<PlannedCase> cases_;
  std::map<std::string, ImplementationPtr> impls_;
};

}  // namespace

std::unique_ptr<SystemRun> make_grid_run(Plan plan, RunOptions options, ImplFactory make_impl) {
  auto run = std::make_unique<GridRun>(std::move(plan), options, std::move(make_impl));
  run->estimate_host_bytes();
  return run;
}

RunSummary run_plan(const Plan& plan, const RunOptions& options, const ImplFactory& make_impl, const RunStore* store,
                    const std::map<std::string, json>& finished, RunObserver& observer) {
  GridRun run(plan, options, make_impl);
  return run_cases(run, store, finished, observer);
}

json implementation_facts(const Plan& plan, const ImplFactory& make_impl) {
  json facts = json::object();
  for (const auto& c : plan.cases)
    if (!facts.contains(c.impl)) facts[c.impl] = make_impl(c.impl)->run_facts();
  return facts;
}

std::string accuracy_table(const std::vector<json>& records) {
  struct Row {
    double worst_interp = -1;     // -1: none measured
    double worst_prefilter = -1;
    bool interp_non_finite = false;     // an error measure was NaN/inf (stored as null)
    bool prefilter_non_finite = false;
    std::size_t pass = 0, fail = 0, skipped = 0, error = 0;
  };
  std::map<std::pair<std::string, int>, Row> rows;
  std::vector<std::string> impl_order;
  for (const auto& r : records) {
    const std::string impl = r.value("impl", "?");
    if (std::find(impl_order.begin(), impl_order.end(), impl) == impl_order.end()) impl_order.push_back(impl);
    Row& row = rows[{impl, r.value("dims", 0)}];
    const std::string status = r.value("status", "");
    if (status == "skipped") {
      ++row.skipped;
      continue;
    }
    if (status == "error") {
      ++row.error;
      continue;
    }
    (r.value("verdict", "") == "pass" ? row.pass : row.fail) += 1;
    const json acc = r.value("accuracy", json::object());
    auto worst = [&](const char* part, const char* key, double& into, bool& non_finite) {
      if (!acc.contains(part)) return;
      const json v = acc[part].value(key, json(nullptr));
      if (v.is_number()) {
        into = std::max(into, v.get<double>());
      } else {
        non_finite = true;
      }
    };
    worst("interp", "max_rel_to_maxf", row.worst_interp, row.interp_non_finite);
    worst("prefilter", "rel_l2", row.worst_prefilter, row.prefilter_non_finite);
  }
  auto sci = [](double v) {
    if (v < 0) return std::string("-");
    std::ostringstream s;
    s << std::scientific << std::setprecision(2) << v;
    return s.str();
  };
  // The name column fits the longest name (a name glued to the next column reads as one word).
  int name_width = 16;
  for (const auto& impl : impl_order) name_width = std::max(name_width, static_cast<int>(impl.size()) + 2);
  std::ostringstream out;
  out << std::left << std::setw(name_width) << "impl" << std::setw(4) << "D" << std::setw(18) << "interp/max|f|"
      << std::setw(18) << "prefilter rel_l2" << std::setw(8) << "pass" << std::setw(6) << "fail" << std::setw(6)
      << "skip" << std::setw(7) << "error" << "verdict\n";
  for (const auto& impl : impl_order)
    for (const auto& [key, row] : rows) {
      if (key.first != impl) continue;
      std::string verdict = "pass";
      if (row.fail || row.error || row.interp_non_finite || row.prefilter_non_finite)
        verdict = "FAIL";
      else if (!row.pass)
        verdict = "skipped";
      out << std::left << std::setw(name_width) << impl << std::setw(4) << key.second << std::setw(18)
          << (row.interp_non_finite ? "non-finite" : sci(row.worst_interp)) << std::setw(18)
          << (row.prefilter_non_finite ? "non-finite" : sci(row.worst_prefilter))
          << std::setw(8) << row.pass << std::setw(6) << row.fail << std::setw(6) << row.skipped << std::setw(7)
          << row.error << verdict << '\n';
    }
  return out.str();
}

}  // namespace splinebench::runner
