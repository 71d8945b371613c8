// Tolerance of an evaluation from coefficients stored in a reduced-precision format
// (f16, bf16) with float32 arithmetic, on top of the float32 algorithm's own tolerance.
//
// Storage: each f32 coefficient c is rounded to nearest, |c~ - c| <= u |c| + delta
// (u the format's unit roundoff, delta half its smallest subnormal spacing, the error
// of a subnormal).
// Values: the weights are non-negative and sum to 1 per axis, so
//   |sum w (c~ - c)| <= u sum w |c| + delta <= u max|c| + delta,
// per field, divided by that field's max|f| (the harness's and tests' normalisation).
// Coefficients read back are the stored values, so the prefilter's relative L2 error
// grows by the storage rounding:
//   ||c~ - c_ref|| <= ||c~ - c|| + ||c - c_ref|| <= (u ||c|| + delta sqrt(n)) + e ||c_ref||,
//   ||c|| <= (1 + e) ||c_ref||  =>  rel <= (u + delta sqrt(n) / ||c||) (1 + e) + e,
// e the f32 prefilter tolerance, n the values per field.
// With the magnitudes measured on the device after the prefilter (max|f|, max|c|,
// ||c|| per field) the bound is tight; without them it uses max|c| <= 3^D max|f| and
// drops delta (then stated in the basis: valid for coefficients in the normal range).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "splinebench/implementation.hpp"
#include "splinebench/types.hpp"

namespace splinebench::gpu {

struct StorageFormat {
  std::string name;       // "f16", "bf16"
  double unit_roundoff;   // 2^-11, 2^-8
  double subnormal_error; // half the smallest subnormal: 2^-25, 2^-134
  double max_finite;      // 65504, ~3.39e38
};

StorageFormat f16_format();
StorageFormat bf16_format();

// Per field, measured on the device: samples before the prefilter (0: not measured,
// e.g. coefficients handed in), the f32 coefficients before they are stored.
struct StoredMagnitudes {
  std::vector<double> max_f;
  std::vector<double> max_c;
  std::vector<double> sum_squares_c;
  std::int64_t values_per_field = 0;
};

Tolerance reduced_storage_tolerance(const Tolerance& f32, const GridShape& shape, const StorageFormat& format,
                                    const std::optional<StoredMagnitudes>& measured);

}  // namespace splinebench::gpu
