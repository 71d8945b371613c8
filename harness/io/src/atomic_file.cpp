#include "splinebench/io/atomic_file.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include "splinebench/error.hpp"

namespace splinebench::io {
namespace {

std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

// A name in the destination's directory that no other writer (another process, or
// another thread here) picks; dot-prefixed so directory listings hide it.
std::filesystem::path temporary_name(const std::filesystem::path& dir, const std::filesystem::path& name) {
  static std::atomic<unsigned> counter{0};
  // Appended piece by piece: GCC 12 warns (-Wrestrict, a known false positive) about
  // "." + std::string.
  std::string temp(".");
  temp += name.string();
  temp += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  return dir / temp;
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(const PutBytes& put)>& write_content) {
  namespace fs = std::filesystem;
  if (!path.has_filename()) throw Error("cannot write " + quoted(path) + ": no file name");
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw Error("cannot write " + quoted(path) + ": directory " + quoted(dir) + " does not exist");
  if (fs::is_directory(path, ec)) throw Error("cannot write " + quoted(path) + ": it is a directory");

  const fs::path temp = temporary_name(dir, path.filename());
  // "x": fail rather than reuse a file that happens to exist under that name.
  std::FILE* file = std::fopen(temp.c_str(), "wbx");
  if (!file)
    throw Error("cannot write " + quoted(path) + ": cannot create a temporary file in " + quoted(dir) + ": " +
                std::strerror(errno));
  try {
    const PutBytes put = [&](const void* bytes, std::size_t count) {
      if (count != 0 && std::fwrite(bytes, 1, count, file) != count)
        throw Error("cannot write " + quoted(path) + ": " + std::strerror(errno));
    };
    write_content(put);
    // Flush to the disk before the rename, so that after a crash the destination is
    // either the old file or the complete new one.
    if (std::fflush(file) != 0 || ::fsync(::fileno(file)) != 0)
      throw Error("cannot write " + quoted(path) + ": " + std::strerror(errno));
    std::FILE* closing = file;
    file = nullptr;
    if (std::fclose(closing) != 0) throw Error("cannot write " + quoted(path) + ": " + std::strerror(errno));
    fs::rename(temp, path, ec);
    if (ec) throw Error("cannot write " + quoted(path) + ": " + ec.message());
  } catch (...) {
    if (file) std::fclose(file);
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw;
  }
}

}  // namespace splinebench::io
