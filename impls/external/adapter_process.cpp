#include "adapter_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "splinebench/error.hpp"

extern char** environ;

namespace splinebench::external {
namespace {

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

// A private log file for the adapter's stderr, in the temporary directory.
std::string make_log_path(const std::string& library) {
  const auto dir = std::filesystem::temp_directory_path();
  std::string pattern = (dir / ("splinebench-" + library + "-XXXXXX.log")).string();
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  const int fd = mkstemps(buf.data(), 4);
  if (fd < 0) throw Error("cannot create the adapter's log file in " + dir.string() + ": " + std::strerror(errno));
  close(fd);
  return buf.data();
}

}  // namespace

AdapterCommand locate_adapter(const std::string& library) {
  AdapterCommand c;
  c.library = library;
  if (auto p = env_or_empty("SPLINEBENCH_PYTHON"); !p.empty()) {
    c.python = p;
    c.python_source = "SPLINEBENCH_PYTHON";
  } else if (const auto venv = std::filesystem::path(SPLINEBENCH_SOURCE_DIR) / ".venv" / "bin" / "python";
             std::filesystem::exists(venv)) {
    c.python = venv.string();
    c.python_source = "the project's .venv";
  } else {
    c.python = "python3";
    c.python_source = "python3 on PATH (no .venv: ./run_all.sh creates it)";
  }
  c.script = env_or_empty("SPLINEBENCH_ADAPTER");
  if (c.script.empty()) c.script = SPLINEBENCH_ADAPTER_SCRIPT;
  return c;
}

double adapter_timeout_floor_seconds() {
  const std::string text = env_or_empty("SPLINEBENCH_ADAPTER_TIMEOUT_S");
  if (text.empty()) return kDefaultTimeoutFloorSeconds;
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !std::isfinite(seconds) || seconds <= 0)
    throw Error("SPLINEBENCH_ADAPTER_TIMEOUT_S must be a positive number of seconds, got '" + text + "'");
  return seconds;
}

double request_deadline_seconds(double work_units) {
  return adapter_timeout_floor_seconds() + std::max(0.0, work_units) * kSecondsPerWorkUnit;
}

AdapterProcess::AdapterProcess(const AdapterCommand& command) : command_(command) {
  if (!std::filesystem::exists(command_.script)) throw Error("adapter script not found: " + command_.script);
  (void)adapter_timeout_floor_seconds();  // a malformed setting fails before anything starts
  log_path_ = make_log_path(command_.library);
  try {
    remove_log_ = io::InterruptCleanup::remove_file(log_path_);
  } catch (...) {
    std::filesystem::remove(log_path_);
    throw;
  }
  int fds[2];
  // A socket pair rather than pipes: writing to a dead adapter then fails with EPIPE
  // (send with MSG_NOSIGNAL) instead of killing the harness with SIGPIPE.
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    std::filesystem::remove(log_path_);
    throw Error(std::string("socketpair: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log_path_.c_str(), O_WRONLY | O_TRUNC, 0600);
  // A process group of its own (its id is the child's pid): a timeout or an interrupt
  // kills the adapter with whatever it started. Interrupts are held from the spawn
  // until the group is registered for the interrupt guard, and the child starts with
  // none held.
  sigset_t interrupts, previous, none;
  sigemptyset(&interrupts);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&interrupts, sig);
  sigemptyset(&none);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setsigmask(&attr, &none);
  std::vector<std::string> args = {command_.python, command_.script, "--library", command_.library};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pthread_sigmask(SIG_BLOCK, &interrupts, &previous);
  const int rc = posix_spawnp(&pid_, command_.python.c_str(), &actions, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  fd_ = fds[0];
  if (rc == 0) {
    try {
      kill_group_ = io::InterruptCleanup::kill_process_group(pid_);
    } catch (...) {
      pthread_sigmask(SIG_SETMASK, &previous, nullptr);
      kill_and_reap();
      close(fd_);
      std::filesystem::remove(log_path_);
      throw;
    }
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (rc != 0) {
    close(fd_);
    fd_ = -1;
    pid_ = -1;
    std::filesystem::remove(log_path_);
    throw Error("cannot start " + command_.python + " (" + command_.python_source + "): " + std::strerror(rc));
  }
}

void AdapterProcess::kill_and_reap() {
  if (pid_ <= 0) return;
  kill(-pid_, SIGKILL);  // the group: the adapter and anything it started
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  kill_group_.release();
}

bool AdapterProcess::alive() {
  if (pid_ <= 0) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) {
    pid_ = -1;
    kill_group_.release();
    return false;
  }
  return true;
}

AdapterProcess::~AdapterProcess() {
  if (pid_ > 0) {
    static const char bye[] = "{\"op\": \"shutdown\"}\n";
    (void)!send(fd_, bye, sizeof bye - 1, MSG_NOSIGNAL);
    shutdown(fd_, SHUT_WR);  // EOF on its stdin ends it too
    // Up to two seconds to exit by itself, then killed: a hung library must not hang the harness.
    int status = 0;
    bool reaped = false;
    for (int i = 0; i < 200 && !reaped; ++i) {
      reaped = waitpid(pid_, &status, WNOHANG) == pid_;
      if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (reaped) {
      pid_ = -1;
      kill_group_.release();
    } else {
      kill_and_reap();
    }
  }
  if (fd_ >= 0) close(fd_);
  if (!log_path_.empty()) {
    std::error_code ignored;  // a destructor does not throw; a log already gone is fine
    std::filesystem::remove(log_path_, ignored);
  }
  remove_log_.release();
}

std::string AdapterProcess::stderr_tail() const {
  std::ifstream in(log_path_);
  std::stringstream all;
  all << in.rdbuf();
  std::string text = all.str();
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (text.size() > 600) text = "..." + text.substr(text.size() - 600);
  return text;
}

void AdapterProcess::fail(const std::string& what) const {
  const std::string tail = stderr_tail();
  throw Error(command_.library + " adapter: " + what + (tail.empty() ? "" : "; its stderr: " + tail));
}

std::string AdapterProcess::read_line(double deadline_seconds, const std::string& op) {
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::duration_cast<clock::duration>(
                                           std::chrono::duration<double>(deadline_seconds));
  for (;;) {
    if (const auto nl = buffer_.find('\n'); nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - clock::now()).count();
    pollfd p{fd_, POLLIN, 0};
    const int ready = left > 0 ? poll(&p, 1, static_cast<int>(std::min<long long>(left, 1 << 30))) : 0;
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) fail(std::string("waiting for its answer: ") + std::strerror(errno));
    if (ready == 0) {
      if (clock::now() < deadline) continue;
      kill_and_reap();
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%.3g", deadline_seconds);
      fail("no answer to '" + op + "' within " + seconds + " s (the request's deadline: " +
           "SPLINEBENCH_ADAPTER_TIMEOUT_S, now " + std::to_string(static_cast<long long>(adapter_timeout_floor_seconds())) +
           " s, plus 1 us per unit of work); the adapter was hung or stopped, and its process group was killed");
    }
    char chunk[4096];
    const ssize_t got = recv(fd_, chunk, sizeof chunk, 0);
    if (got > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(got));
    } else if (got == 0) {
      // Its end of the socket closed: it exited or was killed. Reaped now, so that
      // alive() says so and the next case starts a new one.
      kill_and_reap();
      fail("the process ended without answering '" + op + "' (" + command_.python + " " + command_.script + ")");
    } else if (errno != EINTR) {
      fail(std::string("reading its answer: ") + std::strerror(errno));
    }
  }
}

nlohmann::json AdapterProcess::request(const nlohmann::json& req, double work_units) {
  const std::string op = req.value("op", std::string("?"));
  if (pid_ <= 0) fail("the process is gone (it ended or was killed earlier); '" + op + "' not sent");
  const double deadline = request_deadline_seconds(work_units);
  const std::string line = req.dump() + "\n";
  for (std::size_t sent = 0; sent < line.size();) {
    const ssize_t n = send(fd_, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (errno == EPIPE) kill_and_reap();
      fail(std::string("sending a request: ") + std::strerror(errno));
    }
    sent += static_cast<std::size_t>(n);
  }
  const std::string text = read_line(deadline, op);
  nlohmann::json answer;
  try {
    answer = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    fail("answer is not JSON: " + text.substr(0, 200));
  }
  if (!answer.is_object()) fail("answer is not a JSON object: " + text.substr(0, 200));
  if (!answer.value("ok", false)) {
    const std::string error = answer.value("error", std::string("no reason given"));
    if (answer.value("unsupported", false)) throw Unsupported(command_.library + ": " + error);
    throw Error(command_.library + ": " + error);
  }
  return answer;
}

}  // namespace splinebench::external
