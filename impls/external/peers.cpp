// The libraries users already have, as implementations: `scipy` (scipy.ndimage on the
// CPU) and `cupy` (cupyx.scipy.ndimage on the GPU), both driven through the Python
// adapter (adapters/python/). Modes: mirror -> 'mirror', half -> 'grid-mirror' (SciPy's
// 'reflect'), periodic -> 'grid-wrap'.
#include <string>

#include "external_implementation.hpp"
#include "splinebench/implementation.hpp"
#if SPLINEBENCH_WITH_CUDA
#include "splinebench/cuda/check.hpp"
#endif

namespace splinebench::impls {
namespace {

// scipy.ndimage's causal initialisation for the half-sample symmetric extension
// ('reflect' / 'grid-mirror') is inexact on short lines: coefficients off by ~1e-4
// relative at N = 2, shrinking about as |z|^(2N) (below f64 rounding from N ~ 14 on), while
// 'mirror' and 'grid-wrap' are exact for every N (tests/python/test_peers_scipy.py measures
// both against the exact solve). CuPy ports the same boundary code (ni_splines.c).
constexpr std::int64_t kShortLine = 16;

std::string short_half_lines(const GridShape& shape, Mode mode, const char* library) {
  if (mode != Mode::half) return {};
  for (int d = 0; d < shape.dims; ++d)
    if (shape.extent[d] >= 2 && shape.extent[d] < kShortLine)
      return std::string(library) + "'s 'grid-mirror'/'reflect' prefilter initialisation is inexact on lines "
             "shorter than " + std::to_string(kShortLine) + " samples (axis " + std::to_string(d) + " has " +
             std::to_string(shape.extent[d]) + "; scipy gh-24550)";
  return {};
}

std::string scipy_defect(const GridShape& shape, Mode mode) { return short_half_lines(shape, mode, "scipy.ndimage"); }
std::string cupy_defect(const GridShape& shape, Mode mode) {
  return short_half_lines(shape, mode, "cupyx.scipy.ndimage (a port of scipy.ndimage's boundary code)");
}

// The device as the harness's CUDA runtime sees it (the same driver CuPy uses), asked
// in this process: free where a GPU implementation has asked already. CuPy's own
// answer comes with the adapter's hello.
std::string cuda_device_missing() {
#if SPLINEBENCH_WITH_CUDA
  std::string reason = gpu::cuda_unavailable_reason();
  const std::string prefix = "not available: ";
  if (reason.rfind(prefix, 0) == 0) reason.erase(0, prefix.size());
  return reason;
#else
  return "no CUDA device check in a build without CUDA";
#endif
}

}  // namespace

ImplementationPtr make_scipy() {
  external::PeerSpec spec;
  spec.name = "scipy";
  spec.device = Device::cpu;
  spec.description =
      "scipy.ndimage through the Python adapter: spline_filter1d over the spatial axes, map_coordinates(order=3, "
      "prefilter=False) per field and channel; one thread, double arithmetic, float32 storage";
  spec.evaluation = "f64 taps (scipy.ndimage.map_coordinates)";
  spec.arithmetic = "f32";
  spec.tolerance_basis = "scipy.ndimage filters in double and rounds each pass's output to float32 once, within "
                         "the f32 per-pass model";
  spec.defect = &scipy_defect;
  return std::make_unique<external::ExternalImplementation>(spec);
}

ImplementationPtr make_cupy() {
  external::PeerSpec spec;
  spec.name = "cupy";
  spec.device = Device::gpu;
  spec.description =
      "cupyx.scipy.ndimage through the Python adapter: spline_filter1d over the spatial axes, "
      "map_coordinates(order=3, prefilter=False) per field and channel; CUDA events around each phase";
  spec.evaluation = "cupyx.scipy.ndimage.map_coordinates taps, global loads";
  spec.arithmetic = "f32";
  spec.tolerance_basis = "cupyx.scipy.ndimage filters float32 data pass by pass in place (the f32 per-pass model)";
  spec.defect = &cupy_defect;
  spec.device_unavailable = &cuda_device_missing;
  return std::make_unique<external::ExternalImplementation>(spec);
}

}  // namespace splinebench::impls
