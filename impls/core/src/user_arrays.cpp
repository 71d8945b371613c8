#include "splinebench/user_arrays.hpp"

#include <algorithm>
#include <thread>

#include "splinebench/error.hpp"

namespace splinebench {

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string out = "(";
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (d) out += ", ";
    out += std::to_string(shape[d]);
  }
  if (shape.size() == 1) out += ",";
  return out + ")";
}

Mode mode_from_name(std::string_view text) {
  if (const auto mode = parse_mode(text)) return *mode;
  throw Error("unknown mode '" + std::string(text) +
              "'; known: mirror (SciPy 'mirror'), half (SciPy 'reflect'/'grid-mirror'), "
              "periodic (SciPy 'grid-wrap')");
}

GridShape grid_of(const std::vector<std::int64_t>& array_shape, int channels, const std::string& what,
                  const std::string& channels_option) {
  // The shape's text only for a message: every module call passes here.
  const auto shape = [&] { return shape_text(array_shape); };
  if (array_shape.empty())
    throw Error(what + " is a 0-d array (a single number); it needs 1 to " + std::to_string(kMaxDims) +
                " grid axes");
  std::vector<std::int64_t> extents = array_shape;
  if (channels > 1) {
    if (extents.back() != channels)
      throw Error("with " + channels_option + (channels_option.back() == '=' ? "" : " ") + std::to_string(channels) +
                  " the last axis of " + what + " is the channel axis and must have length " +
                  std::to_string(channels) + "; " + what + " has shape " + shape());
    extents.pop_back();
    if (extents.empty())
      throw Error(what + " of shape " + shape() + " has only the channel axis; it needs 1 to " +
                  std::to_string(kMaxDims) + " grid axes before it");
  }
  if (static_cast<int>(extents.size()) > kMaxDims)
    throw Error(what + " has " + std::to_string(extents.size()) + " grid axes (shape " + shape() +
                "); splinebench supports 1 to " + std::to_string(kMaxDims));
  for (std::size_t d = 0; d < extents.size(); ++d)
    if (extents[d] == 0)
      throw Error("axis " + std::to_string(d) + " of " + what + " has length 0 (shape " + shape() +
                  "); every grid axis needs at least one sample");
  return GridShape::make(extents, channels);
}

void check_coordinates_shape(const std::vector<std::int64_t>& coords_shape, int dims, const std::string& what,
                             const std::vector<std::int64_t>& field_shape) {
  const auto text = [&] { return shape_text(coords_shape); };
  if (coords_shape.size() < 2)
    throw Error("the coordinates must have shape (D, ...) with at least 2 axes, like "
                "scipy.ndimage.map_coordinates (one row per grid axis); got shape " + text());
  if (coords_shape[0] != dims)
    throw Error("the coordinates have " + std::to_string(coords_shape[0]) + " rows (first axis of shape " + text() +
                ") but " + what + " have " + std::to_string(dims) + " grid axes (shape " + shape_text(field_shape) +
                ")");
}

int max_threads() {
  // Asked once: hardware_concurrency() reads the affinity mask, microseconds a call, and
  // the Python module checks every call's threads.
  static const int most = std::max(1024, 4 * static_cast<int>(std::thread::hardware_concurrency()));
  return most;
}

void check_threads(int threads, const std::string& option) {
  if (threads < 0 || threads > max_threads())
    throw Error(option + " must be in [0, " + std::to_string(max_threads()) +
                "] (0: the implementation's default; at most max(1024, 4 x the hardware threads)), got " +
                std::to_string(threads));
}

void require_runnable(const Implementation& impl, const GridShape& grid, Mode mode) {
  require_runnable(impl.name(), impl.availability(), impl.capabilities(), grid, mode);
}

void require_runnable(std::string_view name, const Availability& availability, const Capabilities& capabilities,
                      const GridShape& grid, Mode mode) {
  if (!availability.ok) throw Error("implementation '" + std::string(name) + "' cannot run here: " + availability.reason);
  const std::string why = capabilities.why_not(grid.dims, grid.channels, mode);
  if (!why.empty()) throw Error("implementation '" + std::string(name) + "' does not support this input: " + why);
}

}  // namespace splinebench
