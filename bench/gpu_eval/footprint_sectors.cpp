#include "footprint_sectors.hpp"

#include <algorithm>
#include <cmath>

#include "splinebench/bspline_math.hpp"

namespace splinebench::bench {

double mean_sectors_per_query(const GridShape& shape, Mode mode, const std::vector<float>& coords, std::int64_t n,
                              std::int64_t sample) {
  const int D = shape.dims;
  const int m = static_cast<int>(mode);
  sample = std::min(sample, n);
  std::vector<std::int64_t> sectors;
  double total = 0;
  for (std::int64_t j = 0; j < sample; ++j) {
    const std::int64_t q = j * (n / sample);
    std::int64_t index[kMaxDims][4];
    for (int d = 0; d < D; ++d) {
      const std::int64_t len = shape.extent[d];
      const double x = coords[d * n + q];
      const auto period = static_cast<double>(bspline::mode_period(m, len));
      const auto cell = static_cast<std::int64_t>(std::fmod(std::floor(x), period));
      for (int t = 0; t < 4; ++t) index[d][t] = bspline::fold_index(m, cell + t - 1, len);
    }
    sectors.clear();
    int tap[kMaxDims] = {0, 0, 0, 0, 0, 0};
    while (true) {
      std::int64_t offset = 0;
      for (int d = 0; d < D; ++d) offset += index[d][tap[d]] * shape.stride(d);
      for (int c = 0; c < shape.channels; ++c) sectors.push_back((offset + c) * 4 / 32);
      int d = D - 1;
      while (d >= 0 && ++tap[d] == 4) tap[d--] = 0;
      if (d < 0) break;
    }
    std::sort(sectors.begin(), sectors.end());
    total += static_cast<double>(std::unique(sectors.begin(), sectors.end()) - sectors.begin());
  }
  return total / static_cast<double>(sample);
}

}  // namespace splinebench::bench
