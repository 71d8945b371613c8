#include <bit>

#include "splinebench/io/atomic_file.hpp"
#include "splinebench/io/npy.hpp"
#include "splinebench/io/npy_header.hpp"

namespace splinebench::npy {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the .npy writer stores the host's bytes and declares them little-endian");

template <typename T>
void write_typed(const std::filesystem::path& path, const std::vector<std::int64_t>& shape, const T* data,
                 const char* descr) {
  const std::int64_t count = element_count(shape);
  const std::string header = format_header(descr, shape);
  io::write_file_atomically(path, [&](const io::PutBytes& put) {
    put(header.data(), header.size());
    put(data, static_cast<std::size_t>(count) * sizeof(T));
  });
}

}  // namespace

void write(const std::filesystem::path& path, const std::vector<std::int64_t>& shape, const float* data) {
  write_typed(path, shape, data, "<f4");
}

void write(const std::filesystem::path& path, const std::vector<std::int64_t>& shape, const double* data) {
  write_typed(path, shape, data, "<f8");
}

}  // namespace splinebench::npy
