// Real datasets: images and volumes that Debian packages ship (python3-skimage,
// python3-imageio, python3-nibabel), exported offline by datasets/real/export_real.py
// into a cache folder as float32 .npy files with a JSON manifest each. This loader reads
// that cache; it never runs Python. Names, sources and licences: datasets/README.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "splinebench/error.hpp"
#include "splinebench/types.hpp"

namespace splinebench::datasets {

// A real dataset that is not in the cache (its package is not installed, or the
// exporter has not run). The message is one line naming what to install or run; a
// caller skips the work that needs it.
class DatasetUnavailable : public Unsupported {
 public:
  explicit DatasetUnavailable(const std::string& what) : Unsupported(what) {}
};

// The datasets the exporter knows, and the Debian package each comes from.
struct RealDatasetEntry {
  std::string_view name;
  std::string_view package;
};
const std::vector<RealDatasetEntry>& real_datasets();
const RealDatasetEntry* find_real_dataset(std::string_view name);  // nullptr if unknown

// $SPLINEBENCH_DATASETS_DIR if set, else .cache/datasets in the source tree.
std::filesystem::path datasets_cache_dir();

// What the manifest says (datasets/real/export_real.py writes it).
struct RealDatasetInfo {
  std::string name;
  std::string description;
  std::vector<std::int64_t> grid;  // extents, C order (D = grid.size())
  int channels = 1;                // 1 (grey, CT, MRI) or 3 (RGB), innermost in the file
  std::vector<std::string> axes;   // one name per axis of the file, e.g. {"y", "x", "rgb"}
  std::string source;              // the file the package ships
  std::string package, package_version, licence;
  double value_min = 0, value_max = 0;
  std::filesystem::path npy;       // the cached array
};

// Reads the manifest of `name`. Throws splinebench::Error for an unknown name or a
// manifest that contradicts itself, DatasetUnavailable when it is not in the cache.
RealDatasetInfo real_dataset_info(std::string_view name);

struct RealDataset {
  RealDatasetInfo info;
  std::vector<float> values;  // grid points x channels, C order, as in the file
};
// Reads the manifest and the array (checking the array's shape against the manifest).
RealDataset load_real_dataset(std::string_view name);

// The channels a field of this dataset has in splinebench: the implementations take
// 1, 2 or 4 channels, so an RGB dataset becomes RGBA (4); others keep theirs.
int field_channels(const RealDatasetInfo& info);
// The dataset as a field batch: `fields` copies of the samples; an RGB dataset gets a
// fourth channel of ones (an opaque alpha, as an RGBA texture of the image holds).
std::vector<float> real_field(const RealDataset& data, std::int64_t fields = 1);
// The dataset's field shape: its grid with field_channels.
GridShape real_field_shape(const RealDatasetInfo& info);

}  // namespace splinebench::datasets
