// What else an interrupt must not leave behind, beside the atomic writer's temporaries
// (atomic_file.hpp): files to remove (arrays shared with a child process in /dev/shm,
// its log) and child process groups to kill, each registered for as long as the
// registration object lives. When install_interrupt_guard()'s handler ends the process
// (SIGINT, SIGTERM, SIGHUP), it kills the registered process groups (SIGKILL), then
// removes the registered files, then the temporaries, all with async-signal-safe calls.
// Normal exit is the owner's job: its destructor removes the file or stops the child
// and drops the registration.
#pragma once

#include <sys/types.h>

#include <filesystem>

namespace splinebench::io {

class InterruptCleanup {
 public:
  InterruptCleanup() = default;  // registers nothing
  // Throws splinebench::Error when a path is too long to store, or when more than
  // kMaxRegistrations registrations live at once.
  static InterruptCleanup remove_file(const std::filesystem::path& path);
  static InterruptCleanup kill_process_group(pid_t pgid);
  ~InterruptCleanup();
  InterruptCleanup(InterruptCleanup&& other) noexcept;
  InterruptCleanup& operator=(InterruptCleanup&& other) noexcept;
  InterruptCleanup(const InterruptCleanup&) = delete;
  InterruptCleanup& operator=(const InterruptCleanup&) = delete;

  // Drops the registration (the file is gone, the process reaped).
  void release();

  static constexpr int kMaxRegistrations = 256;

 private:
  explicit InterruptCleanup(int slot) : slot_(slot) {}
  int slot_ = -1;
};

}  // namespace splinebench::io
