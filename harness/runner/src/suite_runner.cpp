#include "splinebench/runner/suite_runner.hpp"

#include <algorithm>
#include <cmath>
#include <map>
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

RunSummary run_plan(const Plan& plan, const RunOptions& options, const ImplFactory& make_impl, const RunStore* store,
                    const std::map<std::string, json>& finished, RunObserver& observer) {
  CaseRunner runner(options);
  RunSummary summary;
  std::vector<double> work;
  std::size_t already = 0;
  for (const auto& c : plan.cases) {
    work.push_back(estimated_work(c, options));
    already += finished.count(c.case_id());
  }
  observer.on_start(plan, work, already);
  for (const auto& note : plan.notes) observer.on_note(note);

  std::map<std::string, ImplementationPtr> impls;
  std::set<std::string> announced;  // "<impl>: <reason>" lines already shown
  std::size_t sweep_index = 0;
  for (std::size_t i = 0; i < plan.cases.size(); ++i) {
    while (sweep_index < plan.sweeps.size() && plan.sweeps[sweep_index].first_case == i) {
      if (plan.sweeps[sweep_index].case_count > 0) observer.on_sweep(plan.sweeps[sweep_index]);
      ++sweep_index;
    }
    const CaseSpec& spec = plan.cases[i];
    const std::string id = spec.case_id();
    if (auto found = finished.find(id); found != finished.end()) {
      summary.records.push_back(found->second);
      count(summary, found->second);
      ++summary.resumed;
      observer.on_case_done(i, found->second);
      continue;
    }
    observer.on_case_start(i, spec);
    auto& impl = impls[spec.impl];
    if (!impl) impl = make_impl(spec.impl);
    SkipKind kind = SkipKind::none;
    const Record record = runner.run(*impl, spec, &kind);
    const json j = to_json(record);
    if (store) store->save_record(spec.case_hash(), j);
    summary.records.push_back(j);
    count(summary, j);

    if (record.status == "skipped") {
      // Availability and capability reasons are the same for many cases: once each.
      const std::string line = kind == SkipKind::thrown ? spec.impl + ": skipped " + id + ": " + record.message
                                                        : spec.impl + ": skipped, " + record.message;
      if (kind == SkipKind::thrown || announced.insert(line).second) observer.on_note(line);
    } else if (record.status == "error") {
      observer.on_note(spec.impl + ": ERROR in " + id + ": " + record.message);
    } else if (record.verdict != "pass") {
      observer.on_note(spec.impl + ": FAIL " + id + ": " + record.message);
    }
    observer.on_case_done(i, j);
  }
  observer.on_finish();
  return summary;
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
