#include "splinebench/runner/grid_system.hpp"

#include "splinebench/error.hpp"
#include "splinebench/registry.hpp"
#include "splinebench/runner/run_context.hpp"
#include "splinebench/runner/suite.hpp"
#include "splinebench/runner/suite_runner.hpp"

namespace splinebench::runner {
namespace {

using nlohmann::json;

// A grid run as the CLI sees it: the plan's run plus the options it resolved.
class RecordedGridRun final : public SystemRun {
 public:
  RecordedGridRun(std::unique_ptr<SystemRun> run, json options) : run_(std::move(run)), options_(std::move(options)) {}
  const std::string& suite() const override { return run_->suite(); }
  const std::vector<PlannedCase>& cases() const override { return run_->cases(); }
  const std::vector<PlannedSweep>& sweeps() const override { return run_->sweeps(); }
  const std::vector<std::string>& notes() const override { return run_->notes(); }
  json options() const override { return options_; }
  json entry_facts() const override { return run_->entry_facts(); }
  json run_case(std::size_t index, SkipKind* kind) override { return run_->run_case(index, kind); }
  std::string summary_table(const std::vector<json>& records) const override { return run_->summary_table(records); }

 private:
  std::unique_ptr<SystemRun> run_;
  json options_;
};

class GridSystem final : public System {
 public:
  std::string name() const override { return "grid"; }
  std::string entry_noun() const override { return "implementation"; }
  std::string description() const override {
    return "cubic B-spline prefilter and reconstruction on regular grids, D = 1..6 (impls/)";
  }
  json registry() const override { return registry_list(); }

  std::unique_ptr<SystemRun> prepare(const json& doc, const std::string& origin, const RunRequest& request,
                                     const json& saved) const override {
    const SuiteSpec suite = parse_suite(doc, origin);
    PlanOptions plan_options;
    plan_options.only_impls = request.only;
    plan_options.case_filter = request.filter;
    plan_options.threads = request.threads;
    RunOptions run_options;
    if (request.repetitions && *request.repetitions < 1) throw Error("--repetitions must be >= 1");
    if (request.warmups && *request.warmups < 0) throw Error("--warmups must be >= 0");
    run_options.repetitions = request.repetitions.value_or(suite.repetitions);
    run_options.warmups = request.warmups.value_or(suite.warmups);
    if (!saved.is_null() && saved.contains("max_checked_values"))
      run_options.max_checked_values = saved["max_checked_values"].get<std::int64_t>();
    Plan plan = make_plan(suite, plan_options, splinebench::registry());
    json options = request_options_json(plan_options.only_impls, plan_options.case_filter, plan_options.threads,
                                        run_options.repetitions, run_options.warmups);
    options["max_checked_values"] = run_options.max_checked_values;
    return std::make_unique<RecordedGridRun>(
        make_grid_run(std::move(plan), run_options, [](const std::string& n) { return make_implementation(n); }),
        std::move(options));
  }
};

}  // namespace

SystemPtr make_grid_system() { return std::make_unique<GridSystem>(); }

}  // namespace splinebench::runner
