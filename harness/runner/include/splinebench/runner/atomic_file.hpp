// Crash-safe file writes: content goes to a temporary file, is flushed to disk and
// renamed over the target, so a reader sees the old file or the new one, never a
// part. With the interrupt guard installed, SIGINT/SIGTERM/SIGHUP arriving during
// such a write are held until the rename is done; at any other moment they end the
// process at once (the default action), since nothing is half-written then.
#pragma once

#include <filesystem>
#include <string>

namespace splinebench::runner {

// Writes `content` to `target` atomically. The temporary file lives in `temp_dir`,
// which must be on the same file system as `target` (a sibling folder, so a
// SIGKILL during the write leaves at most a stray temporary there and never a
// partial file next to the real ones). Throws splinebench::Error on failure.
void write_file_atomically(const std::filesystem::path& target, const std::string& content,
                           const std::filesystem::path& temp_dir);

// Installs the signal handlers described above (idempotent).
void install_interrupt_guard();

}  // namespace splinebench::runner
