#include "gpu_half/half_storage.hpp"

#include <algorithm>
#include <string>

#include "splinebench/cuda/check.hpp"
#include "splinebench/cuda/device_buffer.hpp"
#include "splinebench/error.hpp"

namespace splinebench::gpu {
namespace {

constexpr int kBlock = 256;
constexpr std::int64_t kMaxGridY = 65535;

// blockIdx.y walks the fields (strided by gridDim.y), x a grid-stride loop inside one.
// Non-negative floats order like their bit patterns: the maxima reduce as integers.
__global__ void __launch_bounds__(kBlock)
    magnitudes_kernel(const float* data, std::int64_t fields, std::int64_t field_values, unsigned* max_bits,
                      double* sum_squares) {
  for (std::int64_t f = blockIdx.y; f < fields; f += gridDim.y) {
    const float* v = data + f * field_values;
    unsigned m = 0;
    double s = 0;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < field_values;
         i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
      const float x = v[i];
      m = max(m, __float_as_uint(fabsf(x)));
      s += static_cast<double>(x) * x;
    }
    m = __reduce_max_sync(0xffffffffu, m);
    for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0) {
      atomicMax(max_bits + f, m);
      atomicAdd(sum_squares + f, s);
    }
  }
}

template <typename S>
__device__ __forceinline__ S narrow(float x);
template <>
__device__ __forceinline__ __half narrow<__half>(float x) { return __float2half_rn(x); }
template <>
__device__ __forceinline__ __nv_bfloat16 narrow<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

template <typename S>
__global__ void store_kernel(const float* in, S* out, std::int64_t count) {
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    out[i] = narrow<S>(in[i]);
}

template <typename S>
__global__ void widen_kernel(const S* in, float* out, std::int64_t count) {
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    out[i] = static_cast<float>(in[i]);
}

unsigned blocks_for(std::int64_t count) {
  return static_cast<unsigned>(std::clamp<std::int64_t>((count + kBlock - 1) / kBlock, 1, 8192));
}

template <typename S>
void launch_store(const float* d_in, S* d_out, std::int64_t count, cudaStream_t stream) {
  if (count <= 0) return;
  store_kernel<S><<<blocks_for(count), kBlock, 0, stream>>>(d_in, d_out, count);
  SB_CUDA_CHECK_LAUNCH("store_kernel");
}

template <typename S>
void launch_widen(const S* d_in, float* d_out, std::int64_t count, cudaStream_t stream) {
  if (count <= 0) return;
  widen_kernel<S><<<blocks_for(count), kBlock, 0, stream>>>(d_in, d_out, count);
  SB_CUDA_CHECK_LAUNCH("widen_kernel");
}

}  // namespace

FieldMagnitudes field_magnitudes(const float* d_data, std::int64_t fields, std::int64_t field_values,
                                 cudaStream_t stream) {
  if (fields < 1 || field_values < 1) throw Error("field_magnitudes: empty batch");
  const auto nf = static_cast<std::size_t>(fields);
  DeviceBuffer<unsigned> max_bits(nf);
  DeviceBuffer<double> sums(nf);
  SB_CUDA_CHECK(cudaMemsetAsync(max_bits.data(), 0, nf * sizeof(unsigned), stream));
  SB_CUDA_CHECK(cudaMemsetAsync(sums.data(), 0, nf * sizeof(double), stream));
  // Whole warps only (the warp reductions assume all 32 lanes are present).
  const unsigned bx = static_cast<unsigned>(std::clamp<std::int64_t>((field_values + kBlock - 1) / kBlock, 1, 1024));
  const unsigned by = static_cast<unsigned>(std::min(fields, kMaxGridY));
  magnitudes_kernel<<<dim3(bx, by), kBlock, 0, stream>>>(d_data, fields, field_values, max_bits.data(), sums.data());
  SB_CUDA_CHECK_LAUNCH("magnitudes_kernel");
  std::vector<unsigned> bits(nf);
  FieldMagnitudes m;
  m.sum_squares.resize(nf);
  SB_CUDA_CHECK(cudaMemcpyAsync(bits.data(), max_bits.data(), nf * sizeof(unsigned), cudaMemcpyDeviceToHost, stream));
  SB_CUDA_CHECK(
      cudaMemcpyAsync(m.sum_squares.data(), sums.data(), nf * sizeof(double), cudaMemcpyDeviceToHost, stream));
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  m.max_abs.resize(nf);
  for (std::size_t f = 0; f < nf; ++f) m.max_abs[f] = __builtin_bit_cast(float, bits[f]);
  return m;
}

void store_reduced(const float* d_in, __half* d_out, std::int64_t count, cudaStream_t stream) {
  launch_store(d_in, d_out, count, stream);
}
void store_reduced(const float* d_in, __nv_bfloat16* d_out, std::int64_t count, cudaStream_t stream) {
  launch_store(d_in, d_out, count, stream);
}
void widen(const __half* d_in, float* d_out, std::int64_t count, cudaStream_t stream) {
  launch_widen(d_in, d_out, count, stream);
}
void widen(const __nv_bfloat16* d_in, float* d_out, std::int64_t count, cudaStream_t stream) {
  launch_widen(d_in, d_out, count, stream);
}

}  // namespace splinebench::gpu
