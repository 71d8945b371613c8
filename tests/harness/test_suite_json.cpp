// Suite files are read strictly: a key written twice in one object is refused (JSON
// parsers keep the last one silently), naming the file, the key and the object. The
// "data" axis takes synthetic, analytic and real dataset names (datasets/README.md).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "fake_impls.hpp"
#include "splinebench/error.hpp"
#include "splinebench/io/npy.hpp"
#include "splinebench/runner/plan.hpp"
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

// ---- Named data in "data": synthetic kinds, analytic functions, real datasets ----

namespace {

SuiteSpec suite_of(const std::string& sweep_body) {
  std::istringstream in(R"({"name": "t", "sweeps": [{"name": "s", )" + sweep_body + "}]}");
  return parse_suite(parse_suite_json(in, "s.json"), "s.json");
}

template <typename Fn>
std::string message_of(Fn fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// A dataset cache of this test's own ($SPLINEBENCH_DATASETS_DIR, restored after): a
// grey "camera" of 3x5 and an RGB "astronaut" of 2x3, as the exporter writes them.
class SuiteRealData : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* old = std::getenv("SPLINEBENCH_DATASETS_DIR")) saved_ = old;
    dir_ = std::filesystem::temp_directory_path() / ("splinebench-suite-data-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    setenv("SPLINEBENCH_DATASETS_DIR", dir_.c_str(), 1);
    write("camera", {3, 5}, 1, {"y", "x"});
    write("astronaut", {2, 3}, 3, {"y", "x", "rgb"});
  }
  void TearDown() override {
    if (saved_) setenv("SPLINEBENCH_DATASETS_DIR", saved_->c_str(), 1);
    else unsetenv("SPLINEBENCH_DATASETS_DIR");
    std::filesystem::remove_all(dir_);
  }
  void write(const std::string& name, std::vector<std::int64_t> grid, int channels, std::vector<std::string> axes) {
    std::vector<std::int64_t> shape = grid;
    if (channels > 1) shape.push_back(channels);
    std::vector<float> values(static_cast<std::size_t>(npy::element_count(shape)));
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 7) - 3.0f;
    npy::write(dir_ / (name + ".npy"), shape, values.data());
    const nlohmann::json m = {{"format", 1}, {"name", name}, {"description", "test"}, {"file", name + ".npy"},
                              {"dtype", "float32"}, {"shape", shape}, {"grid", grid}, {"channels", channels},
                              {"axes", axes}, {"source", "/nowhere"}, {"package", "python3-skimage"},
                              {"package_version", "0"}, {"licence", "test"}, {"value_range", {-3.0, 3.0}}};
    std::ofstream(dir_ / (name + ".json")) << m.dump();
  }
  Plan plan(const std::string& sweep_body) {
    return make_plan(suite_of(sweep_body), {}, splinebench::testing::fake_registry());
  }
  std::filesystem::path dir_;
  std::optional<std::string> saved_;
};

}  // namespace

TEST(SuiteData, SyntheticAnalyticAndRealNamesParse) {
  const SuiteSpec s = suite_of(
      R"("impls": "all", "shapes": [[4, 4, 4]], "data": ["noise", "marschner_lobb", "gauss_product"], "queries": 1)");
  ASSERT_EQ(s.sweeps[0].data.size(), 3u);
  EXPECT_EQ(s.sweeps[0].data[0], datasets::FieldSource(datasets::FieldKind::noise));
  EXPECT_EQ(s.sweeps[0].data[1].origin, datasets::FieldSource::Origin::analytic);
  // Real data only: the shape may be left to the data.
  const SuiteSpec r = suite_of(R"("impls": "all", "data": ["camera", "stent"], "queries": 1)");
  EXPECT_TRUE(r.sweeps[0].shapes.empty());
  EXPECT_EQ(r.sweeps[0].data[1].origin, datasets::FieldSource::Origin::real);
  EXPECT_FALSE(r.sweeps[0].channels_given);
}

TEST(SuiteData, ImpossibleDataIsRefusedWithItsPlace) {
  EXPECT_EQ(message_of([] { suite_of(R"("impls": "all", "shapes": [[4]], "data": "zeros", "queries": 1)"); })
                .rfind("s.json: sweep 's' (#1): data: unknown data 'zeros' (synthetic: noise, smooth; analytic: ", 0),
            0u);
  EXPECT_NE(message_of([] { suite_of(R"("impls": "all", "data": ["camera", "noise"], "queries": 1)"); })
                .find("only a sweep whose data are all real datasets may leave the shape to the data"),
            std::string::npos);
  EXPECT_EQ(message_of([] {
              suite_of(R"("impls": "all", "shapes": [[8, 8]], "data": "marschner_lobb", "queries": 1)");
            }),
            "s.json: sweep 's' (#1): data: analytic function 'marschner_lobb' is defined for D = 3, the sweep has D = 2");
  EXPECT_NE(message_of([] { suite_of(R"("impls": "all", "dims": [2], "data": "camera", "queries": 1)"); })
                .find("\"dims\" goes with \"sizes\" or \"shapes\""),
            std::string::npos);
}

TEST(SuiteData, AnalyticFieldKeysFollowTheMode) {
  std::istringstream in(R"({"name": "t", "sweeps": [{"name": "s", "impls": ["cpu"], "shapes": [[6, 5]],
      "data": ["cos_product", "noise"], "modes": ["mirror", "periodic"], "queries": 1}]})");
  const Plan p = make_plan(parse_suite(parse_suite_json(in, "s.json"), "s.json"), {},
                           splinebench::testing::fake_registry());
  std::set<std::string> analytic_keys, noise_keys;
  for (const auto& c : p.cases) {
    (c.data.name == "noise" ? noise_keys : analytic_keys).insert(c.field_key());
    EXPECT_NE(c.case_id().find("/" + c.data.name + "/"), std::string::npos) << c.case_id();
  }
  EXPECT_EQ(analytic_keys.size(), 2u);  // one field per mode
  EXPECT_EQ(noise_keys.size(), 1u);     // the same noise for every mode
}

TEST_F(SuiteRealData, ShapesAndChannelsComeFromTheData) {
  const Plan p = plan(R"("impls": ["cpu"], "data": ["camera", "astronaut"], "queries": [0, 8])");
  ASSERT_FALSE(p.cases.empty());
  std::set<std::string> shapes;
  for (const auto& c : p.cases)
    shapes.insert(c.data.name + " " + c.shape.to_string() + " C" + std::to_string(c.shape.channels));
  EXPECT_EQ(shapes, (std::set<std::string>{"camera 3x5 C1", "astronaut 2x3 C4"}));
  // Stating the data's own shape and channels is fine.
  EXPECT_NO_THROW(plan(R"("impls": ["cpu"], "shapes": [[3, 5]], "channels": 1, "data": "camera", "queries": 1)"));
}

TEST_F(SuiteRealData, AnotherShapeOrChannelCountNamesTheDatasOwn) {
  EXPECT_EQ(message_of([&] { plan(R"("impls": ["cpu"], "shapes": [[5, 3]], "data": "camera", "queries": 1)"); }),
            "s.json: sweep 's': data 'camera' has shape [3, 5] (a real dataset's shape is its own); the sweep "
            "states [5, 3]: leave out \"sizes\"/\"shapes\" or state the data's shape");
  EXPECT_EQ(message_of([&] { plan(R"("impls": ["cpu"], "channels": [3], "data": "astronaut", "queries": 1)"); }),
            "s.json: sweep 's': data 'astronaut' has 4 channel(s) (RGB as RGBA); the sweep states 3: leave out "
            "\"channels\" or state the data's");
}

TEST_F(SuiteRealData, AMissingDatasetDropsItsCasesWithANoteNamingThePackage) {
  const Plan p = plan(R"("impls": ["cpu"], "data": ["camera", "stent"], "queries": 1)");
  for (const auto& c : p.cases) EXPECT_EQ(c.data.name, "camera");
  ASSERT_EQ(p.notes.size(), 1u);
  EXPECT_NE(p.notes[0].find("data 'stent' skipped: "), std::string::npos) << p.notes[0];
  EXPECT_NE(p.notes[0].find("install python3-imageio"), std::string::npos) << p.notes[0];
  // Nothing left: the plan's error carries the note.
  EXPECT_NE(message_of([&] { plan(R"("impls": ["cpu"], "data": "stent", "queries": 1)"); }).find("python3-imageio"),
            std::string::npos);
}
