#include "splinebench/datasets/real.hpp"

#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "splinebench/io/npy.hpp"

namespace splinebench::datasets {
namespace {

// Kept in step with DATASETS in datasets/real/export_real.py (tests/python checks it).
const std::vector<RealDatasetEntry> kRealDatasets = {
    {"camera", "python3-skimage"}, {"astronaut", "python3-skimage"}, {"moon", "python3-skimage"},
    {"coins", "python3-skimage"},  {"brick", "python3-skimage"},     {"grass", "python3-skimage"},
    {"gravel", "python3-skimage"}, {"stent", "python3-imageio"},     {"mri_anatomical", "python3-nibabel"},
    {"mri_4d", "python3-nibabel"},
};

const RealDatasetEntry& entry_of(std::string_view name) {
  if (const auto* e = find_real_dataset(name)) return *e;
  std::string known;
  for (const auto& e : kRealDatasets) known += (known.empty() ? "" : ", ") + std::string(e.name);
  throw Error("unknown real dataset '" + std::string(name) + "' (known: " + known + ")");
}

std::string unavailable_message(const RealDatasetEntry& e, const std::filesystem::path& manifest) {
  return "real dataset '" + std::string(e.name) + "' is not in " + manifest.parent_path().string() +
         ": install " + std::string(e.package) + " (apt-get install " + std::string(e.package) +
         ") and run /usr/bin/python3 datasets/real/export_real.py";
}

}  // namespace

const std::vector<RealDatasetEntry>& real_datasets() { return kRealDatasets; }

const RealDatasetEntry* find_real_dataset(std::string_view name) {
  for (const auto& e : kRealDatasets)
    if (e.name == name) return &e;
  return nullptr;
}

std::filesystem::path datasets_cache_dir() {
  if (const char* env = std::getenv("SPLINEBENCH_DATASETS_DIR"); env && *env) return env;
  return std::filesystem::path(SPLINEBENCH_SOURCE_DIR) / ".cache" / "datasets";
}

RealDatasetInfo real_dataset_info(std::string_view name) {
  const RealDatasetEntry& entry = entry_of(name);
  const auto dir = datasets_cache_dir();
  const auto manifest = dir / (std::string(name) + ".json");
  std::ifstream in(manifest);
  if (!in) throw DatasetUnavailable(unavailable_message(entry, manifest));
  const std::string where = "dataset manifest " + manifest.string();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw Error(where + ": not valid JSON (" + e.what() + "); run datasets/real/export_real.py --force");
  }
  RealDatasetInfo info;
  try {
    info.name = doc.at("name").get<std::string>();
    info.description = doc.at("description").get<std::string>();
    info.grid = doc.at("grid").get<std::vector<std::int64_t>>();
    info.channels = doc.at("channels").get<int>();
    info.axes = doc.at("axes").get<std::vector<std::string>>();
    info.source = doc.at("source").get<std::string>();
    info.package = doc.at("package").get<std::string>();
    info.package_version = doc.at("package_version").get<std::string>();
    info.licence = doc.at("licence").get<std::string>();
    const auto range = doc.at("value_range").get<std::vector<double>>();
    if (range.size() != 2) throw Error(where + ": value_range must hold [min, max]");
    info.value_min = range[0];
    info.value_max = range[1];
    info.npy = dir / doc.at("file").get<std::string>();
    if (doc.at("dtype").get<std::string>() != "float32") throw Error(where + ": dtype must be float32");
  } catch (const nlohmann::json::exception& e) {
    throw Error(where + ": " + e.what() + "; run datasets/real/export_real.py --force");
  }
  const std::size_t file_axes = info.grid.size() + (info.channels > 1 ? 1 : 0);
  if (info.name != name || info.grid.empty() || static_cast<int>(info.grid.size()) > kMaxDims ||
      info.channels < 1 || info.axes.size() != file_axes)
    throw Error(where + ": name, grid, channels and axes disagree; run datasets/real/export_real.py --force");
  if (!std::filesystem::is_regular_file(info.npy)) throw DatasetUnavailable(unavailable_message(entry, manifest));
  return info;
}

RealDataset load_real_dataset(std::string_view name) {
  RealDataset data{real_dataset_info(name), {}};
  npy::Array array = npy::read(data.info.npy);
  std::vector<std::int64_t> expected = data.info.grid;
  if (data.info.channels > 1) expected.push_back(data.info.channels);
  if (!array.is_float32 || array.shape != expected)
    throw Error(data.info.npy.string() + ": holds " + array.descr + " " + npy::shape_string(array.shape) +
                ", its manifest says float32 " + npy::shape_string(expected) +
                "; run datasets/real/export_real.py --force");
  data.values = std::move(array.f32);
  return data;
}

int field_channels(const RealDatasetInfo& info) { return info.channels == 3 ? 4 : info.channels; }

GridShape real_field_shape(const RealDatasetInfo& info) { return GridShape::make(info.grid, field_channels(info)); }

std::vector<float> real_field(const RealDataset& data, std::int64_t fields) {
  if (fields < 1) throw Error("real_field: fields must be >= 1");
  const GridShape shape = real_field_shape(data.info);
  const int from = data.info.channels, to = shape.channels;
  const std::int64_t points = shape.points();
  std::vector<float> out(static_cast<std::size_t>(shape.values() * fields));
  for (std::int64_t f = 0; f < fields; ++f)
    for (std::int64_t p = 0; p < points; ++p)
      for (int c = 0; c < to; ++c)
        out[(f * points + p) * to + c] = c < from ? data.values[p * from + c] : 1.0f;
  return out;
}

}  // namespace splinebench::datasets
