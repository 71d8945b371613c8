// Writing an output so that it is never seen half-written and nothing else is harmed.
//
// What the destination is decides how it is written (harness/cli/README.md says the
// same for users):
//   absent or a regular file   content goes to a temporary file (in `temp_dir`, by
//                              default the destination's folder: same file system,
//                              so the rename is atomic), is flushed to disk and
//                              renamed over the destination; a reader sees the old
//                              file or the new one, never a part. A file the user
//                              cannot write, or whose mode lets nobody write it
//                              (0444, even for root), is refused, not replaced.
//   a symbolic link            the link is kept; the file it points to is written as
//                              above (in that file's folder), created if missing.
//   this process's stdout or   written to that descriptor, in the mode the caller's
//   stderr (/dev/stdout, ...)  shell opened it with (append stays append).
//   a character device, FIFO   written through: opened and written in place (nothing
//   (/dev/null, a named pipe)  to replace atomically, and replacing it would destroy
//                              the device node or the pipe its reader waits on).
//   a directory, block device, refused with splinebench::Error naming the kind
//   socket or other special    (writing a disk image over a block device is never
//                              what a results file should do).
//
// Interrupts: with install_interrupt_guard(), SIGINT, SIGTERM and SIGHUP that arrive
// while a temporary is being written remove it (unlink of a path stored before the
// file was created, which is async-signal-safe) and then end the process by the same
// signal; arriving during the rename they are held until it is done, so the
// destination is then complete. Without the guard a signal leaves the temporary.
// The same handler kills the child process groups and removes the files registered
// with interrupt_cleanup.hpp.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string_view>

namespace splinebench::io {

using PutBytes = std::function<void(const void* bytes, std::size_t count)>;
using WriteContent = std::function<void(const PutBytes& put)>;

// Calls `write_content(put)`, where `put(bytes, count)` appends to the output, and
// completes the output as described above. If anything fails (the folder is missing,
// a write fails, `write_content` throws) the temporary is removed, a regular
// destination is untouched, and splinebench::Error (or the callback's exception)
// propagates. `temp_dir` must be on the destination's file system; empty means the
// destination's own folder.
void write_file_atomically(const std::filesystem::path& path, const WriteContent& write_content,
                           const std::filesystem::path& temp_dir = {});
void write_file_atomically(const std::filesystem::path& path, std::string_view content,
                           const std::filesystem::path& temp_dir = {});

// Checks, without writing, that `path` could be written as above: throws
// splinebench::Error for a missing folder, a directory, a refused kind of file, a
// read-only file or too many levels of links. For commands to call before their work.
void check_output(const std::filesystem::path& path);

// Installs the signal handlers described above (idempotent). Signals the process
// inherited as ignored (nohup) stay ignored.
void install_interrupt_guard();

}  // namespace splinebench::io
