// `splinebench analytic`: the analytic fields of datasets/ (datasets/README.md) as .npy,
// for studies that measure a spline against the function itself: its samples on a grid
// under a boundary mode's position convention, or its exact values at grid coordinates.
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "commands.hpp"
#include "splinebench/datasets/analytic.hpp"
#include "splinebench/error.hpp"
#include "splinebench/io/npy.hpp"
#include "splinebench/runner/memory.hpp"

namespace splinebench::cli {
namespace {

struct AnalyticArgs {
  std::string function;
  std::string shape;
  std::string mode;
  std::string at;
  bool float32 = false;
  std::string output;
  bool list = false;
};

std::vector<std::int64_t> parse_extents(const std::string& text) {
  std::vector<std::int64_t> extents;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, 'x')) {
    std::size_t used = 0;
    long long value = 0;
    try {
      value = std::stoll(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != part.size() || part.empty() || value < 1)
      throw Error("--shape must be extents joined by 'x', each >= 1 (e.g. 33x33); got '" + text + "'");
    extents.push_back(value);
  }
  if (extents.empty()) throw Error("--shape is empty");
  return extents;
}

void run_analytic(const AnalyticArgs& args) {
  if (args.list) {
    for (const auto& f : datasets::analytic_functions())
      std::cout << f.name << "  (D " << f.min_dims << ".." << f.max_dims << ")  " << f.formula << '\n';
    return;
  }
  if (args.function.empty() || args.shape.empty() || args.mode.empty() || args.output.empty())
    throw Error("analytic needs FUNCTION, --shape, --mode and OUTPUT (or --list)");
  const auto& f = datasets::analytic_function(args.function);
  const Mode mode = parse_mode_option(args.mode);
  const GridShape grid = GridShape::make(parse_extents(args.shape), 1);
  if (!f.supports(grid.dims))
    throw Error("analytic function '" + args.function + "' is defined for D = " + std::to_string(f.min_dims) +
                ".." + std::to_string(f.max_dims) + ", not D = " + std::to_string(grid.dims));
  check_output_path(args.output);
  // Refused before any allocation when it cannot fit: the samples in double (and their
  // float32 rounding), or the coordinates as read and widened to double plus the values.
  if (args.at.empty()) {
    const auto values = static_cast<std::uint64_t>(grid.values());
    runner::require_memory(values * (args.float32 ? 8 + 4 : 8),
                           "analytic '" + args.function + "' on a " + args.shape + " grid" +
                               (args.float32 ? " (float32)" : ""));
  } else {
    const npy::ArrayInfo info = npy::read_info(args.at);
    const auto count = static_cast<std::uint64_t>(npy::element_count(info.shape));
    const std::uint64_t held = info.is_float32 ? 4 : 8;
    const std::uint64_t read = held + (info.is_integer ? info.file_item_bytes : 0);
    const std::uint64_t widened = held + (info.is_float32 ? 8 : 0);
    const std::uint64_t queries = count / static_cast<std::uint64_t>(std::max(1, grid.dims));
    runner::require_memory(count * std::max(read, widened) + queries * 8,
                           "analytic '" + args.function + "' at '" + args.at + "' (shape " +
                               npy::shape_string(info.shape) + ")");
  }
  if (args.at.empty()) {
    const auto samples = datasets::sample_analytic_f64(f, grid, mode);
    if (args.float32) {
      const std::vector<float> rounded(samples.begin(), samples.end());
      npy::write(args.output, grid.extents(), rounded.data());
    } else {
      npy::write(args.output, grid.extents(), samples.data());
    }
    return;
  }
  npy::Array coords = read_array(args.at);
  if (coords.shape.size() < 2 || coords.shape[0] != grid.dims)
    throw Error("--at must hold coordinates of shape (D, ...) with D = " + std::to_string(grid.dims) + "; got " +
                npy::shape_string(coords.shape));
  const std::vector<double> x = as_float64(coords);
  std::vector<std::int64_t> out_shape(coords.shape.begin() + 1, coords.shape.end());
  const std::int64_t n = npy::element_count(out_shape);
  std::vector<double> values(static_cast<std::size_t>(n));
  for (std::int64_t q = 0; q < n; ++q) {
    double u[kMaxDims];
    for (int d = 0; d < grid.dims; ++d) u[d] = x[static_cast<std::size_t>(d * n + q)];
    values[static_cast<std::size_t>(q)] = datasets::analytic_value_at(f, grid, mode, u);
  }
  npy::write(args.output, out_shape, values.data());
}

void register_analytic(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "analytic", "An analytic field's samples on a grid, or its exact values at grid coordinates (.npy, float64)");
  auto args = std::make_shared<AnalyticArgs>();
  cmd->add_flag("--list", args->list, "List the analytic functions and exit");
  cmd->add_option("function", args->function, "Function name (--list shows them)");
  cmd->add_option("--shape", args->shape, "Grid extents, C order, joined by 'x' (e.g. 64x64)");
  cmd->add_option("--mode", args->mode, "Boundary mode: its sample-position convention (datasets/README.md)");
  cmd->add_option("--at", args->at, "Coordinates (D, ...) in grid units: write the exact values there instead");
  cmd->add_flag("--float32", args->float32, "Write the samples rounded to float32 (what an f32 implementation gets)");
  cmd->add_option("output", args->output, "Output .npy");
  cmd->callback([args] { run_analytic(*args); });
}

}  // namespace

SPLINEBENCH_COMMAND(register_analytic);

}  // namespace splinebench::cli
