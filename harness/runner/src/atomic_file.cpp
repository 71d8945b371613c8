#include "splinebench/runner/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>

#include "splinebench/error.hpp"

namespace splinebench::runner {
namespace {

// 0: no atomic write in progress; 1: writing; 100 + sig: writing, and `sig` arrived.
// Lock-free, hence safe to touch from a signal handler on any thread.
std::atomic<int> g_write_state{0};
static_assert(std::atomic<int>::is_always_lock_free);

[[noreturn]] void die_by(int sig) {
  std::signal(sig, SIG_DFL);
  std::raise(sig);
  _exit(128 + sig);  // not reached unless the signal is blocked
}

extern "C" void on_interrupt(int sig) {
  int state = g_write_state.load();
  while (state != 0) {
    if (state >= 100) return;  // already pending: the write ends the process when done
    if (g_write_state.compare_exchange_weak(state, 100 + sig)) return;  // finish the write first
  }
  die_by(sig);
}

// Marks an atomic write; re-delivers a signal that arrived during it.
class WriteSection {
 public:
  WriteSection() { g_write_state.store(1); }
  ~WriteSection() {
    const int state = g_write_state.exchange(0);
    if (state >= 100) die_by(state - 100);
  }
  WriteSection(const WriteSection&) = delete;
  WriteSection& operator=(const WriteSection&) = delete;
};

[[noreturn]] void fail_errno(const std::string& what, const std::filesystem::path& path) {
  throw Error(what + " " + path.string() + ": " + std::strerror(errno));
}

void write_all(int fd, const std::string& content, const std::filesystem::path& path) {
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_errno("cannot write", path);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

void fsync_dir(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;  // durability only; the rename itself already happened
  (void)::fsync(fd);
  ::close(fd);
}

}  // namespace

void write_file_atomically(const std::filesystem::path& target, const std::string& content,
                           const std::filesystem::path& temp_dir) {
  const std::filesystem::path temp =
      temp_dir / (target.filename().string() + "." + std::to_string(::getpid()) + ".tmp");
  WriteSection section;
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail_errno("cannot create", temp);
  try {
    write_all(fd, content, temp);
    if (::fsync(fd) != 0) fail_errno("cannot flush", temp);
  } catch (...) {
    ::close(fd);
    ::unlink(temp.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    ::unlink(temp.c_str());
    fail_errno("cannot close", temp);
  }
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    const int saved = errno;
    ::unlink(temp.c_str());
    errno = saved;
    fail_errno("cannot rename into place", target);
  }
  fsync_dir(target.parent_path());
}

void install_interrupt_guard() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  // SA_NODEFER: the handler may re-raise its own signal with the default action and
  // have it take effect at once.
  action.sa_flags = SA_RESTART | SA_NODEFER;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &action, nullptr);
}

}  // namespace splinebench::runner
