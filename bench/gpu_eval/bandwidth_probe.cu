#include "bandwidth_probe.hpp"

#include "bench_timing.hpp"
#include "gpu_common/cuda_check.hpp"
#include "gpu_common/device_buffer.hpp"

namespace splinebench::bench {
namespace {

__global__ void read_kernel(const float4* __restrict__ p, std::size_t n, int passes, float* sink) {
  float acc = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (int pass = 0; pass < passes; ++pass)
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
      const float4 v = __ldcg(p + i);
      acc += v.x + v.y + v.z + v.w;
    }
  if (acc == 1234.5f) *sink = acc;  // keeps the loads; practically never stores
}

}  // namespace

double read_bandwidth(std::size_t bytes, int passes, int reps, cudaStream_t stream) {
  const std::size_t n = bytes / sizeof(float4);
  gpu::DeviceBuffer<float4> buf(n);
  gpu::DeviceBuffer<float> sink(1);
  SB_CUDA_CHECK(cudaMemsetAsync(buf.data(), 0, n * sizeof(float4), stream));
  int dev = 0, sms = 0;
  SB_CUDA_CHECK(cudaGetDevice(&dev));
  SB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const Stats s = time_region(stream, 2, reps, [&] {
    read_kernel<<<sms * 8, 256, 0, stream>>>(buf.data(), n, passes, sink.data());
    SB_CUDA_CHECK_LAUNCH("read_kernel");
  });
  return static_cast<double>(n * sizeof(float4)) * passes / s.median;
}

L2Flusher::L2Flusher(std::size_t bytes) : bytes_(bytes) { SB_CUDA_CHECK(cudaMalloc(&buffer_, bytes)); }
L2Flusher::~L2Flusher() {
  if (buffer_) cudaFree(buffer_);
}
void L2Flusher::flush(cudaStream_t stream) { SB_CUDA_CHECK(cudaMemsetAsync(buffer_, 0x5A, bytes_, stream)); }

}  // namespace splinebench::bench
