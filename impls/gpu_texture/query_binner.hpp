// Query reordering for gpu_texture_binned: the queries sorted by brick of grid cells
// (2^s cells per axis), carried as records {x_0..x_{D-1}, index} so that the
// evaluation reads them contiguously; consecutive threads then fetch neighbouring
// texels and random queries run from cache almost as sorted ones do. Results are
// written at each query's own index (TextureField::evaluate_records), so the caller
// sees its own order.
//
// Cost (counted in gpu_texture_binned's evaluate time): one pass writing a brick key
// and a record per query, and a CUB radix sort of (key, record) over the key's bits
// (<= 16, two 8-bit passes).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "splinebench/cuda/device_buffer.hpp"
#include "splinebench/types.hpp"

namespace splinebench::gpu {

class QueryBinner {
 public:
  // Enqueues on `stream` the sorting of the n queries at d_coords ((D, n) axis-major,
  // device memory) into records. Coordinates outside the grid are binned with their
  // nearest cell, non-finite ones with cell 0 (any order is correct; the order only
  // buys locality). Throws Unsupported for n >= 2^31.
  void bin(const GridShape& shape, const float* d_coords, std::int64_t n, cudaStream_t stream);

  // The records of the last bin(): device array of n records of record_words() 32-bit
  // words (D coordinates as float bits, then the query's index).
  const std::uint32_t* records() const { return records_; }
  int record_words() const { return record_words_; }
  int key_bits() const { return key_bits_; }
  int brick_shift() const { return brick_shift_; }
  void release();

 private:
  DeviceBuffer<std::uint32_t> keys_[2];
  DeviceBuffer<std::uint32_t> words_[2];
  DeviceBuffer<unsigned char> temp_;
  const std::uint32_t* records_ = nullptr;
  int record_words_ = 0;
  int key_bits_ = 0;
  int brick_shift_ = 0;
};

}  // namespace splinebench::gpu
