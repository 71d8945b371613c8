// `splinebench interpolate`: evaluates a cubic B-spline, given by its coefficients
// (or by samples with --prefilter), at coordinates laid out like
// scipy.ndimage.map_coordinates. See README.md in this folder.
#include <cmath>
#include <limits>
#include <vector>

#include "cli_common.hpp"
#include "commands.hpp"
#include "splinebench/error.hpp"
#include "splinebench/io/npy.hpp"
#include "splinebench/registry.hpp"
#include "splinebench/user_arrays.hpp"

namespace splinebench::cli {
namespace {

struct InterpolateArgs {
  DataOptions data;
  bool prefilter = false;
  std::string input;
  std::string coords;
  std::string output;
};

// Poison check: NaN is the documented value only at non-finite coordinates (or when
// the data itself holds non-finite values).
template <typename Data, typename Coord>
void check_written(const std::vector<float>& out, const std::vector<Data>& input, const std::vector<Coord>& x,
                   std::int64_t n, const GridShape& grid, const std::string& name) {
  for (const Data v : input)
    if (!std::isfinite(v)) return;
  std::vector<float> at_finite_coords;
  for (std::int64_t q = 0; q < n; ++q) {
    bool finite = true;
    for (int d = 0; d < grid.dims; ++d) finite = finite && std::isfinite(x[static_cast<std::size_t>(d * n + q)]);
    if (finite)
      for (int c = 0; c < grid.channels; ++c) at_finite_coords.push_back(out[q * grid.channels + c]);
  }
  require_written(at_finite_coords, name, "values at finite coordinates");
}

void run_interpolate(const InterpolateArgs& args) {
  const Mode mode = parse_mode_option(args.data.mode);
  check_channels(args.data.channels);
  check_threads(args.data.threads);
  ImplementationPtr impl = make_implementation(args.data.impl);
  check_output_path(args.output);

  const std::string what = args.prefilter ? "the samples" : "the coefficients";
  // Everything that can be known from the headers is checked before the data is read.
  const npy::ArrayInfo field_info = npy::read_info(args.input);
  const npy::ArrayInfo coords_info = npy::read_info(args.coords);
  const GridShape grid = grid_of(field_info.shape, args.data.channels, what);
  check_coordinates_shape(coords_info.shape, grid.dims, what, field_info.shape);
  require_runnable(*impl, grid, mode);
  check_memory(*impl, grid, args.input, field_info, &coords_info);
  apply_threads(*impl, args.data.threads);
  npy::Array field = read_array(args.input);
  npy::Array coords = read_array(args.coords);

  // Output shape: the query shape (coords.shape[1:]), plus the channel axis.
  std::vector<std::int64_t> out_shape(coords.shape.begin() + 1, coords.shape.end());
  const std::int64_t n = npy::element_count(out_shape);
  if (grid.channels > 1) out_shape.push_back(grid.channels);
  const auto values = static_cast<std::size_t>(n * grid.channels);

  const std::string name(impl->name());
  if (impl->supports_f64()) {
    // Double throughout (reference, gpu_f64); the coordinates are used exactly as given.
    const bool was_float32 = field.is_float32;
    const std::vector<double> input = as_float64(field);
    const std::vector<double> x = as_float64(coords);
    std::vector<double> out(values, std::numeric_limits<double>::quiet_NaN());
    PhaseTimes times;
    impl->prepare_f64(grid, 1, input.data(), mode, args.prefilter, times);
    if (n > 0) impl->evaluate_f64(x.data(), n, out.data(), times);
    impl->release();
    const std::vector<float> rounded(out.begin(), out.end());
    check_written(rounded, input, x, n, grid, name);
    if (was_float32)
      npy::write(args.output, out_shape, rounded.data());
    else
      npy::write(args.output, out_shape, out.data());
    return;
  }

  const std::string why = name + " computes in float32";
  const std::vector<float> input = as_float32(field, what, why);
  const std::vector<float> x = as_float32(coords, "the coordinates", why);
  std::vector<float> out(values, std::numeric_limits<float>::quiet_NaN());
  PhaseTimes times;
  impl->prepare(grid, 1, input.data(), mode, args.prefilter, times);
  if (n > 0) impl->evaluate(x.data(), n, out.data(), times);
  impl->release();

  check_written(out, input, x, n, grid, name);
  npy::write(args.output, out_shape, out.data());
}

void register_interpolate(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "interpolate", "Evaluate the cubic B-spline of coefficients (or samples, --prefilter) at coordinates (.npy)");
  auto args = std::make_shared<InterpolateArgs>();
  add_data_options(cmd, args->data);
  cmd->add_flag("--prefilter", args->prefilter, "The input holds samples: prefilter them first");
  cmd->add_option("input", args->input, "Coefficients (or samples with --prefilter): .npy, shape = grid (+ channels)")
      ->required();
  cmd->add_option("coords", args->coords, "Coordinates: .npy of shape (D, ...) as for scipy.ndimage.map_coordinates")
      ->required();
  cmd->add_option("output", args->output, "Values: .npy of shape coords.shape[1:] (+ channels)")->required();
  cmd->callback([args] { run_interpolate(*args); });
}

}  // namespace

SPLINEBENCH_COMMAND(register_interpolate);

}  // namespace splinebench::cli
