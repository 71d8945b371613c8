// `splinebench rotate`: the repeated-rotation experiment of Ruijters & Thévenaz (Fig. 5),
// run through one implementation in one process. The image is rotated `--steps` times
// by `--angle` degrees about its centre, each step resampling the previous step's
// float32 result (so every step's rounding and blur accumulate, as in the paper), and
// the last image is written. With --prefilter every step interpolates the samples
// (prefiltered cubic B-spline); without it the samples are used as coefficients
// (the smoothing cubic B-spline approximation). Pixels whose source lies outside the
// image take the boundary mode's extension. Channels (a trailing axis of any length)
// are rotated one by one.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "commands.hpp"
#include "splinebench/error.hpp"
#include "splinebench/io/npy.hpp"
#include "splinebench/registry.hpp"

namespace splinebench::cli {
namespace {

struct RotateArgs {
  DataOptions data;
  bool prefilter = false;
  int steps = 36;
  double angle_degrees = 10;
  std::string input;
  std::string output;
};

// Source coordinates of every output pixel for one rotation by `radians` about the
// image centre, (2, H*W) axis-major. Computed in double, rounded once to float.
std::vector<float> rotation_coordinates(std::int64_t height, std::int64_t width, double radians) {
  const double cy = 0.5 * static_cast<double>(height - 1);
  const double cx = 0.5 * static_cast<double>(width - 1);
  const double c = std::cos(radians);
  const double s = std::sin(radians);
  const std::int64_t n = height * width;
  std::vector<float> coords(static_cast<std::size_t>(2 * n));
  for (std::int64_t i = 0; i < height; ++i) {
    for (std::int64_t j = 0; j < width; ++j) {
      const double dy = static_cast<double>(i) - cy;
      const double dx = static_cast<double>(j) - cx;
      // Output pixel p samples the input at R(-angle) p: the image turns by +angle.
      const std::int64_t q = i * width + j;
      coords[static_cast<std::size_t>(q)] = static_cast<float>(cy + c * dy + s * dx);
      coords[static_cast<std::size_t>(n + q)] = static_cast<float>(cx - s * dy + c * dx);
    }
  }
  return coords;
}

void run_rotate(const RotateArgs& args) {
  const Mode mode = parse_mode_option(args.data.mode);
  check_threads(args.data.threads);
  if (args.steps < 1 || args.steps > 100000)
    throw Error("--steps must be in [1, 100000]; got " + std::to_string(args.steps));
  if (!std::isfinite(args.angle_degrees)) throw Error("--angle must be a finite number of degrees");
  ImplementationPtr impl = make_implementation(args.data.impl);
  check_output_path(args.output);

  const npy::ArrayInfo info = npy::read_info(args.input);
  if (info.shape.size() != 2 && info.shape.size() != 3)
    throw Error("rotate takes an image of shape (H, W) or (H, W, channels); got shape " +
                npy::shape_string(info.shape));
  const std::int64_t height = info.shape[0];
  const std::int64_t width = info.shape[1];
  const std::int64_t channels = info.shape.size() == 3 ? info.shape[2] : 1;
  if (height < 1 || width < 1 || channels < 1)
    throw Error("the image is empty: shape " + npy::shape_string(info.shape));
  const GridShape grid = GridShape::make({height, width}, 1);
  require_runnable(*impl, grid, mode);
  check_memory(*impl, grid, args.input, info, nullptr);
  apply_threads(*impl, args.data.threads);
  npy::Array array = read_array(args.input);
  const std::vector<float> image =
      as_float32(array, "the image", "rotate keeps float32 intermediates, as in the experiment it repeats");

  const double radians = args.angle_degrees * std::numbers::pi / 180.0;
  const std::vector<float> coords = rotation_coordinates(height, width, radians);
  const std::int64_t n = height * width;
  std::vector<float> result(image.size());
  std::vector<float> plane(static_cast<std::size_t>(n));
  std::vector<float> next(static_cast<std::size_t>(n));
  const auto start = std::chrono::steady_clock::now();
  for (std::int64_t ch = 0; ch < channels; ++ch) {
    for (std::int64_t q = 0; q < n; ++q) plane[static_cast<std::size_t>(q)] = image[static_cast<std::size_t>(q * channels + ch)];
    for (int step = 0; step < args.steps; ++step) {
      PhaseTimes times;
      impl->prepare(grid, 1, plane.data(), mode, args.prefilter, times);
      std::fill(next.begin(), next.end(), std::numeric_limits<float>::quiet_NaN());
      impl->evaluate(coords.data(), n, next.data(), times);
      require_written(next, std::string(impl->name()), "rotated pixels");
      plane.swap(next);
    }
    for (std::int64_t q = 0; q < n; ++q) result[static_cast<std::size_t>(q * channels + ch)] = plane[static_cast<std::size_t>(q)];
  }
  impl->release();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  npy::write(args.output, info.shape, result.data());
  std::cerr << "splinebench: rotated " << npy::shape_string(info.shape) << " " << args.steps << " x "
            << args.angle_degrees << " deg with " << impl->name() << (args.prefilter ? " (prefiltered)" : "")
            << " in " << seconds << " s (wall clock, data transfers included)\n";
}

void register_rotate(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "rotate", "Rotate an image repeatedly about its centre, each step resampling the last (.npy)");
  auto args = std::make_shared<RotateArgs>();
  // Not add_data_options: the channels come from the image's shape.
  cmd->add_option("--impl", args->data.impl, "Implementation (see `splinebench list`)")->required();
  cmd->add_option("--mode", args->data.mode, "Boundary mode: mirror, half or periodic (see `interpolate --help`)")
      ->required();
  cmd->add_option("--threads", args->data.threads, "Threads for implementations that use them (0: default)")
      ->capture_default_str();
  cmd->add_flag("--prefilter", args->prefilter,
                "Interpolate the samples (prefilter every step); without it the samples are the coefficients");
  cmd->add_option("--steps", args->steps, "Number of rotations")->capture_default_str();
  cmd->add_option("--angle", args->angle_degrees, "Degrees per rotation (counter-clockwise)")->capture_default_str();
  cmd->add_option("input", args->input, "Image: .npy of shape (H, W) or (H, W, channels)")->required();
  cmd->add_option("output", args->output, "The image after the last rotation: .npy, float32, input's shape")->required();
  cmd->callback([args] { run_rotate(*args); });
}

}  // namespace

SPLINEBENCH_COMMAND(register_rotate);

}  // namespace splinebench::cli
