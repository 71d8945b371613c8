#include "splinebench/runner/run_context.hpp"

#include <unistd.h>

#include <array>
#include <cstdlib>
#include <optional>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <thread>

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
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  std::size_t start = 0;
  while (start < s.size() && s[start] == ' ') ++start;
  return s.substr(start);
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return trim(line.substr(colon + 1));
    }
  }
  return "unknown";
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

nlohmann::json registry_list() {
  // Every registered implementation, not only those a run selects: a report can then
  // say which ones a machine lacked and why, and takes names and order from here
  // rather than from a list of its own.
  nlohmann::json list = nlohmann::json::array();
  for (const auto& entry : registry()) {
    bool available = false;
    std::string reason;
    try {
      const auto availability = entry.make()->availability();
      available = availability.ok;
      if (!available) reason = availability.reason;
    } catch (const std::exception& e) {
      reason = std::string("cannot be created: ") + e.what();
    }
    list.push_back({{"name", entry.name}, {"device", std::string(to_string(entry.device))}, {"available", available},
                    {"reason", reason}});
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
  ctx.update(cuda_context());
  ctx["cpu_model"] = cpu_model();
  ctx["cpu_threads"] = std::thread::hardware_concurrency();
  ctx["hostname"] = host_name();
  ctx["implementations"] = implementations;
  ctx["registry"] = registry_list();
  return ctx;
}

}  // namespace splinebench::runner
