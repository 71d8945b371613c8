// One run's folder, results/<machine>/<run-id>/ (layout: results/README.md):
//   run.json          the manifest: suite definition, options and context the run
//                     started with (what --resume needs to plan the same cases)
//   cases/<hash>.json one record per finished case, written as the case finishes
//   results.json, results.csv   all records, written once at the end
//   .partial/         temporaries of atomic writes (empty unless a write was killed)
//   .lock             flock-ed by the one process writing the folder (its pid inside);
//                     removed once results.json is written
// Every file is written atomically (io::write_file_atomically, temporaries in .partial/).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace splinebench::runner {

inline constexpr int kSchemaVersion = 1;

// An exclusive flock on <run dir>/.lock, held as long as the object lives, so that
// two processes (a run and a --resume, or two --resume) never write one folder.
// The kernel drops the lock when the process ends, however it ends.
class RunLock {
 public:
  // Throws splinebench::Error naming the pid that holds the folder.
  static RunLock acquire(const std::filesystem::path& run_dir);
  RunLock() = default;
  RunLock(RunLock&& other) noexcept;
  RunLock& operator=(RunLock&& other) noexcept;
  ~RunLock();
  // Removes the lock file, still holding the lock: for a complete run, which every
  // later writer refuses anyway (results.json exists).
  void remove_file() const;

 private:
  int fd_ = -1;
  std::filesystem::path path_;
};

class RunStore {
 public:
  // Creates <results_dir>/<machine>/<run_id>/ (adding -2, -3, ... when the name is
  // taken), takes its lock and writes the manifest with context.run_id set to the
  // final name.
  static RunStore create(const std::filesystem::path& results_dir, const std::string& machine,
                         const std::string& run_id, nlohmann::json manifest);
  // Opens an existing run for --resume: reads run.json, takes the folder's lock,
  // clears .partial/. Throws splinebench::Error if it is not a run folder, if the run
  // is already complete, or if another process holds it.
  static RunStore open_for_resume(const std::filesystem::path& run_dir);

  const std::filesystem::path& dir() const { return dir_; }
  const nlohmann::json& manifest() const { return manifest_; }
  nlohmann::json& manifest() { return manifest_; }
  void save_manifest() const;

  // Records in cases/, by case_id. A file that does not parse (which atomic writes
  // rule out, short of disk corruption) is reported in `unreadable` and redone.
  std::map<std::string, nlohmann::json> finished_records(std::vector<std::string>* unreadable = nullptr) const;
  void save_record(const std::string& case_hash, const nlohmann::json& record) const;

  // results.json (schema "splinebench-results") and results.csv; then the lock file
  // goes (the lock itself is held until the store is destroyed).
  void write_results(const nlohmann::json& context, const std::vector<nlohmann::json>& records) const;

 private:
  explicit RunStore(std::filesystem::path dir) : dir_(std::move(dir)) {}
  std::filesystem::path partial_dir() const { return dir_ / ".partial"; }

  std::filesystem::path dir_;
  nlohmann::json manifest_;
  RunLock lock_;
};

// The CSV form of records: one row each, phases flattened as <phase>_<stat>.
std::string records_to_csv(const std::vector<nlohmann::json>& records);

}  // namespace splinebench::runner
