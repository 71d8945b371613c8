// Writing a file so that readers never see it half-written: the content goes to a
// temporary file in the destination's directory (same file system, so the final
// rename is atomic), which is renamed over the destination only when complete.
#pragma once

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <functional>

namespace splinebench::io {

// Calls `write_content(put)` where `put(bytes, count)` appends to the temporary file,
// then flushes, closes and renames it to `path`. If anything fails (the directory is
// missing or not writable, a write fails, `write_content` throws) the temporary is
// removed, `path` is untouched and splinebench::Error (or the callback's exception)
// propagates.
using PutBytes = std::function<void(const void* bytes, std::size_t count)>;
void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(const PutBytes& put)>& write_content);

}  // namespace splinebench::io
