#include "splinebench/runner/run_store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>
#include <set>
#include <sstream>

#include "splinebench/error.hpp"
#include "splinebench/io/atomic_file.hpp"

namespace splinebench::runner {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::optional<json> read_json(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  try {
    return json::parse(in);
  } catch (const json::parse_error&) {
    return std::nullopt;
  }
}

std::string csv_cell(const json& v) {
  std::string s;
  if (v.is_null()) return "";
  if (v.is_string()) {
    s = v.get<std::string>();
  } else if (v.is_array()) {
    for (const auto& e : v) {
      if (!s.empty()) s += 'x';
      s += e.dump();
    }
  } else {
    s = v.dump();
  }
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// The pid a lock holder wrote into the lock file ("" if none yet).
std::string holder_pid(int fd) {
  // The holder writes its pid right after taking the lock: give it a moment.
  for (int attempt = 0; attempt < 20; ++attempt) {
    char buf[32] = {};
    const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    std::string pid(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
    while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
    if (!pid.empty()) return pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return "";
}

const char* kCompleteFiles[] = {"results.json", "results.json.gz"};

// Throws if the run in `run_dir` is complete. results.json.gz: the compact form a
// committed run is stored in (reports/compact.py).
void refuse_complete(const fs::path& run_dir) {
  for (const char* done : kCompleteFiles)
    if (fs::exists(run_dir / done))
      throw Error("--resume: " + run_dir.string() + " is complete (" + done + " exists); start a new run instead");
}

}  // namespace

RunLock RunLock::acquire(const fs::path& run_dir) {
  RunLock lock;
  lock.path_ = run_dir / ".lock";
  lock.fd_ = ::open(lock.path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock.fd_ < 0) throw Error("cannot create the lock file " + lock.path_.string() + ": " + std::strerror(errno));
  if (::flock(lock.fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err != EWOULDBLOCK) throw Error("cannot lock " + lock.path_.string() + ": " + std::strerror(err));
    const std::string pid = holder_pid(lock.fd_);
    throw Error("run folder " + run_dir.string() + " is in use by another splinebench process (" +
                (pid.empty() ? std::string("pid unknown") : "pid " + pid) + ", lock " + lock.path_.string() +
                "); wait for it to finish, or stop it and run --resume again");
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(lock.fd_, 0) != 0 || ::pwrite(lock.fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size()))
    throw Error("cannot write " + lock.path_.string() + ": " + std::strerror(errno));
  return lock;
}

RunLock::RunLock(RunLock&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) { other.fd_ = -1; }

RunLock& RunLock::operator=(RunLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    path_ = std::move(other.path_);
    other.fd_ = -1;
  }
  return *this;
}

RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

void RunLock::remove_file() const {
  if (fd_ >= 0) ::unlink(path_.c_str());
}

RunStore RunStore::create(const fs::path& results_dir, const std::string& machine, const std::string& run_id,
                          json manifest) {
  const fs::path machine_dir = results_dir / machine;
  std::error_code ec;
  fs::create_directories(machine_dir, ec);
  if (ec) throw Error("cannot create " + machine_dir.string() + ": " + ec.message());
  // mkdir fails when the folder exists, so two runs started in the same second
  // never share a folder.
  for (int attempt = 1; attempt < 1000; ++attempt) {
    const std::string name = attempt == 1 ? run_id : run_id + "-" + std::to_string(attempt);
    const fs::path dir = machine_dir / name;
    if (!fs::create_directory(dir, ec)) {
      if (ec) throw Error("cannot create " + dir.string() + ": " + ec.message());
      continue;
    }
    RunStore store(dir);
    store.lock_ = RunLock::acquire(dir);
    fs::create_directory(dir / "cases", ec);
    if (!ec) fs::create_directory(store.partial_dir(), ec);
    if (ec) throw Error("cannot create folders in " + dir.string() + ": " + ec.message());
    manifest["context"]["run_id"] = name;
    store.manifest_ = std::move(manifest);
    store.save_manifest();
    return store;
  }
  throw Error("cannot find a free run folder name under " + machine_dir.string());
}

RunStore RunStore::open_for_resume(const fs::path& run_dir) {
  if (!fs::is_directory(run_dir)) throw Error("--resume: " + run_dir.string() + " is not a folder");
  const auto manifest = read_json(run_dir / "run.json");
  if (!manifest || !manifest->is_object() || manifest->value("schema", "") != "splinebench-run")
    throw Error("--resume: " + run_dir.string() + " is not a run folder (no readable run.json)");
  if (manifest->value("schema_version", 0) != kSchemaVersion)
    throw Error("--resume: " + (run_dir / "run.json").string() + " has schema_version " +
                manifest->value("schema_version", json(nullptr)).dump() + "; this build writes " +
                std::to_string(kSchemaVersion));
  refuse_complete(run_dir);  // before the lock, so a complete run gets no lock file
  RunStore store(run_dir);
  store.lock_ = RunLock::acquire(run_dir);
  // Completed by the holder that just let go: nobody writes it any more.
  try {
    refuse_complete(run_dir);
  } catch (const Error&) {
    store.lock_.remove_file();
    throw;
  }
  store.manifest_ = *manifest;
  std::error_code ec;
  fs::create_directories(run_dir / "cases", ec);
  // Temporaries left by a killed write: never read, safe to drop.
  fs::remove_all(store.partial_dir(), ec);
  fs::create_directories(store.partial_dir(), ec);
  if (ec) throw Error("cannot prepare " + store.partial_dir().string() + ": " + ec.message());
  return store;
}

void RunStore::save_manifest() const {
  io::write_file_atomically(dir_ / "run.json", manifest_.dump(2) + "\n", partial_dir());
}

std::map<std::string, json> RunStore::finished_records(std::vector<std::string>* unreadable) const {
  std::map<std::string, json> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir_ / "cases", ec)) {
    if (entry.path().extension() != ".json") continue;
    const auto record = read_json(entry.path());
    if (!record || !record->is_object() || !record->contains("case_id") || !(*record)["case_id"].is_string()) {
      if (unreadable) unreadable->push_back(entry.path().string());
      continue;
    }
    out[(*record)["case_id"].get<std::string>()] = *record;
  }
  return out;
}

void RunStore::save_record(const std::string& case_hash, const json& record) const {
  io::write_file_atomically(dir_ / "cases" / (case_hash + ".json"), record.dump(1) + "\n", partial_dir());
}

void RunStore::write_results(const json& context, const std::vector<json>& records) const {
  const json doc = {{"schema", "splinebench-results"},
                    {"schema_version", kSchemaVersion},
                    {"context", context},
                    {"records", records}};
  io::write_file_atomically(dir_ / "results.csv", records_to_csv(records), partial_dir());
  // results.json last: its presence means the run is complete.
  io::write_file_atomically(dir_ / "results.json", doc.dump(1) + "\n", partial_dir());
  lock_.remove_file();
}

std::string records_to_csv(const std::vector<json>& records) {
  static const char* kCaseColumns[] = {"case_id", "impl",   "evaluation", "device",  "sweep",  "dims",
                                       "shape",   "channels", "fields", "mode",    "data",   "queries", "pattern",
                                       "threads",  "status", "verdict", "message", "repetitions", "warmups"};
  static const char* kStats[] = {"median", "min", "max", "q1", "q3", "iqr"};
  static const char* kThroughput[] = {"prefilter_samples_per_s", "prefilter_GBps", "queries_per_s", "evaluate_GBps"};
  static const char* kPrefilterAcc[] = {"rel_l2", "max_abs", "unwritten"};
  static const char* kInterpAcc[] = {"max_abs", "rms", "rel_l2", "max_rel_to_maxf", "checked_queries", "unwritten",
                                     "nan_ok"};
  static const char* kTolerance[] = {"prefilter_rel_l2", "interp_max_rel_to_maxf"};

  // Phase columns: the union over records, in order of first appearance.
  std::vector<std::string> phases;
  std::set<std::string> seen;
  for (const auto& r : records)
    if (r.contains("phases"))
      for (const auto& [name, v] : r["phases"].items()) {
        (void)v;
        if (seen.insert(name).second) phases.push_back(name);
      }

  std::ostringstream out;
  std::vector<std::string> header;
  for (const char* c : kCaseColumns) header.push_back(c);
  for (const auto& p : phases)
    for (const char* s : kStats) header.push_back(p + "_" + s);
  for (const char* t : kThroughput) header.push_back(t);
  for (const char* a : kPrefilterAcc) header.push_back(std::string("prefilter_") + a);
  for (const char* a : kInterpAcc) header.push_back(std::string("interp_") + a);
  for (const char* t : kTolerance) header.push_back(std::string("tolerance_") + t);
  for (std::size_t i = 0; i < header.size(); ++i) out << (i ? "," : "") << header[i];
  out << '\n';

  auto at = [](const json& obj, const std::vector<std::string>& path) -> json {
    const json* cur = &obj;
    for (const auto& key : path) {
      if (!cur->is_object() || !cur->contains(key)) return nullptr;
      cur = &(*cur)[key];
    }
    return *cur;
  };
  for (const auto& r : records) {
    std::vector<std::string> row;
    for (const char* c : kCaseColumns) row.push_back(csv_cell(at(r, {c})));
    for (const auto& p : phases)
      for (const char* s : kStats) row.push_back(csv_cell(at(r, {"phases", p, s})));
    for (const char* t : kThroughput) row.push_back(csv_cell(at(r, {"throughput", t})));
    for (const char* a : kPrefilterAcc) row.push_back(csv_cell(at(r, {"accuracy", "prefilter", a})));
    for (const char* a : kInterpAcc) row.push_back(csv_cell(at(r, {"accuracy", "interp", a})));
    for (const char* t : kTolerance) row.push_back(csv_cell(at(r, {"tolerance", t})));
    for (std::size_t i = 0; i < row.size(); ++i) out << (i ? "," : "") << row[i];
    out << '\n';
  }
  return out.str();
}

}  // namespace splinebench::runner
