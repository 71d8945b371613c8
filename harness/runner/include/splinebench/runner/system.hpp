// A system is a family of experiments the one harness runs: grid interpolation (the
// implementations of impls/), scattered reconstruction (its solvers), the 2-D IIR
// experiment (its schemes). Each reads its own sweep axes from a suite, plans cases,
// and runs a case into a record of the common envelope (results/README.md):
//   case_id, impl (the entry: implementation, solver or scheme), device, sweep,
//   status ("ok" | "skipped" | "error"), message, repetitions, warmups,
//   phases {name: {samples, median, min, max, q1, q3, iqr}}, tolerance {.., basis},
//   verdict ("pass" | "fail" | "n/a") against the system's own oracle,
// plus the system's own fields. The run loop, the run folder, resume, progress, the
// memory pre-check and the gate are the same for every system.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "splinebench/runner/plan.hpp"

namespace splinebench::runner {

// Why a record was skipped, so the console can say it once per entry.
enum class SkipKind { none, unavailable, unsupported_case, thrown };

// One case of a planned run, as the loop, the store and the progress display see it.
struct PlannedCase {
  std::string id;     // case_id: unique in a run, stable across runs
  std::string impl;   // the entry that runs it
  std::string sweep;
  double work = 1;    // relative cost, for ETAs and shard balance
  std::uint64_t host_bytes = 0;  // peak host memory of the case (0: not estimated)
  bool will_run = true;          // false when its entry cannot run here (it will be skipped)

  std::string hash() const;  // file name of its record: 16 hex digits of fnv1a64(id)
};

// What a run was asked for on the command line (a resume reads it back from run.json).
struct RunRequest {
  std::vector<std::string> only;  // --impl: entries (implementations, solvers or schemes)
  std::string filter;             // --filter: ECMAScript regex searched in case_id
  std::optional<int> threads;     // --threads: replaces the suite's threads
  std::optional<int> repetitions; // --repetitions
  std::optional<int> warmups;     // --warmups
};

// A prepared run: the plan, and how to run each of its cases.
class SystemRun {
 public:
  virtual ~SystemRun() = default;
  virtual const std::string& suite() const = 0;
  virtual const std::vector<PlannedCase>& cases() const = 0;
  virtual const std::vector<PlannedSweep>& sweeps() const = 0;  // index ranges in cases()
  virtual const std::vector<std::string>& notes() const = 0;    // e.g. a selector that matched nothing
  // The options as resolved (suite defaults applied), recorded in run.json: what a
  // resume needs, with RunRequest's keys ("impl", "filter", "threads", "repetitions",
  // "warmups") and any of the system's own.
  virtual nlohmann::json options() const = 0;
  // {"<entry>": ["k=v", ...]} for the entries the plan uses (the run's context).
  virtual nlohmann::json entry_facts() const = 0;
  // Runs case `index`. Never throws for what the entry does: an entry that cannot run
  // gives "skipped", a failure "error", both with the message; `kind` says why a
  // skip happened (so the console says it once per entry).
  virtual nlohmann::json run_case(std::size_t index, SkipKind* kind) = 0;
  // The suite as run.json keeps it, when it differs from the document given (a suite of
  // suites records its parts' documents); null: the document given.
  virtual nlohmann::json suite_document() const { return nullptr; }
  // The run's folder, for systems that write arrays beside the records (called once
  // the folder exists; a run without a store never gets one).
  virtual void set_output_dir(const std::filesystem::path& dir) { (void)dir; }
  // A compact table of the records for the console (accuracy per entry).
  virtual std::string summary_table(const std::vector<nlohmann::json>& records) const = 0;
};

class System {
 public:
  virtual ~System() = default;
  virtual std::string name() const = 0;        // "grid", "scattered", "iir2d": a suite's "system"
  virtual std::string entry_noun() const = 0;  // "implementation", "solver", "scheme"
  virtual std::string description() const = 0;
  // [{"name", "device", "available", "reason", "capabilities": {...}}, ...] in registry order.
  virtual nlohmann::json registry() const = 0;
  // Parses `suite` strictly (an unknown key, a bad value, an unknown entry is a
  // splinebench::Error naming `origin`), resolves the entries against the registry,
  // expands the sweeps and applies the request. Nothing is written or allocated
  // beyond the plan itself. `saved_options` is run.json's "options" on a resume (the
  // request is then empty), null otherwise.
  virtual std::unique_ptr<SystemRun> prepare(const nlohmann::json& suite, const std::string& origin,
                                             const RunRequest& request, const nlohmann::json& saved_options) const = 0;
};

using SystemPtr = std::unique_ptr<System>;

// RunRequest from run.json's "options" (the keys SystemRun::options writes).
RunRequest request_from_options(const nlohmann::json& options, const std::string& origin);
// RunRequest's keys as run.json's "options" records them, with the values resolved.
nlohmann::json request_options_json(const std::vector<std::string>& only, const std::string& filter,
                                    std::optional<int> threads, int repetitions, int warmups);

// A suite's system: its "system" key, "grid" when absent.
std::string suite_system(const nlohmann::json& suite, const std::string& origin);

// A case selector: the ECMAScript regex of --filter, compiled once (Error when invalid).
class CaseFilter {
 public:
  explicit CaseFilter(const std::string& pattern);
  bool accepts(const std::string& case_id) const;

 private:
  struct Impl;
  std::shared_ptr<const Impl> impl_;
};

}  // namespace splinebench::runner
