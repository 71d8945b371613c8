// The run loop, the same for every system: every case of a prepared run, in order; each
// record saved as soon as its case ends; cases already finished (resume) are not rerun.
// The grid system's run (a Plan through a CaseRunner) is one SystemRun among others.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "splinebench/implementation.hpp"
#include "splinebench/runner/case_runner.hpp"
#include "splinebench/runner/plan.hpp"
#include "splinebench/runner/run_store.hpp"
#include "splinebench/runner/system.hpp"

namespace splinebench::runner {

// Progress and messages of a run (the CLI draws a progress bar or prints lines).
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  // `work` estimates each case's cost (same order as the cases) for an ETA.
  virtual void on_start(const std::string& suite, const std::vector<double>& work, std::size_t already_done) {
    (void)suite, (void)work, (void)already_done;
  }
  virtual void on_sweep(const PlannedSweep& sweep) { (void)sweep; }
  virtual void on_case_start(std::size_t index, const std::string& case_id) { (void)index, (void)case_id; }
  virtual void on_case_done(std::size_t index, const nlohmann::json& record) { (void)index, (void)record; }
  // A line worth showing (a skipped implementation, a failed or errored case).
  virtual void on_note(const std::string& line) { (void)line; }
  virtual void on_finish() {}
};

using ImplFactory = std::function<ImplementationPtr(const std::string& name)>;

struct RunSummary {
  std::vector<nlohmann::json> records;  // plan order, resumed ones included
  std::size_t passed = 0, failed = 0, skipped = 0, errored = 0, resumed = 0;
  std::size_t known_defects = 0;  // of `failed`: records with a known_defect

  bool ok() const { return failed == known_defects && errored == 0; }
  std::string line() const;  // "120 cases: 100 pass, 0 fail, 20 skipped, 0 error (5 resumed)"
};

// Rough cost of a case (arithmetic of prefilter and evaluation over all
// repetitions), only for ETAs.
double estimated_work(const CaseSpec& spec, const RunOptions& options);

// Every case of `run` in order. `store` may be null (nothing is written: tests, dry
// runs). `finished` maps case_id to records already done.
RunSummary run_cases(SystemRun& run, const RunStore* store, const std::map<std::string, nlohmann::json>& finished,
                     RunObserver& observer);

// The grid system's run of a plan (what `splinebench run` does with a grid suite).
std::unique_ptr<SystemRun> make_grid_run(Plan plan, RunOptions options, ImplFactory make_impl);

// run_cases over make_grid_run(plan, ...).
RunSummary run_plan(const Plan& plan, const RunOptions& options, const ImplFactory& make_impl, const RunStore* store,
                    const std::map<std::string, nlohmann::json>& finished, RunObserver& observer);

// run_facts() of every implementation the plan uses, as {"name": ["k=v", ...]}.
nlohmann::json implementation_facts(const Plan& plan, const ImplFactory& make_impl);

// A compact table, one row per implementation and D: worst interpolation error
// relative to max|f|, worst prefilter rel_l2, counts, verdict.
std::string accuracy_table(const std::vector<nlohmann::json>& records);

}  // namespace splinebench::runner
