#include "splinebench/scattered/problem.hpp"

#include <cmath>
#include <sstream>

#include "splinebench/error.hpp"

namespace splinebench::scattered {

void Problem::validate() const {
  if (grid.dims < 1 || grid.dims > kMaxReconstructionDims)
    fail("scattered reconstruction: dims must be 1, 2 or 3, got " + std::to_string(grid.dims));
  grid.validate();
  if (grid.channels != 1) fail("scattered reconstruction: one channel only, got " + std::to_string(grid.channels));
  const std::int64_t n = samples();
  if (n == 0) fail("scattered reconstruction: no samples");
  if (static_cast<std::int64_t>(points.size()) != grid.dims * n) {
    std::ostringstream msg;
    msg << "scattered reconstruction: " << points.size() << " coordinates for " << n << " samples in "
        << grid.dims << "-D (expected " << grid.dims * n << ")";
    fail(msg.str());
  }
  if (!std::isfinite(lambda) || lambda < 0)
    fail("scattered reconstruction: lambda must be finite and >= 0, got " + std::to_string(lambda));
  for (std::int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(values[i])) {
      std::ostringstream msg;
      msg << "scattered reconstruction: value of sample " << i << " is not finite (" << values[i] << ")";
      fail(msg.str());
    }
    for (int d = 0; d < grid.dims; ++d) {
      const double x = coordinate(d, i);
      const double top = static_cast<double>(grid.extent[d] - 1);
      if (!std::isfinite(x) || x < 0 || x > top) {
        std::ostringstream msg;
        msg.precision(17);
        msg << "scattered reconstruction: sample " << i << " has coordinate " << x << " on axis " << d;
        if (std::isfinite(x)) msg << ", outside the grid [0, " << top << "]";
        else msg << ", which is not finite";
        fail(msg.str());
      }
    }
  }
}

}  // namespace splinebench::scattered
