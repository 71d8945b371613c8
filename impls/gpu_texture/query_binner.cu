#include "gpu_texture/query_binner.hpp"

#include <cub/device/device_radix_sort.cuh>

#include <string>

#include "splinebench/cuda/check.hpp"
#include "splinebench/error.hpp"

namespace splinebench::gpu {
namespace {

constexpr int kMaxKeyBits = 16;  // two 8-bit radix passes

// One query: D coordinates and its index. Aligned to the largest power of two (<= 16)
// dividing its size, so the sort and the evaluation can move it in wide accesses.
template <int D>
inline constexpr int kRecordAlign = (4 * (D + 1)) % 16 == 0 ? 16 : (4 * (D + 1)) % 8 == 0 ? 8 : 4;
template <int D>
struct alignas(kRecordAlign<D>) Record {
  float x[D];
  std::uint32_t index;
};

struct KeyParams {
  const float* coords;
  std::int64_t n;
  int shift;                // brick edge 2^shift cells
  int extent[6];            // cells per axis
  std::uint32_t bricks[6];  // bricks per axis
  std::uint32_t* keys;
  void* records;
};

template <int D>
__global__ void brick_key_kernel(const KeyParams p) {
  const std::int64_t q = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= p.n) return;
  Record<D> r;
  std::uint32_t key = 0;
#pragma unroll
  for (int d = 0; d < D; ++d) {
    const float x = __ldg(p.coords + d * p.n + q);
    r.x[d] = x;
    // Nearest cell; NaN fails the comparison and lands in cell 0.
    const float cell = x >= 0.0f ? fminf(floorf(x), static_cast<float>(p.extent[d] - 1)) : 0.0f;
    key = key * p.bricks[d] + (static_cast<std::uint32_t>(cell) >> p.shift);
  }
  r.index = static_cast<std::uint32_t>(q);
  p.keys[q] = key;
  static_cast<Record<D>*>(p.records)[q] = r;
}

template <int D>
const std::uint32_t* key_and_sort(KeyParams& p, int key_bits, DeviceBuffer<std::uint32_t> (&keys)[2],
                                  DeviceBuffer<std::uint32_t> (&words)[2], DeviceBuffer<unsigned char>& temp,
                                  cudaStream_t stream) {
  static_assert(sizeof(Record<D>) == 4 * (D + 1), "records are D + 1 packed words");
  p.keys = keys[0].data();
  p.records = words[0].data();
  brick_key_kernel<D><<<static_cast<unsigned>((p.n + 255) / 256), 256, 0, stream>>>(p);
  SB_CUDA_CHECK_LAUNCH("brick_key_kernel");
  if (key_bits == 0) return words[0].data();  // one brick: keep the caller's order

  cub::DoubleBuffer<std::uint32_t> k(keys[0].data(), keys[1].data());
  cub::DoubleBuffer<Record<D>> v(reinterpret_cast<Record<D>*>(words[0].data()),
                                 reinterpret_cast<Record<D>*>(words[1].data()));
  const int n = static_cast<int>(p.n);
  std::size_t temp_bytes = 0;
  SB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, k, v, n, 0, key_bits, stream));
  if (temp.size() < temp_bytes) {
    temp.reset();
    temp.resize(temp_bytes);
  }
  SB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, k, v, n, 0, key_bits, stream));
  return reinterpret_cast<const std::uint32_t*>(v.Current());
}

int bits_for(std::uint64_t count) {
  int bits = 0;
  while ((std::uint64_t{1} << bits) < count) ++bits;
  return bits;
}

template <typename Buffer>
void grow(Buffer& b, std::size_t count) {
  if (b.size() < count) {
    b.reset();
    b.resize(count);
  }
}

}  // namespace

void QueryBinner::bin(const GridShape& shape, const float* d_coords, std::int64_t n, cudaStream_t stream) {
  shape.validate();
  if (n < 0) throw Error("QueryBinner: negative query count");
  if (n >= (std::int64_t{1} << 31)) throw Unsupported("gpu_texture_binned: at most 2^31 - 1 queries per batch");
  const int D = shape.dims;
  // Smallest brick whose key fits kMaxKeyBits.
  for (brick_shift_ = 0;; ++brick_shift_) {
    int bits = 0;
    for (int d = 0; d < D; ++d)
      bits += bits_for(static_cast<std::uint64_t>((shape.extent[d] + (std::int64_t{1} << brick_shift_) - 1) >>
                                                  brick_shift_));
    if (bits <= kMaxKeyBits) {
      key_bits_ = bits;
      break;
    }
  }
  KeyParams p{};
  p.coords = d_coords;
  p.n = n;
  p.shift = brick_shift_;
  for (int d = 0; d < D; ++d) {
    p.extent[d] = static_cast<int>(shape.extent[d]);
    p.bricks[d] = static_cast<std::uint32_t>((shape.extent[d] + (std::int64_t{1} << brick_shift_) - 1) >> brick_shift_);
  }
  record_words_ = D + 1;
  const auto count = static_cast<std::size_t>(n);
  for (int b = 0; b < 2; ++b) {
    grow(keys_[b], count);
    grow(words_[b], count * static_cast<std::size_t>(record_words_));
  }
  records_ = words_[0].data();
  if (n == 0) return;
  switch (D) {
    case 1: records_ = key_and_sort<1>(p, key_bits_, keys_, words_, temp_, stream); break;
    case 2: records_ = key_and_sort<2>(p, key_bits_, keys_, words_, temp_, stream); break;
    case 3: records_ = key_and_sort<3>(p, key_bits_, keys_, words_, temp_, stream); break;
    case 4: records_ = key_and_sort<4>(p, key_bits_, keys_, words_, temp_, stream); break;
    case 5: records_ = key_and_sort<5>(p, key_bits_, keys_, words_, temp_, stream); break;
    case 6: records_ = key_and_sort<6>(p, key_bits_, keys_, words_, temp_, stream); break;
  }
}

void QueryBinner::release() {
  for (int b = 0; b < 2; ++b) {
    keys_[b].reset();
    words_[b].reset();
  }
  temp_.reset();
  records_ = nullptr;
}

}  // namespace splinebench::gpu
