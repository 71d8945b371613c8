// The .npy reader on well-formed files: every header version, float and integer
// dtypes, C and Fortran order, 0-d and empty arrays.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "npy_test_files.hpp"
#include "splinebench/io/npy.hpp"

using namespace splinebench;
using namespace splinebench::testing;

namespace {

std::vector<float> noise_f32(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

std::vector<double> noise_f64(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

}  // namespace

class ReadVersions : public ::testing::TestWithParam<int> {};

TEST_P(ReadVersions, Float32CarriesShapeAndBitsThrough) {
  const int major = GetParam();
  ScratchDir dir;
  const auto values = noise_f32(12, 7);
  write_bytes(dir / "a.npy",
              npy_bytes(major, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", raw_bytes(values)));
  const npy::Array a = npy::read(dir / "a.npy");
  EXPECT_EQ(a.version_major, major);
  EXPECT_EQ(a.shape, (std::vector<std::int64_t>{3, 4}));
  ASSERT_TRUE(a.is_float32);
  EXPECT_EQ(a.f32, values);
  EXPECT_TRUE(a.f64.empty());
  EXPECT_TRUE(a.notes.empty());
}

INSTANTIATE_TEST_SUITE_P(Versions1to3, ReadVersions, ::testing::Values(1, 2, 3),
                         [](const auto& info) { return "v" + std::to_string(info.param); });

TEST(NpyRead, Float64WithPython2StyleHeader) {
  // NumPy under Python 2 wrote long integers with an L suffix and no trailing comma.
  ScratchDir dir;
  const auto values = noise_f64(6, 8);
  write_bytes(dir / "a.npy",
              npy_bytes(1, "{\"descr\": \"<f8\", \"shape\": (2L, 3L), \"fortran_order\": False}", raw_bytes(values)));
  const npy::Array a = npy::read(dir / "a.npy");
  EXPECT_EQ(a.shape, (std::vector<std::int64_t>{2, 3}));
  ASSERT_FALSE(a.is_float32);
  EXPECT_EQ(a.f64, values);
}

TEST(NpyRead, ZeroDimensionalAndEmptyArrays) {
  ScratchDir dir;
  write_bytes(dir / "s.npy", npy_bytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }",
                                       raw_bytes(std::vector<double>{2.5})));
  const npy::Array s = npy::read(dir / "s.npy");
  EXPECT_TRUE(s.shape.empty());
  EXPECT_EQ(s.size(), 1);
  EXPECT_EQ(s.f64, std::vector<double>{2.5});

  write_bytes(dir / "e.npy", npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 0), }", ""));
  const npy::Array e = npy::read(dir / "e.npy");
  EXPECT_EQ(e.shape, (std::vector<std::int64_t>{3, 0}));
  EXPECT_EQ(e.size(), 0);
}

TEST(NpyRead, FortranOrderIsTransposedToCOrder) {
  // A 2x3x4 array with value 100*i + 10*j + k at (i, j, k), stored with the first
  // axis fastest.
  ScratchDir dir;
  const std::int64_t I = 2, J = 3, K = 4;
  std::vector<float> fortran;
  for (std::int64_t k = 0; k < K; ++k)
    for (std::int64_t j = 0; j < J; ++j)
      for (std::int64_t i = 0; i < I; ++i) fortran.push_back(static_cast<float>(100 * i + 10 * j + k));
  write_bytes(dir / "f.npy",
              npy_bytes(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3, 4), }", raw_bytes(fortran)));
  const npy::Array a = npy::read(dir / "f.npy");
  EXPECT_TRUE(a.fortran_order);
  ASSERT_EQ(a.f32.size(), static_cast<std::size_t>(I * J * K));
  for (std::int64_t i = 0; i < I; ++i)
    for (std::int64_t j = 0; j < J; ++j)
      for (std::int64_t k = 0; k < K; ++k)
        EXPECT_EQ(a.f32[static_cast<std::size_t>((i * J + j) * K + k)], static_cast<float>(100 * i + 10 * j + k))
            << i << "," << j << "," << k;
}

TEST(NpyRead, FortranOrderOneAxisIsUnchanged) {
  ScratchDir dir;
  const auto values = noise_f64(5, 9);
  write_bytes(dir / "f.npy",
              npy_bytes(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (5,), }", raw_bytes(values)));
  EXPECT_EQ(npy::read(dir / "f.npy").f64, values);
}

namespace {
template <typename Int>
void check_integer(const std::string& descr, const std::string& name) {
  ScratchDir dir;
  const std::vector<Int> values{std::numeric_limits<Int>::min(), Int(0), Int(1), Int(42),
                                std::numeric_limits<Int>::max(), Int(7)};
  write_bytes(dir / "i.npy", npy_bytes(1, "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (2, 3), }",
                                       raw_bytes(values)));
  const npy::Array a = npy::read(dir / "i.npy");
  ASSERT_FALSE(a.is_float32) << descr;
  ASSERT_EQ(a.f64.size(), values.size());
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(a.f64[i], static_cast<double>(values[i])) << descr;
  ASSERT_EQ(a.notes.size(), 1u);
  EXPECT_NE(a.notes[0].find(name), std::string::npos) << a.notes[0];
  EXPECT_NE(a.notes[0].find("float64"), std::string::npos) << a.notes[0];
  EXPECT_NE(a.notes[0].find(descr), std::string::npos) << a.notes[0];
}
}  // namespace

TEST(NpyRead, IntegerDtypesBecomeFloat64WithANote) {
  check_integer<std::int8_t>("|i1", "int8");
  check_integer<std::int8_t>("<i1", "int8");
  check_integer<std::uint8_t>("|u1", "uint8");
  check_integer<std::uint8_t>("<u1", "uint8");
  check_integer<std::int16_t>("<i2", "int16");
  check_integer<std::uint16_t>("<u2", "uint16");
  check_integer<std::int32_t>("<i4", "int32");
  check_integer<std::uint32_t>("<u4", "uint32");
  check_integer<std::int64_t>("<i8", "int64");
  check_integer<std::uint64_t>("<u8", "uint64");
}

TEST(NpyRead, ShapeStringMatchesNumPy) {
  EXPECT_EQ(npy::shape_string({}), "()");
  EXPECT_EQ(npy::shape_string({5}), "(5,)");
  EXPECT_EQ(npy::shape_string({2, 3}), "(2, 3)");
}
