// Helpers for the .npy tests: a scratch directory per test, and hand-made .npy bytes
// (any version, any header text, any data) so the reader can be fed every defect.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace splinebench::testing {

// A fresh empty directory, removed with everything in it at the end of the test.
class ScratchDir {
 public:
  ScratchDir() {
    static int counter = 0;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("splinebench-io-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
             (info ? std::string(info->name()) : std::string("x")));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  // Names of every entry (temporaries included), sorted.
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  std::filesystem::path path_;
};

// Preamble for `major`.0 with a dict of `dict_length` bytes.
inline std::string npy_preamble(int major, std::size_t dict_length, int minor = 0) {
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += static_cast<char>(minor);
  const int bytes = major == 1 ? 2 : 4;
  for (int b = 0; b < bytes; ++b) out += static_cast<char>((dict_length >> (8 * b)) & 0xff);
  return out;
}

// A complete file image: preamble + dict (+ '\n') + data.
inline std::string npy_bytes(int major, const std::string& dict, const std::string& data) {
  const std::string text = dict + "\n";
  return npy_preamble(major, text.size()) + text + data;
}

template <typename T>
std::string raw_bytes(const std::vector<T>& values) {
  std::string out(values.size() * sizeof(T), '\0');
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

inline void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

inline std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace splinebench::testing
