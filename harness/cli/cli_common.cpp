#include "cli_common.hpp"

#include <omp.h>

#include <cmath>
#include <iostream>
#include <limits>
#include <utility>

#include "splinebench/error.hpp"
#include "splinebench/io/atomic_file.hpp"
#include "splinebench/runner/memory.hpp"
#include "splinebench/runner/suite.hpp"
#include "splinebench/user_arrays.hpp"

namespace splinebench::cli {

void add_data_options(CLI::App* cmd, DataOptions& options) {
  cmd->add_option("--impl", options.impl, "Implementation (see `splinebench list`)")->required();
  cmd->add_option("--mode", options.mode,
                  "Boundary mode: mirror (SciPy 'mirror'), half (SciPy 'reflect'/'grid-mirror'), "
                  "periodic (SciPy 'grid-wrap')")
      ->required();
  cmd->add_option("--channels", options.channels,
                  "Channels per sample (1, 2 or 4); with C > 1 the last array axis is the channel axis")
      ->capture_default_str();
  cmd->add_option("--threads", options.threads,
                  "Threads for implementations that use them (0: the implementation's default)")
      ->capture_default_str();
}

void note(const std::string& text) { std::cerr << "splinebench: note: " << text << '\n'; }

Mode parse_mode_option(const std::string& text) { return mode_from_name(text); }

void check_channels(int channels) {
  if (channels != 1 && channels != 2 && channels != 4)
    throw Error("--channels must be 1, 2 or 4, got " + std::to_string(channels));
}

void check_threads(int threads) { splinebench::check_threads(threads, "--threads"); }

bool is_reference(const Implementation& impl) { return impl.name() == "reference"; }

void apply_threads(Implementation& impl, int threads) {
  if (threads == 0) return;
  if (is_reference(impl)) {
    omp_set_num_threads(threads);
  } else if (impl.capabilities().threads) {
    Options options;
    options.threads = threads;
    impl.configure(options);
  } else {
    note("implementation '" + std::string(impl.name()) + "' runs on one thread; --threads ignored");
  }
}

void check_output_path(const std::filesystem::path& out) { io::check_output(out); }

npy::Array read_array(const std::filesystem::path& path) {
  npy::Array array = npy::read(path);
  for (const auto& text : array.notes) note("'" + path.string() + "': " + text);
  return array;
}

GridShape grid_of(const std::vector<std::int64_t>& array_shape, int channels, const std::string& what) {
  return splinebench::grid_of(array_shape, channels, what, "--channels");
}

namespace {

// Peak bytes per element while an array is read (npy::read widens integers from a raw
// copy and transposes Fortran order into a second buffer) ...
std::uint64_t read_peak(const npy::ArrayInfo& a) {
  std::uint64_t bytes = a.is_float32 ? 4 : 8;
  if (a.is_integer) bytes += a.file_item_bytes;
  if (a.fortran_order && a.shape.size() > 1) bytes += a.is_float32 ? 4 : 8;
  return bytes;
}

// ... and while it is converted to the precision of the computation (as_float32 and
// as_float64 hold both copies; an array already in that precision is moved).
std::uint64_t convert_peak(const npy::ArrayInfo& a, bool to_f64) {
  const std::uint64_t held = a.is_float32 ? 4 : 8;
  const std::uint64_t wanted = to_f64 ? 8 : 4;
  return held == wanted ? held : held + wanted;
}

}  // namespace

void check_memory(const Implementation& impl, const GridShape& grid, const std::string& input,
                  const npy::ArrayInfo& field, const npy::ArrayInfo* coords) {
  const bool f64 = impl.supports_f64();
  const auto values = static_cast<std::uint64_t>(npy::element_count(field.shape));
  std::uint64_t per_value = std::max(read_peak(field), convert_peak(field, f64));
  std::uint64_t need = 0;
  std::int64_t n = 0;
  if (!coords) {
    // An f64 path holds the double input, its own double copy, the double coefficients
    // read back and their float32 rounding; others the input and the coefficients.
    per_value = std::max<std::uint64_t>(per_value, f64 ? 28 : 8);
    need = values * per_value;
  } else {
    const auto q = static_cast<std::uint64_t>(npy::element_count(coords->shape));  // D x n coordinates
    n = static_cast<std::int64_t>(q / static_cast<std::uint64_t>(std::max(1, grid.dims)));
    const std::uint64_t out = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(grid.channels);
    need = values * per_value + q * std::max(read_peak(*coords), convert_peak(*coords, f64));
    // Values, plus their float32 rounding (f64 paths), and the values at finite
    // coordinates gathered for the poison check; an f64 path's own copy of the field.
    need += out * (f64 ? 8 + 4 + 4 : 4 + 4) + (f64 ? values * 8 : 0);
  }
  if (!is_reference(impl)) need += runner::implementation_host_bytes(impl.capabilities(), grid, 1, n);
  runner::require_memory(need, "'" + input + "' (shape " + npy::shape_string(field.shape) + ", " + field.descr +
                                   ") with " + std::string(impl.name()));
}

std::vector<float> as_float32(npy::Array& array, const std::string& what, const std::string& why) {
  if (array.is_float32) return std::move(array.f32);
  std::vector<float> out(array.f64.size());
  std::int64_t overflow = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<float>(array.f64[i]);
    overflow += std::isfinite(array.f64[i]) && !std::isfinite(out[i]);
  }
  std::string text = "converting " + what + " from float64 to float32 (" + why + ")";
  if (overflow) text += "; " + std::to_string(overflow) + " values beyond the float32 range became infinite";
  note(text);
  array.f64 = {};
  return out;
}

std::vector<double> as_float64(npy::Array& array) {
  if (!array.is_float32) return std::move(array.f64);
  std::vector<double> out(array.f32.begin(), array.f32.end());  // exact
  array.f32 = {};
  return out;
}

void require_written(const std::vector<float>& values, const std::string& impl, const std::string& what) {
  std::int64_t unwritten = 0;
  for (float v : values) unwritten += std::isnan(v);
  if (unwritten)
    throw Error("implementation '" + impl + "' left " + std::to_string(unwritten) + " of " +
                std::to_string(values.size()) + " " + what + " unwritten (still NaN) although every input was finite");
}

}  // namespace splinebench::cli
