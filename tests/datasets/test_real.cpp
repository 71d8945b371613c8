// The real-data loader (datasets/real.hpp). Its logic is checked on a cache this test
// writes itself (so it runs where no package is installed); the exported cache, when
// present, is checked against what its manifests say, and skipped with the one line
// the loader gives when it is not.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>

#include <nlohmann/json.hpp>

#include "splinebench/datasets.hpp"
#include "splinebench/datasets/real.hpp"
#include "splinebench/error.hpp"
#include "splinebench/io/npy.hpp"

using namespace splinebench;
using namespace splinebench::datasets;
namespace fs = std::filesystem;

namespace {

// Points SPLINEBENCH_DATASETS_DIR at a fresh folder for one test, restoring it after.
class TempCache : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* old = std::getenv("SPLINEBENCH_DATASETS_DIR")) saved_ = old;
    dir_ = fs::temp_directory_path() /
           ("splinebench-datasets-" + std::to_string(std::random_device{}()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    setenv("SPLINEBENCH_DATASETS_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    if (saved_) setenv("SPLINEBENCH_DATASETS_DIR", saved_->c_str(), 1);
    else unsetenv("SPLINEBENCH_DATASETS_DIR");
    fs::remove_all(dir_);
  }
  // A manifest and array as the exporter writes them.
  void write_dataset(const std::string& name, std::vector<std::int64_t> grid, int channels,
                     const std::vector<float>& values, std::vector<std::string> axes) {
    std::vector<std::int64_t> shape = grid;
    if (channels > 1) shape.push_back(channels);
    npy::write(dir_ / (name + ".npy"), shape, values.data());
    const nlohmann::json m = {{"format", 1}, {"name", name}, {"description", "test data"},
                              {"file", name + ".npy"}, {"dtype", "float32"}, {"shape", shape},
                              {"grid", grid}, {"channels", channels}, {"axes", axes},
                              {"source", "/nowhere/" + name + ".png"}, {"package", "python3-skimage"},
                              {"package_version", "0"}, {"licence", "test"}, {"value_range", {-2.0, 9.0}}};
    std::ofstream(dir_ / (name + ".json")) << m.dump(2);
  }
  fs::path dir_;
  std::optional<std::string> saved_;
};

std::vector<float> ramp(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i) * 0.5f - 2.0f;
  return v;
}

}  // namespace

TEST_F(TempCache, GreyDataLoadsAsOneChannelField) {
  write_dataset("camera", {3, 5}, 1, ramp(15), {"y", "x"});
  EXPECT_EQ(datasets_cache_dir(), dir_);
  const RealDataset d = load_real_dataset("camera");
  EXPECT_EQ(d.info.grid, (std::vector<std::int64_t>{3, 5}));
  EXPECT_EQ(d.info.channels, 1);
  EXPECT_EQ(d.info.value_min, -2.0);
  EXPECT_EQ(d.info.value_max, 9.0);
  EXPECT_EQ(d.values, ramp(15));
  EXPECT_EQ(real_field_shape(d.info), GridShape::make({3, 5}, 1));
  const auto two = real_field(d, 2);
  ASSERT_EQ(two.size(), 30u);
  for (std::size_t i = 0; i < 15; ++i) EXPECT_EQ(two[i], two[i + 15]);
}

TEST_F(TempCache, RgbBecomesRgbaWithAnOpaqueAlpha) {
  write_dataset("astronaut", {2, 3}, 3, ramp(18), {"y", "x", "rgb"});
  const RealDataset d = load_real_dataset("astronaut");
  EXPECT_EQ(field_channels(d.info), 4);
  const auto field = make_field(parse_field_source("astronaut"), GridShape::make({2, 3}, 4), 1, 0, Mode::half);
  ASSERT_EQ(field.size(), 24u);
  const auto rgb = ramp(18);
  for (std::size_t p = 0; p < 6; ++p) {
    for (std::size_t c = 0; c < 3; ++c) EXPECT_EQ(field[p * 4 + c], rgb[p * 3 + c]);
    EXPECT_EQ(field[p * 4 + 3], 1.0f);
  }
}

TEST_F(TempCache, AMissingDatasetNamesItsPackageInOneLine) {
  try {
    real_dataset_info("stent");
    FAIL();
  } catch (const DatasetUnavailable& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("install python3-imageio"), std::string::npos) << what;
    EXPECT_NE(what.find("export_real.py"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  // A manifest whose array is gone is unavailable too.
  write_dataset("moon", {2, 2}, 1, ramp(4), {"y", "x"});
  fs::remove(dir_ / "moon.npy");
  EXPECT_THROW(real_dataset_info("moon"), DatasetUnavailable);
}

TEST_F(TempCache, ContradictionsAndWrongShapesAreErrorsNotSkips) {
  write_dataset("coins", {3, 5}, 1, ramp(15), {"y", "x"});
  // Asked for another shape: the message names the data's own.
  try {
    make_field(parse_field_source("coins"), GridShape::make({5, 3}), 1, 0, Mode::mirror);
    FAIL();
  } catch (const DatasetUnavailable&) {
    FAIL() << "a wrong shape is not a missing dataset";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "real dataset 'coins' is 3x5 with 1 channel(s); asked for 5x3 with 1");
  }
  // An array that disagrees with its manifest.
  npy::write(dir_ / "coins.npy", {15}, ramp(15).data());
  EXPECT_THROW(load_real_dataset("coins"), Error);
  // A manifest whose axes do not match grid and channels.
  write_dataset("brick", {3, 5}, 1, ramp(15), {"y", "x", "rgb"});
  EXPECT_THROW(real_dataset_info("brick"), Error);
  // Not JSON.
  std::ofstream(dir_ / "grass.json") << "{";
  EXPECT_THROW(real_dataset_info("grass"), Error);
  EXPECT_THROW(real_dataset_info("lena"), Error);
}

// The exported cache ($SPLINEBENCH_DATASETS_DIR or .cache/datasets), when the exporter
// has run: every dataset loads, its values lie in the manifest's range, and grids are
// those the packages ship.
TEST(RealCache, ExportedDatasetsMatchTheirManifests) {
  int loaded = 0;
  std::string skipped;
  for (const auto& entry : real_datasets()) {
    RealDataset d;
    try {
      d = load_real_dataset(entry.name);
    } catch (const DatasetUnavailable& e) {
      skipped += std::string(skipped.empty() ? "" : "; ") + e.what();
      continue;
    }
    ++loaded;
    ASSERT_EQ(static_cast<std::int64_t>(d.values.size()), d.info.channels * GridShape::make(d.info.grid).points());
    float lo = d.values[0], hi = d.values[0];
    for (float v : d.values) lo = std::min(lo, v), hi = std::max(hi, v);
    EXPECT_EQ(lo, d.info.value_min) << entry.name;
    EXPECT_EQ(hi, d.info.value_max) << entry.name;
    EXPECT_LT(lo, hi) << entry.name << " is constant";
    EXPECT_EQ(d.info.package, entry.package);
    if (entry.name == "camera") {
      EXPECT_EQ(d.info.grid, (std::vector<std::int64_t>{512, 512}));
    } else if (entry.name == "astronaut") {
      EXPECT_EQ(d.info.grid, (std::vector<std::int64_t>{512, 512}));
      EXPECT_EQ(d.info.channels, 3);
    } else if (entry.name == "stent") {
      EXPECT_EQ(d.info.grid, (std::vector<std::int64_t>{256, 128, 128}));
    } else if (entry.name == "mri_4d") {
      EXPECT_EQ(d.info.grid.size(), 4u);
    }
  }
  if (loaded == 0) GTEST_SKIP() << skipped;
  if (!skipped.empty()) std::cout << "[   NOTE   ] " << skipped << '\n';
}
