// A raw file mapped into memory that the adapter process opens by path: how arrays
// cross the process boundary without a copy through the protocol's socket. In
// SPLINEBENCH_ADAPTER_TMP when set, else /dev/shm (memory, no disk traffic) when it has
// room for the file, else the temporary directory. Removed on destruction, and by the
// interrupt guard (io::install_interrupt_guard) when a signal ends the process.
#pragma once

#include <cstddef>
#include <string>

#include "splinebench/io/interrupt_cleanup.hpp"

namespace splinebench::external {

class SharedFile {
 public:
  SharedFile() = default;
  // Creates and maps a file of `bytes` bytes (>= 1); throws splinebench::Error naming
  // the directories tried when none has room.
  SharedFile(const std::string& tag, std::size_t bytes);
  ~SharedFile();
  SharedFile(SharedFile&& other) noexcept;
  SharedFile& operator=(SharedFile&& other) noexcept;
  SharedFile(const SharedFile&) = delete;
  SharedFile& operator=(const SharedFile&) = delete;

  void* data() const { return data_; }
  std::size_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  void reset();

  std::string path_;
  void* data_ = nullptr;
  std::size_t size_ = 0;
  io::InterruptCleanup remove_on_interrupt_;
};

// `file` again if it already holds `bytes` bytes, else a new file of that size.
void ensure_size(SharedFile& file, const std::string& tag, std::size_t bytes);

}  // namespace splinebench::external
