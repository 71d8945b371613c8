// The .npy reader on everything it must refuse: each case checks that the message
// names the file and the problem.
#include <gtest/gtest.h>

#include "npy_test_files.hpp"
#include "splinebench/error.hpp"
#include "splinebench/io/npy.hpp"

using namespace splinebench;
using namespace splinebench::testing;

namespace {

// Reads `bytes` from a file and returns the error message ("" if it did not throw).
std::string read_error(const std::string& bytes) {
  ScratchDir dir;
  write_bytes(dir / "bad.npy", bytes);
  try {
    npy::read(dir / "bad.npy");
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("bad.npy"), std::string::npos) << "message does not name the file: " << msg;
    return msg;
  }
  return "";
}

std::string with_descr(const std::string& descr, std::size_t data_bytes) {
  return npy_bytes(1, "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (2,), }",
                   std::string(data_bytes, '\x01'));
}

#define EXPECT_MESSAGE_HAS(msg, text) EXPECT_NE((msg).find(text), std::string::npos) << "message: " << (msg)

}  // namespace

TEST(NpyRefuse, BigEndian) {
  const auto msg = read_error(with_descr(">f4", 8));
  EXPECT_MESSAGE_HAS(msg, "'>f4'");
  EXPECT_MESSAGE_HAS(msg, "big-endian");
  EXPECT_MESSAGE_HAS(read_error(with_descr(">i2", 4)), "big-endian");
}

TEST(NpyRefuse, UnsupportedKinds) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"<c8", "complex"}, {"<c16", "complex"}, {"|b1", "bool"},        {"|O", "Python objects"},
      {"|S4", "strings"}, {"<U3", "strings"},  {"|V8", "raw bytes"},   {"<f2", "float16"},
      {"<f16", "long double"}, {"<M8[ns]", "datetime"}, {"<i3", "integer of unusual size"}};
  for (const auto& [descr, why] : cases) {
    const auto msg = read_error(with_descr(descr, 8));
    EXPECT_MESSAGE_HAS(msg, "'" + descr + "'");
    EXPECT_MESSAGE_HAS(msg, why);
    EXPECT_MESSAGE_HAS(msg, "not supported");
  }
}

TEST(NpyRefuse, StructuredDtype) {
  const auto msg = read_error(npy_bytes(
      1, "{'descr': [('x', '<f4'), ('y', '<i4')], 'fortran_order': False, 'shape': (2,), }", std::string(16, '\0')));
  EXPECT_MESSAGE_HAS(msg, "structured");
  EXPECT_MESSAGE_HAS(msg, "('x', '<f4')");
}

TEST(NpyRefuse, CorruptMagic) {
  std::string bytes = with_descr("<f4", 8);
  bytes[1] = 'X';
  EXPECT_MESSAGE_HAS(read_error(bytes), "magic");
  EXPECT_MESSAGE_HAS(read_error("hello, this is not an array"), "not a .npy file");
  EXPECT_MESSAGE_HAS(read_error(""), "not a .npy file");
}

TEST(NpyRefuse, UnsupportedVersion) {
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }\n";
  EXPECT_MESSAGE_HAS(read_error(npy_preamble(4, dict.size()) + dict + "abcd"), "version 4.0");
  EXPECT_MESSAGE_HAS(read_error(npy_preamble(1, dict.size(), 1) + dict + "abcd"), "version 1.1");
}

TEST(NpyRefuse, BadHeaderDicts) {
  const std::string data(8, '\0');
  const std::vector<std::pair<std::string, std::string>> cases{
      {"{'descr': '<f4', 'fortran_order': False, }", "missing key 'shape'"},
      {"{'descr': '<f4', 'shape': (2,), }", "missing key 'fortran_order'"},
      {"{'fortran_order': False, 'shape': (2,), }", "missing key 'descr'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1, }", "unexpected key 'extra'"},
      {"{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }", "True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [2], }", "'('"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", "negative"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2 3), }", "expected ',' or ')'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,) }junk", "after the closing"},
      {"{'descr': '<f4' 'fortran_order': False, 'shape': (2,), }", "expected ',' or '}'"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", "appears twice"},
      {"{'descr: '<f4', 'fortran_order': False, 'shape': (2,), }", "expected ':'"},
      {"not a dict", "expected '{'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2), }", "must be written (n,)"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", "too large"},
  };
  for (const auto& [dict, expect] : cases) {
    const auto msg = read_error(npy_bytes(1, dict, data));
    EXPECT_MESSAGE_HAS(msg, "bad .npy header dict");
    EXPECT_MESSAGE_HAS(msg, expect);
  }
}

TEST(NpyRefuse, HeaderTooLong) {
  // A length field far beyond any real header: refused before anything is read.
  const auto msg = read_error(npy_preamble(2, 50000) + std::string(100, ' '));
  EXPECT_MESSAGE_HAS(msg, "50000 bytes");
  EXPECT_MESSAGE_HAS(msg, "over the limit");
}

TEST(NpyRefuse, Truncated) {
  const std::string full = with_descr("<f8", 16);
  // Inside the data, inside the dict, inside the preamble.
  EXPECT_MESSAGE_HAS(read_error(full.substr(0, full.size() - 3)), "truncated");
  EXPECT_MESSAGE_HAS(read_error(full.substr(0, full.size() - 3)), "needs 16 data bytes, the file has 13");
  EXPECT_MESSAGE_HAS(read_error(full.substr(0, 30)), "truncated");
  EXPECT_MESSAGE_HAS(read_error(full.substr(0, 9)), "truncated");
}

TEST(NpyRefuse, TrailingBytesAreAShapeSizeMismatch) {
  const auto msg = read_error(with_descr("<f4", 12));
  EXPECT_MESSAGE_HAS(msg, "shape/size mismatch");
  EXPECT_MESSAGE_HAS(msg, "4 extra");
}

TEST(NpyRefuse, MissingFileAndDirectory) {
  ScratchDir dir;
  try {
    npy::read(dir / "absent.npy");
    ADD_FAILURE() << "no error for a missing file";
  } catch (const Error& e) {
    EXPECT_MESSAGE_HAS(std::string(e.what()), "absent.npy");
    EXPECT_MESSAGE_HAS(std::string(e.what()), "no such file");
  }
  EXPECT_THROW(npy::read(dir.path()), Error);
}
