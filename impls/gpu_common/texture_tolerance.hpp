// The tolerance of an evaluation through TextureField, for every implementation that
// evaluates that way (gpu_texture, gpu_texture_binned). The hardware blend weights carry 8
// fractional bits, so a texture result is off by at most
//   E_hw = interp_error_factor(layout) * max|c[k+1] - c[k]|   (~ min(D,3) * 2^-8 * max|dc|)
// plus the texture unit's and the slab weights' float arithmetic, (8D + 16) 2^-24 max|c|,
// on top of the float32 error of the same algorithm in software. The harness compares
// max|s - s_ref| / max|f|, so both are divided by max|f|. With the magnitudes measured
// on the device after the prefilter the bound is tight; without them (tolerance asked
// before prepare) it uses max|dc| <= 2 max|c| <= 2 * 3^D max|f| (the prefilter's
// infinity norm is 3 per axis, reached by the alternating pattern): valid but loose for
// large D. Derivation: texture_field.cu and impls/gpu_texture/README.md.
#pragma once

#include <cstdint>
#include <optional>

#include "splinebench/implementation.hpp"
#include "splinebench/types.hpp"

namespace splinebench::gpu {

// The phase in which prepare measures these magnitudes on the device.
inline constexpr const char* kBoundStatsPhase = "bound_stats";

// What prepare measures on the device for the bound (phase kBoundStatsPhase).
struct TextureMagnitudes {
  double max_f = 0;        // samples, before the prefilter; 0 when not measured
  double max_c = 0;        // coefficients
  double max_dc = 0;       // largest neighbour difference of the coefficients
};

// `f32`: the software algorithm's tolerance; `measured`: the magnitudes of this batch,
// when it is the prepared one. A shape the texture cannot hold returns `f32` with the
// reason in its basis.
Tolerance texture_tolerance(const Tolerance& f32, const GridShape& shape, std::int64_t fields, Mode mode,
                            const std::optional<TextureMagnitudes>& measured);

}  // namespace splinebench::gpu
