#include "splinebench/io/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "splinebench/error.hpp"
#include "splinebench/io/interrupt_cleanup.hpp"

namespace splinebench::io {
namespace {

namespace fs = std::filesystem;

// --- Temporaries in flight, as the signal handler sees them ------------------------
//
// One slot per atomic write in progress (any thread). The handler may run on any
// thread, so it touches only lock-free atomics and the path bytes, which are complete
// before the slot is marked kWriting and are not changed until the slot is free again.
enum SlotState : int {
  kFree = 0,
  kClaimed = 1,   // the path is being stored; no file exists yet
  kWriting = 2,   // the temporary may exist: a signal removes it
  kRenaming = 3,  // being renamed into place: signals wait until that is done
};
struct TempSlot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX] = {};
};
constexpr int kSlots = 16;
TempSlot g_slots[kSlots];
// A signal that arrived during a rename, delivered once no rename is in progress.
std::atomic<int> g_held_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

// Registrations of interrupt_cleanup.hpp, under the same rules: the handler reads a
// slot only once it is marked kFile or kGroup, after its payload is complete.
enum CleanupState : int { kCleanupFree = 0, kCleanupClaimed = 1, kCleanupFile = 2, kCleanupGroup = 3 };
struct CleanupSlot {
  std::atomic<int> state{kCleanupFree};
  std::atomic<pid_t> pgid{0};
  char path[PATH_MAX] = {};
};
CleanupSlot g_cleanup[InterruptCleanup::kMaxRegistrations];
static_assert(std::atomic<pid_t>::is_always_lock_free);

bool any_renaming() {
  for (const auto& slot : g_slots)
    if (slot.state.load() == kRenaming) return true;
  return false;
}

// Async-signal-safe: kill, unlink, sigaction, raise and _exit only. Children first, so
// that none writes to a file after it is removed.
[[noreturn]] void remove_temporaries_and_die(int sig) {
  for (auto& slot : g_cleanup)
    if (slot.state.load() == kCleanupGroup) ::kill(-slot.pgid.load(), SIGKILL);
  for (auto& slot : g_cleanup)
    if (slot.state.load() == kCleanupFile) ::unlink(slot.path);
  for (auto& slot : g_slots)
    if (slot.state.load() == kWriting) ::unlink(slot.path);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  ::sigaction(sig, &default_action, nullptr);
  ::raise(sig);
  ::_exit(128 + sig);  // not reached unless the signal is blocked
}

extern "C" void on_interrupt(int sig) {
  const int saved_errno = errno;
  if (any_renaming()) {
    int none = 0;
    g_held_signal.compare_exchange_strong(none, sig);
    errno = saved_errno;
    return;
  }
  remove_temporaries_and_die(sig);
}

// Registers a temporary for the handler before the file is created, and marks the
// rename; releasing the registration delivers a signal held during the rename.
class TempRegistration {
 public:
  explicit TempRegistration(const fs::path& temp) {
    const std::string& text = temp.native();
    if (text.size() >= PATH_MAX) return;  // open() refuses such a path: nothing to register
    while (slot_ == nullptr) {
      for (auto& slot : g_slots) {
        int expected = kFree;
        if (slot.state.compare_exchange_strong(expected, kClaimed)) {
          slot_ = &slot;
          break;
        }
      }
      if (slot_ == nullptr) std::this_thread::yield();  // more writes in flight than slots
    }
    std::memcpy(slot_->path, text.c_str(), text.size() + 1);
    slot_->state.store(kWriting);
  }
  ~TempRegistration() { release(); }
  TempRegistration(const TempRegistration&) = delete;
  TempRegistration& operator=(const TempRegistration&) = delete;

  void begin_rename() {
    if (slot_) slot_->state.store(kRenaming);
  }
  void release() {
    if (!slot_) return;
    const bool was_renaming = slot_->state.exchange(kFree) == kRenaming;
    slot_ = nullptr;
    if (!was_renaming) return;
    const int sig = g_held_signal.load();
    if (sig != 0 && !any_renaming() && g_held_signal.exchange(0) == sig) remove_temporaries_and_die(sig);
  }

 private:
  TempSlot* slot_ = nullptr;
};

// --- Destinations -------------------------------------------------------------------

// Appended piece by piece: GCC 12 warns (-Wrestrict, a known false positive) about
// "'" + std::string.
std::string quoted(const fs::path& p) {
  std::string out("'");
  out += p.string();
  out += '\'';
  return out;
}

fs::path folder_of(const fs::path& p) { return p.has_parent_path() ? p.parent_path() : fs::path("."); }

[[noreturn]] void fail(const fs::path& path, const std::string& why) {
  throw Error("cannot write " + quoted(path) + ": " + why);
}

enum class Kind {
  replace,   // temporary + rename
  through,   // opened and written in place
  stream,    // this process's stdout or stderr
};

struct Destination {
  Kind kind = Kind::replace;
  fs::path path;       // for replace: the file itself, symbolic links followed
  int fd = -1;         // for stream
  bool exists = false;  // for replace: a file is being replaced (its mode is kept)
  mode_t mode = 0;
};

bool names_a_link(const fs::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

// Follows symbolic links to the name they end at, which may not exist yet.
fs::path resolve_links(const fs::path& path) {
  fs::path p = path;
  for (int hops = 0; hops < 40; ++hops) {
    if (!names_a_link(p)) return p;
    std::error_code ec;
    const fs::path next = fs::read_symlink(p, ec);
    if (ec) fail(path, "cannot read the symbolic link " + quoted(p) + ": " + ec.message());
    p = next.is_absolute() ? next : folder_of(p) / next;
  }
  fail(path, "too many levels of symbolic links");
}

// stdout (1) or stderr (2) when `st` is the file one of them refers to, else -1.
int standard_stream_of(const struct stat& st) {
  for (int fd : {STDOUT_FILENO, STDERR_FILENO}) {
    struct stat s {};
    if (::fstat(fd, &s) == 0 && s.st_dev == st.st_dev && s.st_ino == st.st_ino) return fd;
  }
  return -1;
}

Destination classify(const fs::path& path) {
  if (path.empty() || !path.has_filename()) fail(path, "no file name");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISREG(st.st_mode)) {
      // Named through a link (/dev/stdout -> /proc/self/fd/1 -> a file): a stream the
      // caller redirected, perhaps for appending, which replacing would defeat.
      if (names_a_link(path)) {
        if (const int fd = standard_stream_of(st); fd >= 0) return {Kind::stream, path, fd};
      }
      // The rename needs only the folder's permission, so it would replace a file the
      // user cannot write, or made read-only, without a word: refused instead. Root may
      // write a 0444 file, but such a file is one its owner wants kept.
      if (::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) != 0 || (st.st_mode & 0222) == 0) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
        fail(path, std::string("it is read-only (mode ") + mode +
                       "); make it writable (chmod u+w) or write elsewhere");
      }
      return {Kind::replace, resolve_links(path), -1, true, static_cast<mode_t>(st.st_mode & 07777)};
    }
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
      if (const int fd = standard_stream_of(st); fd >= 0) return {Kind::stream, path, fd};
      return {Kind::through, path};
    }
    const char* what = S_ISDIR(st.st_mode)    ? "it is a directory"
                       : S_ISBLK(st.st_mode)  ? "it is a block device"
                       : S_ISSOCK(st.st_mode) ? "it is a socket"
                                              : "it is not a regular file";
    if (S_ISDIR(st.st_mode)) fail(path, what);
    fail(path, std::string(what) + "; outputs go to regular files, character devices (such as /dev/null) "
                                   "or FIFOs");
  }
  if (errno != ENOENT) fail(path, std::strerror(errno));
  // Missing, or a link to something missing: created where the links lead.
  const fs::path target = resolve_links(path);
  const fs::path dir = folder_of(target);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) fail(path, "directory " + quoted(dir) + " does not exist");
  return {Kind::replace, target};
}

// A name in the temporary folder that no other writer (another process, or another
// thread here) picks; dot-prefixed so directory listings hide it.
fs::path temporary_name(const fs::path& dir, const fs::path& name) {
  static std::atomic<unsigned> counter{0};
  std::string temp(".");  // piece by piece, as in quoted()
  temp += name.string();
  temp += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  return dir / temp;
}

void write_all(int fd, const void* bytes, std::size_t count, const fs::path& path) {
  const char* p = static_cast<const char*>(bytes);
  while (count > 0) {
    const ssize_t n = ::write(fd, p, count);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(path, std::strerror(errno));
    }
    p += n;
    count -= static_cast<std::size_t>(n);
  }
}

void fsync_dir(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // durability only; the rename itself already happened
  (void)::fsync(fd);
  ::close(fd);
}

void replace(const fs::path& path, const Destination& dest, const WriteContent& write_content,
             const fs::path& temp_dir) {
  // A caller's temporary folder is a sibling of `path`; a link may lead elsewhere.
  const fs::path dir = temp_dir.empty() || dest.path != path ? folder_of(dest.path) : temp_dir;
  const fs::path temp = temporary_name(dir, dest.path.filename());
  TempRegistration registration(temp);
  // O_EXCL: fail rather than reuse a file that happens to exist under that name.
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) fail(path, "cannot create a temporary file in " + quoted(dir) + ": " + std::strerror(errno));
  try {
    if (dest.exists) (void)::fchmod(fd, dest.mode);  // the replaced file's permissions
    write_content([&](const void* bytes, std::size_t count) { write_all(fd, bytes, count, path); });
    // On the disk before the rename, so that after a crash the destination is either
    // the old file or the complete new one.
    if (::fsync(fd) != 0) fail(path, std::strerror(errno));
    const int closing = fd;
    fd = -1;
    if (::close(closing) != 0) fail(path, std::strerror(errno));
    registration.begin_rename();
    if (::rename(temp.c_str(), dest.path.c_str()) != 0) fail(path, std::strerror(errno));
  } catch (...) {
    if (fd >= 0) ::close(fd);
    ::unlink(temp.c_str());
    registration.release();
    throw;
  }
  registration.release();
  fsync_dir(folder_of(dest.path));
}

void write_through(const fs::path& path, const WriteContent& write_content) {
  // No O_CREAT, no O_TRUNC: the node exists and is written as it is. A FIFO blocks
  // here until its reader opens it, as it would for any writer.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) fail(path, std::strerror(errno));
  try {
    write_content([&](const void* bytes, std::size_t count) { write_all(fd, bytes, count, path); });
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) fail(path, std::strerror(errno));
}

void write_to_stream(const fs::path& path, int fd, const WriteContent& write_content) {
  // Whatever the program printed through stdio comes first.
  std::fflush(fd == STDOUT_FILENO ? stdout : stderr);
  write_content([&](const void* bytes, std::size_t count) { write_all(fd, bytes, count, path); });
}

}  // namespace

void write_file_atomically(const fs::path& path, const WriteContent& write_content, const fs::path& temp_dir) {
  const Destination dest = classify(path);
  switch (dest.kind) {
    case Kind::replace: replace(path, dest, write_content, temp_dir); break;
    case Kind::through: write_through(path, write_content); break;
    case Kind::stream: write_to_stream(path, dest.fd, write_content); break;
  }
}

void write_file_atomically(const fs::path& path, std::string_view content, const fs::path& temp_dir) {
  write_file_atomically(
      path, [&](const PutBytes& put) { put(content.data(), content.size()); }, temp_dir);
}

void check_output(const fs::path& path) { (void)classify(path); }

namespace {

int claim_cleanup_slot() {
  for (int i = 0; i < InterruptCleanup::kMaxRegistrations; ++i) {
    int expected = kCleanupFree;
    if (g_cleanup[i].state.compare_exchange_strong(expected, kCleanupClaimed)) return i;
  }
  throw Error("more than " + std::to_string(InterruptCleanup::kMaxRegistrations) +
              " files and child processes registered for removal on interrupt at once");
}

}  // namespace

InterruptCleanup InterruptCleanup::remove_file(const fs::path& path) {
  const std::string text = fs::absolute(path).string();
  if (text.size() >= PATH_MAX) throw Error("cannot register " + quoted(path) + " for removal: path too long");
  const int slot = claim_cleanup_slot();
  std::memcpy(g_cleanup[slot].path, text.c_str(), text.size() + 1);
  g_cleanup[slot].state.store(kCleanupFile);
  return InterruptCleanup(slot);
}

InterruptCleanup InterruptCleanup::kill_process_group(pid_t pgid) {
  if (pgid <= 1) throw Error("cannot register process group " + std::to_string(pgid) + " to kill on interrupt");
  const int slot = claim_cleanup_slot();
  g_cleanup[slot].pgid.store(pgid);
  g_cleanup[slot].state.store(kCleanupGroup);
  return InterruptCleanup(slot);
}

void InterruptCleanup::release() {
  if (slot_ < 0) return;
  g_cleanup[slot_].state.store(kCleanupFree);
  slot_ = -1;
}

InterruptCleanup::~InterruptCleanup() { release(); }

InterruptCleanup::InterruptCleanup(InterruptCleanup&& other) noexcept : slot_(std::exchange(other.slot_, -1)) {}

InterruptCleanup& InterruptCleanup::operator=(InterruptCleanup&& other) noexcept {
  if (this != &other) {
    release();
    slot_ = std::exchange(other.slot_, -1);
  }
  return *this;
}

void install_interrupt_guard() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler == SIG_IGN) continue;
      struct sigaction action {};
      action.sa_handler = on_interrupt;
      sigemptyset(&action.sa_mask);
      // SA_NODEFER: the handler may re-raise its own signal with the default action
      // and have it take effect at once.
      action.sa_flags = SA_RESTART | SA_NODEFER;
      ::sigaction(sig, &action, nullptr);
    }
  });
}

}  // namespace splinebench::io
