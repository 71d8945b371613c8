// Suite files are read strictly: a key written twice in one object is refused (JSON
// parsers keep the last one silently), naming the file, the key and the object.
#include <gtest/gtest.h>

#include <sstream>

#include "splinebench/error.hpp"
#include "splinebench/runner/suite.hpp"

using namespace splinebench;
using namespace splinebench::runner;

namespace {

std::string error_of(const std::string& text) {
  std::istringstream in(text);
  try {
    parse_suite_json(in, "s.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(SuiteJson, DuplicateKeysAreRefusedWithTheirPlace) {
  EXPECT_EQ(error_of(R"({"name": "a", "sweeps": [], "name": "b"})"),
            "s.json: duplicate key \"name\" in the top level (JSON would keep only the last one; write each key once)");
  const std::string sweeps = R"({"name": "t", "sweeps": [
      {"name": "a", "impls": ["cpu"], "shapes": [[4, 4], [8]], "queries": [3]},
      {"name": "b", "impls": ["cpu"], "queries": [3], "shapes": [[8]], "queries": [0]}]})";
  EXPECT_NE(error_of(sweeps).find("duplicate key \"queries\" in sweeps[1] "), std::string::npos) << error_of(sweeps);
  const std::string nested = R"({"name": "t", "defaults": {"impls": "all", "impls": "cpu"}, "sweeps": []})";
  EXPECT_NE(error_of(nested).find("duplicate key \"impls\" in defaults "), std::string::npos) << error_of(nested);
}

TEST(SuiteJson, EqualKeysInDifferentObjectsAreFine) {
  std::istringstream in(R"({"name": "t", "sweeps": [{"name": "a", "x": {"name": 1}}, {"name": "b"}], "x": [{"name": 2}]})");
  const auto doc = parse_suite_json(in, "s.json");
  EXPECT_EQ(doc["sweeps"][1]["name"], "b");
  EXPECT_EQ(doc["x"][0]["name"], 2);
}

TEST(SuiteJson, InvalidJsonNamesTheFile) {
  EXPECT_EQ(error_of(R"({"name": )").rfind("s.json: not valid JSON: ", 0), 0u);
}
