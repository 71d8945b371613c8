#include "adapter_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
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

AdapterProcess::AdapterProcess(const AdapterCommand& command) : command_(command) {
  if (!std::filesystem::exists(command_.script)) throw Error("adapter script not found: " + command_.script);
  log_path_ = make_log_path(command_.library);
  int fds[2];
  // A socket pair rather than pipes: writing to a dead adapter then fails with EPIPE
  // (send with MSG_NOSIGNAL) instead of killing the harness with SIGPIPE.
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    throw Error(std::string("socketpair: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log_path_.c_str(), O_WRONLY | O_TRUNC, 0600);
  std::vector<std::string> args = {command_.python, command_.script, "--library", command_.library};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int rc = posix_spawnp(&pid_, command_.python.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    pid_ = -1;
    throw Error("cannot start " + command_.python + " (" + command_.python_source + "): " + std::strerror(rc));
  }
  fd_ = fds[0];
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
    if (!reaped) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
  }
  if (fd_ >= 0) close(fd_);
  if (!log_path_.empty()) std::filesystem::remove(log_path_);
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

std::string AdapterProcess::read_line() {
  for (;;) {
    if (const auto nl = buffer_.find('\n'); nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    char chunk[4096];
    const ssize_t got = recv(fd_, chunk, sizeof chunk, 0);
    if (got > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(got));
    } else if (got == 0) {
      fail("the process ended without answering (" + command_.python + " " + command_.script + ")");
    } else if (errno != EINTR) {
      fail(std::string("reading its answer: ") + std::strerror(errno));
    }
  }
}

nlohmann::json AdapterProcess::request(const nlohmann::json& req) {
  const std::string line = req.dump() + "\n";
  for (std::size_t sent = 0; sent < line.size();) {
    const ssize_t n = send(fd_, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(std::string("sending a request: ") + std::strerror(errno));
    sent += static_cast<std::size_t>(n);
  }
  const std::string text = read_line();
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
