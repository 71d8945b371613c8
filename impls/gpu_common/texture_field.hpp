// Prefiltered coefficients held in a CUDA array behind a texture object with hardware
// linear filtering, and the cubic B-spline evaluation that uses it: 2 / 4 / 8 linear
// fetches per query for D = 1 / 2 / 3, and for D = 4..6 a loop over the 4^(D-3)
// neighbouring 3-D slabs (8 fetches each, extra-axis weights in software).
//
// Storage (texture_layout.hpp): D = 1 -> 2-D array, one row per field; D = 2 -> 2-D
// layered array, one layer per field; D >= 3 -> one 3-D array holding every 3-D slab
// (the last three axes) of every field, tiled along depth first, then height, then
// width. For the periodic mode each slab carries one extra wrapped texel per filtered
// axis so that the pair (N-1, 0) is adjacent in memory; the other modes fold
// coordinates in software so that every hardware-blended pair is two neighbouring
// texels of one slab. An axis longer than the device allows for its array axis is
// folded into overlapping segments (one duplicated texel per segment), so every blended
// pair still lies in one segment and the taps stay exact; batches with more rows or
// layers than the device allows stack along the array's other axes. A shape is refused
// only when no array of the device's limits can hold it.
//
// Accuracy: the texture unit stores the blend weight with 8 fractional bits, so each
// filtered axis adds at most (2^-8 + position rounding) * max|c[k+1] - c[k]| of error;
// interp_error_factor() returns that sum over the filtered axes (see texture_field.cu).
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <string>

#include "gpu_common/texture_layout.hpp"
#include "splinebench/types.hpp"

namespace splinebench::gpu {

class TextureField {
 public:
  TextureField() = default;
  ~TextureField();
  TextureField(const TextureField&) = delete;
  TextureField& operator=(const TextureField&) = delete;

  // Copies `fields` prefiltered fields of `shape` from device memory `d_coeffs` into a
  // CUDA array (layout: plan()) and creates the texture object. The copy is enqueued on
  // `stream`; d_coeffs must stay valid until the stream has passed it. Throws
  // Unsupported when no array within the device's texture limits holds the batch (the
  // message names the limit) or device memory runs out; callers may then fall back to
  // evaluate_global.
  void bind(const GridShape& shape, std::int64_t fields, Mode mode, const float* d_coeffs, cudaStream_t stream);

  // Evaluates every bound field at `n` points: d_coords (D, n) axis-major, d_out
  // [fields][n][channels], both device pointers. Enqueued on `stream`.
  void evaluate(const float* d_coords, std::int64_t n, float* d_out, cudaStream_t stream) const;

  // Same, for n queries given as records of D + 1 32-bit words in device memory: the D
  // coordinates (float bits), then the query's index in 0..n-1 (each index once). The
  // result of record i goes to that index, so records sorted for locality (QueryBinner)
  // give results in the caller's order.
  void evaluate_records(const std::uint32_t* d_records, std::int64_t n, float* d_out, cudaStream_t stream) const;

  // Frees the array and the texture object (also done by the destructor and by bind).
  void release();
  bool bound() const { return texture_ != 0; }
  const TextureLayout& layout() const { return layout_; }

  // "" when the current device's texture limits can hold this batch, else why not.
  static std::string why_not(const GridShape& shape, std::int64_t fields, Mode mode);

  // The layout bind() gives this batch on the current device (without a device: as if
  // the limits were unbounded). Throws Unsupported when no layout fits.
  static TextureLayout plan(const GridShape& shape, std::int64_t fields, Mode mode);

  // The current device's texture limits (cudaDevAttrMaxTexture*); throws without a device.
  static TextureLimits device_limits();

  // Bound on |texture result - exact spline| / max|c[k+1] - c[k]| (neighbours along
  // the hardware-filtered axes) from the 8-bit blend weights and the float rounding of
  // texel positions, for the layout this batch would get (plan()).
  static double interp_error_factor(const GridShape& shape, std::int64_t fields, Mode mode);

 private:
  void launch(const float* d_coords, const std::uint32_t* d_records, std::int64_t n, float* d_out,
              cudaStream_t stream) const;

  TextureLayout layout_{};
  cudaArray_t array_ = nullptr;
  cudaTextureObject_t texture_ = 0;
};

// Magnitudes the texture error bound is stated in, over `fields` fields at device
// pointer d_data: max|v| and the largest |v[k+1] - v[k]| over neighbours along the
// last min(D, 3) axes (the ones the texture filters; for periodic also the pair
// (N-1, 0)). NaN in the data gives NaN. Synchronises `stream` to return.
struct CoefficientStats {
  float max_abs = 0;
  float max_neighbour_difference = 0;
};
CoefficientStats coefficient_stats(const GridShape& shape, std::int64_t fields, Mode mode, const float* d_data,
                                   cudaStream_t stream);

// coefficient_stats(...).max_neighbour_difference.
float max_neighbour_difference(const GridShape& shape, std::int64_t fields, Mode mode, const float* d_coeffs,
                               cudaStream_t stream);

}  // namespace splinebench::gpu
