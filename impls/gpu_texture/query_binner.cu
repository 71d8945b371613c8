#include "gpu_texture/query_binner.hpp"

#include <cub/device/device_radix_sort.cuh>

#include <string>

#include "gpu_common/cuda_check.hpp"
#include "splinebench/error.hpp"

namespace splinebench::gpu {
namespace {

constexpr int kMaxKeyBits = 16;  // two 8-bit radix passes

struct KeyParams {
  const float* coords;
  std::int64_t n;
  int dims;
  int shift;                // brick edge 2^shift cells
  int extent[6];            // cells per axis
  std::uint32_t bricks[6];  // bricks per axis
  std::uint32_t* keys;
  std::uint32_t* values;
};

__global__ void brick_key_kernel(const KeyParams p) {
  const std::int64_t q = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= p.n) return;
  std::uint32_t key = 0;
  for (int d = 0; d < p.dims; ++d) {
    const float x = __ldg(p.coords + d * p.n + q);
    // Nearest cell; NaN fails both comparisons and lands in cell 0.
    const float cell = x >= 0.0f ? fminf(floorf(x), static_cast<float>(p.extent[d] - 1)) : 0.0f;
    key = key * p.bricks[d] + (static_cast<std::uint32_t>(cell) >> p.shift);
  }
  p.keys[q] = key;
  p.values[q] = static_cast<std::uint32_t>(q);
}

int bits_for(std::uint64_t count) {
  int bits = 0;
  while ((std::uint64_t{1} << bits) < count) ++bits;
  return bits;
}

}  // namespace

void QueryBinner::bin(const GridShape& shape, const float* d_coords, std::int64_t n, cudaStream_t stream) {
  shape.validate();
  if (n < 0) throw Error("QueryBinner: negative query count");
  if (n >= (std::int64_t{1} << 31)) throw Unsupported("gpu_texture_binned: at most 2^31 - 1 queries per batch");
  KeyParams p{};
  p.coords = d_coords;
  p.n = n;
  p.dims = shape.dims;
  // Smallest brick whose key fits kMaxKeyBits.
  for (brick_shift_ = 0;; ++brick_shift_) {
    int bits = 0;
    for (int d = 0; d < shape.dims; ++d)
      bits += bits_for(static_cast<std::uint64_t>((shape.extent[d] + (std::int64_t{1} << brick_shift_) - 1) >>
                                                  brick_shift_));
    if (bits <= kMaxKeyBits) {
      key_bits_ = bits;
      break;
    }
  }
  p.shift = brick_shift_;
  for (int d = 0; d < shape.dims; ++d) {
    p.extent[d] = static_cast<int>(shape.extent[d]);
    p.bricks[d] = static_cast<std::uint32_t>((shape.extent[d] + (std::int64_t{1} << brick_shift_) - 1) >> brick_shift_);
  }
  const auto count = static_cast<std::size_t>(n);
  for (int b = 0; b < 2; ++b) {
    if (keys_[b].size() < count) keys_[b].resize(count);
    if (values_[b].size() < count) values_[b].resize(count);
  }
  order_ = values_[0].data();
  if (n == 0) return;
  p.keys = keys_[0].data();
  p.values = values_[0].data();
  brick_key_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(p);
  SB_CUDA_CHECK_LAUNCH("brick_key_kernel");
  if (key_bits_ == 0) return;  // one brick: the identity order

  cub::DoubleBuffer<std::uint32_t> keys(keys_[0].data(), keys_[1].data());
  cub::DoubleBuffer<std::uint32_t> values(values_[0].data(), values_[1].data());
  std::size_t temp_bytes = 0;
  SB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys, values, static_cast<int>(n), 0, key_bits_,
                                                stream));
  if (temp_.size() < temp_bytes) temp_.resize(temp_bytes);
  SB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp_.data(), temp_bytes, keys, values, static_cast<int>(n), 0,
                                                key_bits_, stream));
  order_ = values.Current();
}

void QueryBinner::release() {
  for (int b = 0; b < 2; ++b) {
    keys_[b].reset();
    values_[b].reset();
  }
  temp_.reset();
  order_ = nullptr;
}

}  // namespace splinebench::gpu
