// parse_extents: the one reader of "AxB" shape text (options, suite fields).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "splinebench/error.hpp"
#include "splinebench/types.hpp"

namespace splinebench {
namespace {

using Extents = std::vector<std::int64_t>;

TEST(ParseExtents, ReadsOneOrMoreAxes) {
  EXPECT_EQ(parse_extents("7", "--shape"), (Extents{7}));
  EXPECT_EQ(parse_extents("64x64", "--shape"), (Extents{64, 64}));
  EXPECT_EQ(parse_extents("256x128x128", "--shape"), (Extents{256, 128, 128}));
  EXPECT_EQ(parse_extents("1x2x3x4x5x6x7", "--blocks"), (Extents{1, 2, 3, 4, 5, 6, 7}));  // no axis limit here
  EXPECT_EQ(parse_extents("0009x010", "--shape"), (Extents{9, 10}));
}

TEST(ParseExtents, ReadsWhatGridShapeWrites) {
  const GridShape g = GridShape::make({3, 1, 4097});
  EXPECT_EQ(GridShape::make(parse_extents(g.to_string(), "--shape")), g);
}

TEST(ParseExtents, ReadsTheLargestInt64) {
  EXPECT_EQ(parse_extents("9223372036854775807", "--shape"), (Extents{INT64_MAX}));
}

// Each refusal names where the text came from and the text itself.
void expect_refused(const std::string& text) {
  try {
    parse_extents(text, "--shape");
    ADD_FAILURE() << "accepted '" << text << "'";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("--shape"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'" + text + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("e.g. 64x64"), std::string::npos) << msg;
  }
}

TEST(ParseExtents, RefusesEmptyAxesAndStrayCharacters) {
  for (const char* text : {"", "x", "8x", "x8", "8xx8", "8X8", "8*8", " 8", "8 ", "8x 8", "a", "8x8x"})
    expect_refused(text);
}

TEST(ParseExtents, RefusesSignsZeroAndOverflow) {
  for (const char* text : {"-8", "+8", "8x-1", "0", "8x0", "0x0", "9223372036854775808", "99999999999999999999x2"})
    expect_refused(text);
}

TEST(ParseExtents, RefusesFractionsAndExponents) {
  for (const char* text : {"8.5", "1e3", "0x10"}) expect_refused(text);
}

}  // namespace
}  // namespace splinebench
