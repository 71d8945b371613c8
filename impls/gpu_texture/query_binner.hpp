// Query reordering for gpu_texture_binned: an evaluation order that groups queries by
// brick of grid cells (2^s cells per axis), so consecutive threads fetch neighbouring
// texels and random queries run from cache almost as sorted ones do. Only the order
// changes: results are written at each query's own index (evaluate_permuted).
//
// Cost (counted in gpu_texture_binned's evaluate time): one pass computing a brick
// key per query, and a CUB radix sort of (key, index) over the key's bits (<= 16).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu_common/device_buffer.hpp"
#include "splinebench/types.hpp"

namespace splinebench::gpu {

class QueryBinner {
 public:
  // Enqueues on `stream` the computation of an order for the n queries at d_coords
  // ((D, n) axis-major, device memory). Coordinates outside the grid are binned with
  // their nearest cell, non-finite ones with cell 0 (any order is correct; this one is
  // only about locality). Throws Unsupported for n >= 2^31.
  void bin(const GridShape& shape, const float* d_coords, std::int64_t n, cudaStream_t stream);

  // The order of the last bin(): device array of n query indices.
  const std::uint32_t* order() const { return order_; }
  int key_bits() const { return key_bits_; }
  int brick_shift() const { return brick_shift_; }
  void release();

 private:
  DeviceBuffer<std::uint32_t> keys_[2];
  DeviceBuffer<std::uint32_t> values_[2];
  DeviceBuffer<unsigned char> temp_;
  const std::uint32_t* order_ = nullptr;
  int key_bits_ = 0;
  int brick_shift_ = 0;
};

}  // namespace splinebench::gpu
