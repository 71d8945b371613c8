// One run's folder, results/<machine>/<run-id>/ (layout: results/README.md):
//   run.json          the manifest: suite definition, options and context the run
//                     started with (what --resume needs to plan the same cases)
//   cases/<hash>.json one record per finished case, written as the case finishes
//   results.json, results.csv   all records, written once at the end
//   .partial/         temporaries of atomic writes (empty unless a write was killed)
// Every file is written atomically (io::write_file_atomically, temporaries in .partial/).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace splinebench::runner {

inline constexpr int kSchemaVersion = 1;

class RunStore {
 public:
  // Creates <results_dir>/<machine>/<run_id>/ (adding -2, -3, ... when the name is
  // taken) and writes the manifest with context.run_id set to the final name.
  static RunStore create(const std::filesystem::path& results_dir, const std::string& machine,
                         const std::string& run_id, nlohmann::json manifest);
  // Opens an existing run for --resume: reads run.json, clears .partial/. Throws
  // splinebench::Error if it is not a run folder or if the run is already complete.
  static RunStore open_for_resume(const std::filesystem::path& run_dir);

  const std::filesystem::path& dir() const { return dir_; }
  const nlohmann::json& manifest() const { return manifest_; }
  nlohmann::json& manifest() { return manifest_; }
  void save_manifest() const;

  // Records in cases/, by case_id. A file that does not parse (which atomic writes
  // rule out, short of disk corruption) is reported in `unreadable` and redone.
  std::map<std::string, nlohmann::json> finished_records(std::vector<std::string>* unreadable = nullptr) const;
  void save_record(const std::string& case_hash, const nlohmann::json& record) const;

  // results.json (schema "splinebench-results") and results.csv.
  void write_results(const nlohmann::json& context, const std::vector<nlohmann::json>& records) const;

 private:
  explicit RunStore(std::filesystem::path dir) : dir_(std::move(dir)) {}
  std::filesystem::path partial_dir() const { return dir_ / ".partial"; }

  std::filesystem::path dir_;
  nlohmann::json manifest_;
};

// The CSV form of records: one row each, phases flattened as <phase>_<stat>.
std::string records_to_csv(const std::vector<nlohmann::json>& records);

}  // namespace splinebench::runner
