#include "gpu_slabs/query_route.hpp"

#include <cmath>
#include <cstring>

#include "splinebench/bspline_math.hpp"
#include "splinebench/slab_route.hpp"

namespace splinebench::gpu::slabs {

std::int64_t host_cell(float x, std::int64_t period) {
  const float fl = std::floor(x);
  const double d = static_cast<double>(fl);
  const double p = static_cast<double>(period);
  if (d >= 0.0 && d < p) return static_cast<std::int64_t>(fl);
  double r = std::fmod(d, p);
  if (r < 0.0) r += p;
  return static_cast<std::int64_t>(r);
}

void route_queries(const float* coords, std::int64_t n, int dims, int mode, const SlabLayout& layout,
                   QueryRoute& route, float* staged) {
  const int S = layout.slabs();
  const std::int64_t n0 = layout.n;
  const std::int64_t period = bspline::mode_period(mode, n0);
  route.slab.resize(static_cast<std::size_t>(n));
  route.offset.assign(static_cast<std::size_t>(S) + 1, 0);
  for (std::int64_t q = 0; q < n; ++q) {
    const float x = coords[q];
    int s = 0;
    if (std::isfinite(x)) {
      const slab::TapHome h = slab::tap_home(mode, host_cell(x, period), n0);
      s = slab::slab_of(layout.starts.data(), S, h.home);
    }
    route.slab[static_cast<std::size_t>(q)] = static_cast<std::uint16_t>(s);
    ++route.offset[static_cast<std::size_t>(s) + 1];
  }
  for (int s = 0; s < S; ++s) route.offset[s + 1] += route.offset[s];

  // Stable counting sort: each slab's queries keep the caller's order.
  route.order.resize(static_cast<std::size_t>(n));
  std::vector<std::int64_t> next(route.offset.begin(), route.offset.end() - 1);
  for (std::int64_t q = 0; q < n; ++q) route.order[static_cast<std::size_t>(next[route.slab[q]]++)] = q;

  for (int s = 0; s < S; ++s) {
    const std::int64_t first = route.offset[s], m = route.count(s);
    float* block = staged + dims * first;
    for (int d = 0; d < dims; ++d) {
      const float* axis = coords + d * n;
      float* dst = block + d * m;
      for (std::int64_t i = 0; i < m; ++i) dst[i] = axis[route.order[static_cast<std::size_t>(first + i)]];
    }
  }
}

void scatter_values(const QueryRoute& route, int slabs, std::int64_t fields, std::int64_t n, int channels,
                    const float* staged, float* out) {
  const std::size_t bytes = static_cast<std::size_t>(channels) * sizeof(float);
  for (int s = 0; s < slabs; ++s) {
    const std::int64_t first = route.offset[s], m = route.count(s);
    const float* block = staged + fields * first * channels;
    for (std::int64_t f = 0; f < fields; ++f) {
      const float* src = block + f * m * channels;
      float* dst = out + f * n * channels;
      for (std::int64_t i = 0; i < m; ++i)
        std::memcpy(dst + route.order[static_cast<std::size_t>(first + i)] * channels, src + i * channels, bytes);
    }
  }
}

}  // namespace splinebench::gpu::slabs
