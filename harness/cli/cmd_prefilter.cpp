// `splinebench prefilter`: samples in a .npy file -> cubic B-spline coefficients in a
// .npy file, with any implementation. See README.md in this folder.
#include <cmath>
#include <limits>
#include <vector>

#include "cli_common.hpp"
#include "commands.hpp"
#include "splinebench/io/npy.hpp"
#include "splinebench/registry.hpp"

namespace splinebench::cli {
namespace {

struct PrefilterArgs {
  DataOptions data;
  std::string input;
  std::string output;
};

void run_prefilter(const PrefilterArgs& args) {
  const Mode mode = parse_mode_option(args.data.mode);
  check_channels(args.data.channels);
  check_threads(args.data.threads);
  ImplementationPtr impl = make_implementation(args.data.impl);
  check_output_path(args.output);

  // Everything that can be known from the header is checked before the data is read.
  const npy::ArrayInfo info = npy::read_info(args.input);
  const GridShape grid = grid_of(info.shape, args.data.channels, "the input");
  require_runnable(*impl, grid, mode);
  check_memory(*impl, grid, args.input, info, nullptr);
  apply_threads(*impl, args.data.threads);
  npy::Array samples = read_array(args.input);

  const std::string name(impl->name());
  bool finite_input = true;
  if (impl->supports_f64()) {
    // Double throughout (reference, gpu_f64): float64 in, float64 out; float32 input is
    // widened exactly and the coefficients are rounded once at the end.
    const bool was_float32 = samples.is_float32;
    const std::vector<double> input = as_float64(samples);
    for (double v : input) finite_input = finite_input && std::isfinite(v);
    std::vector<double> coeffs(input.size(), std::numeric_limits<double>::quiet_NaN());
    PhaseTimes times;
    impl->prepare_f64(grid, 1, input.data(), mode, /*prefilter=*/true, times);
    impl->read_coefficients_f64(coeffs.data(), times);
    impl->release();
    const std::vector<float> rounded(coeffs.begin(), coeffs.end());
    if (finite_input) require_written(rounded, name, "coefficients");
    if (was_float32)
      npy::write(args.output, samples.shape, rounded.data());
    else
      npy::write(args.output, samples.shape, coeffs.data());
    return;
  }

  const std::vector<float> input = as_float32(samples, "the input", name + " computes in float32");
  std::vector<float> coeffs(input.size(), std::numeric_limits<float>::quiet_NaN());
  PhaseTimes times;
  impl->prepare(grid, 1, input.data(), mode, /*prefilter=*/true, times);
  impl->read_coefficients(coeffs.data(), times);
  impl->release();
  for (float v : input) finite_input = finite_input && std::isfinite(v);
  if (finite_input) require_written(coeffs, name, "coefficients");
  npy::write(args.output, samples.shape, coeffs.data());
}

void register_prefilter(CLI::App& app) {
  auto* cmd = app.add_subcommand("prefilter", "Samples (.npy) -> cubic B-spline coefficients (.npy)");
  auto args = std::make_shared<PrefilterArgs>();
  add_data_options(cmd, args->data);
  cmd->add_option("input", args->input, "Samples: a .npy array whose shape is the grid (+ channel axis)")
      ->required();
  cmd->add_option("output", args->output, "Coefficients: .npy, same shape and float dtype (float64 only from an implementation with an f64 path)")
      ->required();
  cmd->callback([args] { run_prefilter(*args); });
}

}  // namespace

SPLINEBENCH_COMMAND(register_prefilter);

}  // namespace splinebench::cli
