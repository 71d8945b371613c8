#include "splinebench/runner/run_context.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "splinebench/error.hpp"
#include "splinebench/registry.hpp"
#include "splinebench/runner/build_info.hpp"

namespace splinebench::runner {
namespace {

std::string format_utc(Clock::time_point t, const char* format) {
  const std::time_t tt = Clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Output of a shell command, or nullopt when it fails.
std::optional<std::string> command_output(const std::string& command) {
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return std::nullopt;
  std::string out;
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  const int status = ::pclose(pipe);
  if (status != 0) return std::nullopt;
  return out;
}

std::string trim(std::string s) {
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!s.empty() && space(s.back())) s.pop_back();
  std::size_t start = 0;
  while (start < s.size() && space(s[start])) ++start;
  return s.substr(start);
}

// The value of the first "<key> : value" line of /proc/cpuinfo (the first CPU).
std::optional<std::string> cpuinfo(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos && trim(line.substr(key.size(), colon - key.size())).empty())
        return trim(line.substr(colon + 1));
    }
  }
  return std::nullopt;
}

std::string cpu_model() { return cpuinfo("model name").value_or("unknown"); }

// A number, or null when `text` is missing or not one.
nlohmann::json number_or_null(const std::optional<std::string>& text, double scale = 1.0) {
  if (!text) return nullptr;
  try {
    std::size_t used = 0;
    const double v = std::stod(*text, &used);
    if (used == 0) return nullptr;
    return v * scale;
  } catch (const std::exception&) {
    return nullptr;
  }
}

std::optional<std::string> first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line) || trim(line).empty()) return std::nullopt;
  return trim(line);
}

// The value of -march=/-mcpu= in the flags (the last one wins, as for the compiler).
nlohmann::json march_of(const std::string& flags) {
  nlohmann::json march = nullptr;
  std::istringstream words(flags);
  std::string w;
  while (words >> w)
    for (const char* prefix : {"-march=", "-mcpu="})
      if (w.rfind(prefix, 0) == 0) march = w.substr(std::string(prefix).size());
  return march;
}

nlohmann::json string_or_null(const char* s) { return *s ? nlohmann::json(s) : nlohmann::json(nullptr); }

const char* proc_bind_name(omp_proc_bind_t bind) {
  switch (bind) {
    case omp_proc_bind_false: return "false";
    case omp_proc_bind_true: return "true";
    case omp_proc_bind_master: return "primary";
    case omp_proc_bind_close: return "close";
    case omp_proc_bind_spread: return "spread";
  }
  return "unknown";
}

// What the OpenMP runtime was told and what it reports: threads and binding from the
// API, the wait policy (no API reports it) and every OMP_/GOMP_/KMP_ variable as set.
nlohmann::json openmp_context() {
  nlohmann::json env = nlohmann::json::object();
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = entry.substr(0, eq);
    if (name.rfind("OMP_", 0) == 0 || name.rfind("GOMP_", 0) == 0 || name.rfind("KMP_", 0) == 0)
      env[name] = entry.substr(eq + 1);
  }
  const char* wait = std::getenv("OMP_WAIT_POLICY");
  return {{"version", _OPENMP},
          {"max_threads", omp_get_max_threads()},
          {"num_procs", omp_get_num_procs()},
          {"dynamic", omp_get_dynamic() != 0},
          {"proc_bind", proc_bind_name(omp_get_proc_bind())},
          {"wait_policy", wait ? nlohmann::json(wait) : nlohmann::json(nullptr)},
          {"env", env}};
}

// "0000:3b:00.0" and "00000000:3B:00.0" name the same device.
std::string normalize_pci(const std::string& id) {
  std::string s = trim(id);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  const auto colon = s.find(':');
  if (colon == std::string::npos) return s;
  const std::string domain = s.substr(0, colon);
  const auto nonzero = domain.find_first_not_of('0');
  return (nonzero == std::string::npos ? "0" : domain.substr(nonzero)) + s.substr(colon);
}

}  // namespace

std::string utc_iso8601(Clock::time_point t) { return format_utc(t, "%Y-%m-%dT%H:%M:%SZ"); }
std::string utc_compact(Clock::time_point t) { return format_utc(t, "%Y%m%d-%H%M%S"); }

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "unknown";
  std::string name = buf;
  return name.substr(0, name.find('.'));
}

void validate_machine_label(const std::string& label) {
  if (label.empty() || label == "." || label == ".." || label.find('/') != std::string::npos ||
      label.find('\0') != std::string::npos)
    throw Error("machine label '" + label + "' cannot be a folder name (no '/', not empty, not '.' or '..')");
}

nlohmann::json git_state() {
  // A caller may state the revision (SPLINEBENCH_GIT_SHA, SPLINEBENCH_GIT_DIRTY=0|1): a GPU
  // machine receives a copy of the working tree whose .git, if any, need not be the commit
  // that was sent. A stated revision wins and is recorded with its source.
  if (const char* stated = std::getenv("SPLINEBENCH_GIT_SHA"); stated != nullptr && !trim(stated).empty()) {
    const char* stated_dirty = std::getenv("SPLINEBENCH_GIT_DIRTY");
    nlohmann::json dirty = nullptr;
    if (stated_dirty != nullptr && std::string(stated_dirty) == "1") dirty = true;
    if (stated_dirty != nullptr && std::string(stated_dirty) == "0") dirty = false;
    return {{"git_sha", trim(stated)}, {"git_dirty", dirty}, {"git_source", "SPLINEBENCH_GIT_SHA"}};
  }
  const std::string dir = shell_quote(build_info::source_dir);
  const auto sha = command_output("git -C " + dir + " rev-parse HEAD 2>/dev/null");
  if (!sha || trim(*sha).empty()) return {{"git_sha", "unknown"}, {"git_dirty", nullptr}};
  // Tracked files only: results written into the tree by the run itself are untracked.
  const auto status = command_output("git -C " + dir + " status --porcelain --untracked-files=no 2>/dev/null");
  nlohmann::json dirty = status ? nlohmann::json(!trim(*status).empty()) : nlohmann::json(nullptr);
  return {{"git_sha", trim(*sha)}, {"git_dirty", dirty}};
}

nlohmann::json gpu_clocks_from_nvidia_smi(const std::string& csv, const std::string& pci_bus_id) {
  std::istringstream lines(csv);
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::string> cells;
    std::istringstream fields(line);
    std::string cell;
    while (std::getline(fields, cell, ',')) cells.push_back(trim(cell));
    if (cells.size() != 6 || normalize_pci(cells[0]) != normalize_pci(pci_bus_id)) continue;
    // "[N/A]" (or anything else that is not a number) becomes null.
    const auto mhz = [](const std::string& v) { return number_or_null(v); };
    return {{"sm_mhz", mhz(cells[1])},     {"mem_mhz", mhz(cells[2])},
            {"max_sm_mhz", mhz(cells[3])}, {"max_mem_mhz", mhz(cells[4])},
            {"persistence_mode", cells[5]}, {"source", "nvidia-smi"}};
  }
  return nullptr;
}

nlohmann::json gpu_clocks(const std::string& pci_bus_id) {
  // NVML would need a library this build does not link; nvidia-smi ships with every
  // driver and reports the same counters.
  const auto csv = command_output(
      "nvidia-smi --query-gpu=pci.bus_id,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,persistence_mode "
      "--format=csv,noheader,nounits 2>/dev/null");
  if (!csv) return nullptr;
  return gpu_clocks_from_nvidia_smi(*csv, pci_bus_id);
}

nlohmann::json registry_list() {
  // Every registered implementation, not only those a run selects: a report can then
  // say which ones a machine lacked and why, and takes names and order from here
  // rather than from a list of its own.
  nlohmann::json list = nlohmann::json::array();
  for (const auto& entry : registry()) {
    bool available = false;
    std::string reason, evaluation;
    bool f64 = false;
    try {
      const ImplementationPtr impl = entry.make();
      const auto availability = impl->availability();
      available = availability.ok;
      if (!available) reason = availability.reason;
      evaluation = impl->evaluation();
      f64 = impl->supports_f64();
    } catch (const std::exception& e) {
      reason = std::string("cannot be created: ") + e.what();
    }
    list.push_back({{"name", entry.name}, {"device", std::string(to_string(entry.device))}, {"available", available},
                    {"reason", reason}, {"evaluation", evaluation}, {"f64", f64}});
  }
  return list;
}

nlohmann::json collect_context(const std::string& machine, const std::string& run_id, const std::string& suite,
                               Clock::time_point start, const nlohmann::json& implementations) {
  nlohmann::json ctx = {{"machine", machine}, {"run_id", run_id}, {"suite", suite}, {"date", utc_iso8601(start)}};
  ctx.update(git_state());
  ctx["compiler"] = build_info::cxx_compiler;
  ctx["cuda_compiler"] = std::string(build_info::cuda_compiler).empty() ? nlohmann::json(nullptr)
                                                                       : nlohmann::json(build_info::cuda_compiler);
  ctx["build_type"] = build_info::build_type;
  ctx["cxx_flags"] = build_info::cxx_flags;
  ctx["march"] = march_of(build_info::cxx_flags);
  ctx["cuda_flags"] = std::string(build_info::cuda_compiler).empty() ? nlohmann::json(nullptr)
                                                                    : nlohmann::json(build_info::cuda_flags);
  ctx["cuda_architectures"] = string_or_null(build_info::cuda_architectures);
  ctx["openmp"] = openmp_context();
  ctx.update(cuda_context());
  ctx["cpu_model"] = cpu_model();
  ctx["cpu_mhz"] = number_or_null(cpuinfo("cpu MHz"));
  ctx["cpu_max_mhz"] = number_or_null(first_line("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"), 1e-3);
  const auto governor = first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  ctx["cpu_governor"] = governor ? nlohmann::json(*governor) : nlohmann::json(nullptr);
  ctx["cpu_threads"] = std::thread::hardware_concurrency();
  ctx["hostname"] = host_name();
  ctx["implementations"] = implementations;
  ctx["registry"] = registry_list();
  return ctx;
}

}  // namespace splinebench::runner
