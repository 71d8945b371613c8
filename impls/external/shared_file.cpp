#include "shared_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

#include "splinebench/error.hpp"

namespace splinebench::external {
namespace {

std::vector<std::string> candidate_dirs() {
  if (const char* dir = std::getenv("SPLINEBENCH_ADAPTER_TMP"); dir && *dir) return {dir};
  std::vector<std::string> dirs;
  if (std::filesystem::is_directory("/dev/shm")) dirs.emplace_back("/dev/shm");
  dirs.push_back(std::filesystem::temp_directory_path().string());
  return dirs;
}

}  // namespace

SharedFile::SharedFile(const std::string& tag, std::size_t bytes) {
  if (bytes == 0) bytes = 1;
  std::string tried;
  for (const auto& dir : candidate_dirs()) {
    std::string pattern = dir + "/splinebench-" + tag + "-XXXXXX";
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    // Interrupts held from the file's creation until it is registered for removal:
    // a signal in between would leave an array of up to gigabytes in /dev/shm.
    sigset_t interrupts, previous;
    sigemptyset(&interrupts);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&interrupts, sig);
    pthread_sigmask(SIG_BLOCK, &interrupts, &previous);
    const int fd = mkstemp(name.data());
    io::InterruptCleanup registration;
    if (fd >= 0) {
      try {
        registration = io::InterruptCleanup::remove_file(name.data());
      } catch (...) {
        close(fd);
        unlink(name.data());
        pthread_sigmask(SIG_SETMASK, &previous, nullptr);
        throw;
      }
    }
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    if (fd < 0) {
      tried += (tried.empty() ? "" : "; ") + dir + ": " + std::strerror(errno);
      continue;
    }
    // Reserve the whole size now: a tmpfs that runs out later would kill the process
    // with SIGBUS on the first write to an unbacked page.
    const int rc = posix_fallocate(fd, 0, static_cast<off_t>(bytes));
    if (rc != 0) {
      close(fd);
      unlink(name.data());
      tried += (tried.empty() ? "" : "; ") + dir + ": " + std::strerror(rc);
      continue;
    }
    void* map = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    const int map_errno = errno;
    close(fd);
    if (map == MAP_FAILED) {
      unlink(name.data());
      throw Error(std::string("cannot map ") + name.data() + ": " + std::strerror(map_errno));
    }
    path_ = name.data();
    data_ = map;
    size_ = bytes;
    remove_on_interrupt_ = std::move(registration);
    return;
  }
  throw Error("no room for a " + std::to_string(bytes) + "-byte array file (" + tried +
              "); set SPLINEBENCH_ADAPTER_TMP to a directory with room");
}

void SharedFile::reset() {
  if (data_) munmap(data_, size_);
  if (!path_.empty()) unlink(path_.c_str());
  remove_on_interrupt_.release();
  data_ = nullptr;
  size_ = 0;
  path_.clear();
}

SharedFile::~SharedFile() { reset(); }

SharedFile::SharedFile(SharedFile&& other) noexcept
    : path_(std::move(other.path_)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      remove_on_interrupt_(std::move(other.remove_on_interrupt_)) {
  other.path_.clear();
}

SharedFile& SharedFile::operator=(SharedFile&& other) noexcept {
  if (this != &other) {
    reset();
    path_ = std::move(other.path_);
    other.path_.clear();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    remove_on_interrupt_ = std::move(other.remove_on_interrupt_);
  }
  return *this;
}

void ensure_size(SharedFile& file, const std::string& tag, std::size_t bytes) {
  if (file.data() && file.size() == std::max<std::size_t>(bytes, 1)) return;
  file = SharedFile();  // the old one goes before the new one takes room
  file = SharedFile(tag, bytes);
}

}  // namespace splinebench::external
