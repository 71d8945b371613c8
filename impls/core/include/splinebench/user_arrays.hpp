// What every front end (the CLI on .npy files, the Python module on arrays) checks of a
// user's arrays and request before any work, so that both refuse the same things with
// the same messages.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "splinebench/implementation.hpp"
#include "splinebench/types.hpp"

namespace splinebench {

// NumPy's way of writing a shape: "(64, 48)", "(5,)", "()".
std::string shape_text(const std::vector<std::int64_t>& shape);

// A mode by its splinebench name; the error lists the modes with their SciPy names.
Mode mode_from_name(std::string_view text);

// The grid of an array of samples/coefficients of shape `shape`: the shape without the
// trailing channel axis when channels > 1. Throws for a 0-d array, more than kMaxDims
// grid axes, a zero-length axis, or a channel axis of the wrong length. `what` names the
// array ("the input"), `channels_option` how the user set the channels ("--channels",
// "channels=").
GridShape grid_of(const std::vector<std::int64_t>& shape, int channels, const std::string& what,
                  const std::string& channels_option);

// Throws unless coordinates of shape `coords_shape` address a grid of `dims` axes:
// (D, ...) with at least 2 axes, like scipy.ndimage.map_coordinates. `what` and
// `field_shape` name the array the grid came from.
void check_coordinates_shape(const std::vector<std::int64_t>& coords_shape, int dims, const std::string& what,
                             const std::vector<std::int64_t>& field_shape);

// The most threads a request may ask for: max(1024, 4 x the hardware threads). Far above
// any useful oversubscription, and well below what breaks the OpenMP runtime (libgomp
// crashes near 90000 threads and really starts 30000).
int max_threads();

// Throws unless 0 <= threads <= max_threads() (0: the implementation's default); `option`
// names how the user set it ("--threads", "threads").
void check_threads(int threads, const std::string& option);

// Throws unless `impl` can run here with this grid and mode (availability and
// capabilities, with the implementation's own reason).
void require_runnable(const Implementation& impl, const GridShape& grid, Mode mode);
// The same from what the implementation answered before (a caller that keeps an instance
// asks once).
void require_runnable(std::string_view name, const Availability& availability, const Capabilities& capabilities,
                      const GridShape& grid, Mode mode);

}  // namespace splinebench
