#include "cli_children.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "splinebench/error.hpp"
#include "splinebench/io/interrupt_cleanup.hpp"

extern char** environ;

namespace splinebench::cli {
namespace {

std::vector<std::string> environment_with(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> out;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::string key = entry.substr(0, entry.find('='));
    if (!extra.count(key)) out.push_back(entry);
  }
  for (const auto& [k, v] : extra) out.push_back(k + "=" + v);
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

struct Started {
  pid_t pid = -1;
  io::InterruptCleanup group;  // killed (SIGKILL) if this process is interrupted
};

pid_t start(const ChildSpec& spec) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  const std::string log = spec.log.string();
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  // Its own process group (so that the terminal's Ctrl-C reaches this process, which
  // kills the groups), default signal dispositions and an empty mask.
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<std::string> argv = spec.argv;
  std::vector<std::string> env = environment_with(spec.env);
  auto argv_p = pointers(argv);
  auto env_p = pointers(env);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv_p[0], &actions, &attr, argv_p.data(), env_p.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw Error("cannot start " + spec.argv.front() + ": " + std::strerror(rc));
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 127;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 127;
}

}  // namespace

std::vector<int> run_children(const std::vector<ChildSpec>& children) {
  std::vector<Started> started;
  started.reserve(children.size());
  try {
    for (const ChildSpec& spec : children) {
      Started s;
      s.pid = start(spec);
      s.group = io::InterruptCleanup::kill_process_group(s.pid);
      started.push_back(std::move(s));
    }
  } catch (...) {
    for (Started& s : started) {
      kill(-s.pid, SIGKILL);
      wait_for(s.pid);
      s.group.release();
    }
    throw;
  }
  std::vector<int> codes;
  for (Started& s : started) {
    codes.push_back(wait_for(s.pid));
    s.group.release();
  }
  return codes;
}

}  // namespace splinebench::cli
