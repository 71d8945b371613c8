// npy::read_info: what read() would give, from the header alone, with the same
// checks, so that commands can size a job before they read its data.
#include <gtest/gtest.h>

#include "npy_test_files.hpp"
#include "splinebench/error.hpp"
#include "splinebench/io/npy.hpp"

using namespace splinebench;
using namespace splinebench::testing;

TEST(NpyInfo, DescribesWhatReadGives) {
  ScratchDir dir;
  write_bytes(dir / "f.npy", npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                                       raw_bytes(std::vector<float>(6, 1.0f))));
  write_bytes(dir / "i.npy", npy_bytes(2, "{'descr': '<i2', 'fortran_order': True, 'shape': (3, 2), }",
                                       raw_bytes(std::vector<std::int16_t>(6, 7))));
  const npy::ArrayInfo f = npy::read_info(dir / "f.npy");
  EXPECT_EQ(f.shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(f.descr, "<f4");
  EXPECT_TRUE(f.is_float32);
  EXPECT_FALSE(f.is_integer);
  EXPECT_FALSE(f.fortran_order);
  EXPECT_EQ(f.file_item_bytes, 4u);
  const npy::ArrayInfo i = npy::read_info(dir / "i.npy");
  EXPECT_EQ(i.shape, (std::vector<std::int64_t>{3, 2}));
  EXPECT_FALSE(i.is_float32);  // integers are widened to float64
  EXPECT_TRUE(i.is_integer);
  EXPECT_TRUE(i.fortran_order);
  EXPECT_EQ(i.file_item_bytes, 2u);
  EXPECT_EQ(npy::read(dir / "i.npy").is_float32, i.is_float32);
}

TEST(NpyInfo, RefusesWhatReadRefusesWithTheSameMessage) {
  ScratchDir dir;
  // Data shorter than the header says: the same message from both.
  write_bytes(dir / "t.npy", npy_bytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }",
                                       std::string(16, '\0')));
  std::string from_info, from_read;
  try {
    npy::read_info(dir / "t.npy");
  } catch (const Error& e) {
    from_info = e.what();
  }
  try {
    npy::read(dir / "t.npy");
  } catch (const Error& e) {
    from_read = e.what();
  }
  EXPECT_NE(from_info.find("truncated .npy file"), std::string::npos) << from_info;
  EXPECT_EQ(from_info, from_read);
  EXPECT_THROW(npy::read_info(dir / "missing.npy"), Error);
}
