#include "gpu_slabs/stream_plan.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "gpu_common/axis_limits.hpp"
#include "splinebench/error.hpp"
#include "splinebench/oracle.hpp"
#include "splinebench/slab_steps.hpp"

namespace splinebench::gpu::slabs {
namespace {

// Past this power every z^k formed as a product in double is 0 (as slab_terms.cpp's
// table): the table need not grow with the line.
constexpr std::int64_t kCorrectionPowerTable = 1200;

// Floats of a plane one OpenMP iteration corrects: long enough to stream, short enough
// that a plane of a large volume splits over every core.
constexpr std::int64_t kCorrectionBlock = 16384;

}  // namespace

void check_stream_arguments(const float* host_volume, const GridShape& shape, const StreamOptions& options) {
  if (!host_volume) throw Error("gpu_slabs prefilter_streamed: null host volume");
  shape.validate();
  for (int d = 0; d < shape.dims; ++d)
    if (shape.extent[d] >= kMaxAxisLength)
      throw Unsupported("gpu_slabs prefilter_streamed: axis " + std::to_string(d) + " has " +
                        std::to_string(shape.extent[d]) + " samples; at most 2^30 - 1 supported");
  if (shape.dims >= 2 && shape.channels != 1 && shape.channels != 2 && shape.channels != 4)
    throw Unsupported("gpu_slabs prefilter_streamed: channels must be 1, 2 or 4 when D >= 2 (the step prefilter's), got " +
                      std::to_string(shape.channels));
  if (options.device < 0) throw Error("gpu_slabs prefilter_streamed: negative device index");
  if (options.buffers < 2 || options.buffers > kMaxStreamBuffers)
    throw Error("gpu_slabs prefilter_streamed: buffers must be in [2, " + std::to_string(kMaxStreamBuffers) +
                "], got " + std::to_string(options.buffers));
  if (options.slab_planes < 0)
    throw Error("gpu_slabs prefilter_streamed: slab_planes must be >= 0 (0: automatic), got " +
                std::to_string(options.slab_planes));
  if (!(options.memory_fraction > 0.0 && options.memory_fraction <= 1.0))
    throw Error("gpu_slabs prefilter_streamed: memory_fraction must be in (0, 1], got " +
                std::to_string(options.memory_fraction));
  if (options.max_slab_bytes < 0)
    throw Error("gpu_slabs prefilter_streamed: max_slab_bytes must be >= 0 (0: no cap)");
}

std::int64_t choose_slab_planes(std::int64_t n, std::int64_t P, const StreamOptions& options,
                                std::int64_t free_bytes) {
  if (n < 1 || P < 1) throw Error("gpu_slabs prefilter_streamed: empty line or plane");
  if (options.buffers < 2) throw Error("gpu_slabs prefilter_streamed: at least 2 buffers");
  if (options.slab_planes > 0) return std::min(options.slab_planes, n);
  const std::int64_t plane_bytes = P * static_cast<std::int64_t>(sizeof(float));
  const double usable = std::floor(options.memory_fraction * static_cast<double>(std::max<std::int64_t>(free_bytes, 0)));
  const double budget = usable - static_cast<double>(kStreamPlaneSets) * static_cast<double>(plane_bytes);
  const double per_plane = static_cast<double>(options.buffers) * static_cast<double>(plane_bytes);
  if (budget < per_plane)
    throw Unsupported("gpu_slabs prefilter_streamed: out of device memory: " + std::to_string(options.buffers) +
                      " slab buffers of one plane (" + std::to_string(plane_bytes) + " bytes each) and " +
                      std::to_string(kStreamPlaneSets) + " plane sets do not fit in " +
                      std::to_string(options.memory_fraction) + " of the device's " + std::to_string(free_bytes) +
                      " free bytes");
  std::int64_t planes = static_cast<std::int64_t>(std::floor(budget / per_plane));
  if (options.max_slab_bytes > 0) planes = std::min(planes, std::max<std::int64_t>(1, options.max_slab_bytes / plane_bytes));
  return std::min(planes, n);
}

std::vector<std::int64_t> stream_slab_starts(std::int64_t n, std::int64_t planes) {
  if (n < 1 || planes < 1) throw Error("gpu_slabs prefilter_streamed: slabs need n >= 1 and planes >= 1");
  std::vector<std::int64_t> starts;
  for (std::int64_t s = 0; s < n; s += planes) starts.push_back(s);
  return starts;
}

std::int64_t correct_on_host(float* host, std::int64_t n, std::int64_t P, const std::vector<std::int64_t>& starts) {
  if (!host || n < 1 || P < 1) throw Error("correct_on_host: empty volume");
  if (starts.empty() || starts.front() != 0) throw Error("correct_on_host: the first slab starts at plane 0");
  for (std::size_t s = 1; s < starts.size(); ++s)
    if (starts[s] <= starts[s - 1] || starts[s] >= n)
      throw Error("correct_on_host: slab starts must increase and stay below n");
  const std::int64_t S = static_cast<std::int64_t>(starts.size());
  if (S < 2) return 0;
  const std::int64_t depth = slab::correction_depth<float>();
  const std::vector<double> zd = oracle::pole_powers<double>(std::min(n, kCorrectionPowerTable));
  auto zf = [&](std::int64_t k) {
    return k < static_cast<std::int64_t>(zd.size()) ? static_cast<float>(zd[static_cast<std::size_t>(k)]) : 0.0f;
  };
  auto len_of = [&](std::int64_t s) { return (s + 1 < S ? starts[s + 1] : n) - starts[s]; };

  // The carry into slab S-2: the last slab's first plane, already true (its recursion
  // started from the line's initial value).
  std::vector<float> carry(host + starts[S - 1] * P, host + (starts[S - 1] + 1) * P), next(static_cast<std::size_t>(P));
  const std::int64_t blocks = (P + kCorrectionBlock - 1) / kCorrectionBlock;
  std::int64_t corrected = 0;
  std::vector<float> weight;
  for (std::int64_t s = S - 2; s >= 0; --s) {
    const std::int64_t len = len_of(s);
    const std::int64_t first = std::max<std::int64_t>(0, len - depth);
    weight.resize(static_cast<std::size_t>(len - first));
    for (std::int64_t j = first; j < len; ++j) weight[static_cast<std::size_t>(j - first)] = zf(len - j);
    const float zlen = zf(len);
    const bool carry_on = s > 0;
    float* d = host + starts[s] * P;
    const float* c = carry.data();
    float* nx = next.data();
    const float* w = weight.data();
    // One block (a small plane) runs on this thread: a parallel region per boundary would
    // cost more than the work.
#pragma omp parallel for schedule(static) if (blocks > 1)
    for (std::int64_t b = 0; b < blocks; ++b) {
      const std::int64_t p0 = b * kCorrectionBlock, p1 = std::min(P, p0 + kCorrectionBlock);
      // The carry into slab s-1 reads this slab's first plane before its correction
      // (which changes that plane too when the slab is at most `depth` planes thick).
      if (carry_on)
        for (std::int64_t p = p0; p < p1; ++p) nx[p] = d[p] + zlen * c[p];
      for (std::int64_t j = first; j < len; ++j) {
        float* row = d + j * P;
        const float wj = w[j - first];
        for (std::int64_t p = p0; p < p1; ++p) row[p] += wj * c[p];
      }
    }
    corrected += len - first;
    carry.swap(next);
  }
  return corrected;
}

}  // namespace splinebench::gpu::slabs
