#include "peer_probe.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "splinebench/io/interrupt_cleanup.hpp"

extern char** environ;

namespace splinebench::external {
namespace {

// A Python start takes tens of milliseconds; a machine busy enough to need more than
// adapter_timeout_floor_seconds() (SPLINEBENCH_ADAPTER_TIMEOUT_S) is reported as such
// rather than waited on.

struct Captured {
  std::string failure;  // why it could not be run to its end; empty when it was
  int exit_status = -1;
  std::string output;   // stdout and stderr together
};

// Runs argv[0] (searched on PATH) with stdin from /dev/null, collecting its output, in
// a process group of its own: on timeout the group is killed, so nothing it started
// is left behind (a wrapper's child would otherwise keep running, orphaned).
Captured run_captured(std::vector<std::string> argv, const std::string& what, double timeout_seconds) {
  Captured c;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    c.failure = std::string("pipe: ") + std::strerror(errno);
    return c;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, argv[0].c_str(), &actions, &attr, args.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    c.failure = "cannot start " + what + ": " + std::strerror(rc);
    return c;
  }
  // Killed with the harness when an interrupt ends it (io::install_interrupt_guard).
  io::InterruptCleanup kill_on_interrupt;
  try {
    kill_on_interrupt = io::InterruptCleanup::kill_process_group(pid);
  } catch (const std::exception&) {
    // Too many registrations: the probe still runs, it is short and killed on timeout.
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                               std::chrono::duration<double>(timeout_seconds));
  bool timed_out = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      timed_out = ready == 0;
      if (!timed_out) c.failure = std::string("poll: ") + std::strerror(errno);
      break;
    }
    char chunk[4096];
    const ssize_t got = read(fds[0], chunk, sizeof chunk);
    if (got > 0) c.output.append(chunk, static_cast<std::size_t>(got));
    if (got == 0) break;
    if (got < 0 && errno != EINTR) {
      c.failure = std::string("read: ") + std::strerror(errno);
      break;
    }
  }
  close(fds[0]);
  if (timed_out || !c.failure.empty()) kill(-pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  kill_on_interrupt.release();
  if (timed_out) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", timeout_seconds);
    c.failure = what + " did not finish within " + seconds +
                " s (SPLINEBENCH_ADAPTER_TIMEOUT_S); it and what it started were killed";
  }
  if (c.failure.empty()) c.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return c;
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

std::string tail(const std::string& text, std::size_t keep) {
  const std::string t = trimmed(text);
  return t.size() > keep ? "..." + t.substr(t.size() - keep) : t;
}

// One probe run: {library: {"available": bool, "reason": str}}, or why there is none.
struct ProbeRun {
  std::string failure;
  nlohmann::json libraries;
};

ProbeRun run_probe(const AdapterCommand& command, const std::string& script) {
  ProbeRun run;
  if (!std::filesystem::exists(script)) {
    run.failure = "the adapter's probe script is missing: " + script;
    return run;
  }
  const std::string what = command.python + " (" + command.python_source + ")";
  double timeout_seconds = 0;
  try {
    timeout_seconds = adapter_timeout_floor_seconds();
  } catch (const std::exception& e) {
    run.failure = e.what();
    return run;
  }
  const Captured c = run_captured({command.python, script}, what, timeout_seconds);
  if (!c.failure.empty()) {
    run.failure = c.failure;
    return run;
  }
  // The answer is the last line; a Python that cannot run the script says why before it.
  const std::string out = trimmed(c.output);
  const auto nl = out.rfind('\n');
  nlohmann::json answer;
  try {
    answer = nlohmann::json::parse(nl == std::string::npos ? out : out.substr(nl + 1));
  } catch (const nlohmann::json::exception&) {
  }
  if (c.exit_status != 0 || !answer.is_object() || !answer.contains("libraries") || !answer["libraries"].is_object()) {
    run.failure = what + " could not run " + script + " (exit status " + std::to_string(c.exit_status) +
                  "): " + tail(c.output, 600);
    return run;
  }
  run.libraries = answer["libraries"];
  return run;
}

using Key = std::pair<std::string, std::string>;

std::mutex& cache_mutex() {
  static std::mutex m;
  return m;
}
std::map<Key, ProbeRun>& runs() {  // (python, probe script) -> its one run
  static std::map<Key, ProbeRun> m;
  return m;
}
std::map<Key, Availability>& hellos() {  // (python, library) -> the adapter's own verdict
  static std::map<Key, Availability> m;
  return m;
}

}  // namespace

std::string probe_script_for(const AdapterCommand& command) {
  return (std::filesystem::path(command.script).parent_path() / "adapter_probe.py").string();
}

Availability probe_library(const AdapterCommand& command, std::string (*device_unavailable)()) {
  std::lock_guard lock(cache_mutex());
  if (const auto h = hellos().find({command.python, command.library}); h != hellos().end()) return h->second;
  const std::string script = probe_script_for(command);
  auto it = runs().find({command.python, script});
  if (it == runs().end()) it = runs().emplace(Key{command.python, script}, run_probe(command, script)).first;
  const ProbeRun& run = it->second;

  std::vector<std::string> why_not;
  if (!run.failure.empty()) {
    why_not.push_back(run.failure);
  } else {
    const nlohmann::json entry = run.libraries.value(command.library, nlohmann::json::object());
    if (!entry.value("available", false))
      why_not.push_back(entry.value("reason", "the probe does not know " + command.library) + " (Python: " +
                        command.python + ", " + command.python_source + ")");
  }
  // Both reasons when both hold: installing the package alone would not be enough.
  if (device_unavailable)
    if (std::string device = device_unavailable(); !device.empty()) why_not.push_back(device);
  if (why_not.empty()) return {};
  std::string reason = "not available: " + why_not[0];
  for (std::size_t i = 1; i < why_not.size(); ++i) reason += "; " + why_not[i];
  return {false, reason};
}

void record_hello(const AdapterCommand& command, const Availability& verdict) {
  std::lock_guard lock(cache_mutex());
  hellos()[{command.python, command.library}] = verdict;
}

}  // namespace splinebench::external
