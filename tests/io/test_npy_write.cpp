// The .npy writer: NumPy-compatible headers, bit-exact round trips, and atomic
// replacement (no partial file, no temporary left behind on failure).
#include <gtest/gtest.h>

#include <random>

#include "npy_test_files.hpp"
#include "splinebench/error.hpp"
#include "splinebench/io/npy.hpp"
#include "splinebench/io/npy_header.hpp"

using namespace splinebench;
using namespace splinebench::testing;

TEST(NpyWrite, HeaderIsNumPyStyleAndAligned) {
  const std::string h = npy::format_header("<f4", {3, 4});
  EXPECT_EQ(h.size() % 64, 0u);
  EXPECT_EQ(h.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_EQ(h.back(), '\n');
  EXPECT_NE(h.find("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }"), std::string::npos);
  const std::size_t dict_length = static_cast<unsigned char>(h[8]) | (static_cast<unsigned char>(h[9]) << 8);
  EXPECT_EQ(dict_length + 10, h.size());
}

TEST(NpyWrite, RoundTripsBitExactly) {
  ScratchDir dir;
  std::mt19937_64 rng(11);
  std::normal_distribution<double> dist;
  for (const std::vector<std::int64_t>& shape :
       {std::vector<std::int64_t>{}, {7}, {3, 5}, {2, 3, 4}, {2, 1, 3, 1, 2, 2}}) {
    const auto n = static_cast<std::size_t>(npy::element_count(shape));
    std::vector<double> d(n);
    for (auto& v : d) v = dist(rng);
    std::vector<float> f(d.begin(), d.end());
    npy::write(dir / "d.npy", shape, d.data());
    npy::write(dir / "f.npy", shape, f.data());
    const auto rd = npy::read(dir / "d.npy");
    const auto rf = npy::read(dir / "f.npy");
    EXPECT_EQ(rd.shape, shape);
    EXPECT_EQ(rd.descr, "<f8");
    EXPECT_EQ(rd.f64, d);
    EXPECT_EQ(rf.shape, shape);
    EXPECT_EQ(rf.descr, "<f4");
    EXPECT_EQ(rf.f32, f);
    EXPECT_EQ(std::filesystem::file_size(dir / "d.npy") % 64, n * 8 % 64);
  }
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"d.npy", "f.npy"}));
}

TEST(NpyWrite, ReplacesAnExistingFile) {
  ScratchDir dir;
  write_bytes(dir / "out.npy", "old content");
  const std::vector<float> v{1.5f, -2.0f};
  npy::write(dir / "out.npy", {2}, v.data());
  EXPECT_EQ(npy::read(dir / "out.npy").f32, v);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.npy"});
}

TEST(NpyWrite, MissingDirectoryLeavesNothing) {
  ScratchDir dir;
  const std::vector<float> v{1.0f};
  try {
    npy::write(dir / "missing" / "out.npy", {1}, v.data());
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(dir.entries().empty());
}

TEST(NpyWrite, OutputPathIsADirectory) {
  ScratchDir dir;
  std::filesystem::create_directory(dir / "sub.npy");
  const std::vector<float> v{1.0f};
  EXPECT_THROW(npy::write(dir / "sub.npy", {1}, v.data()), Error);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"sub.npy"});
}
