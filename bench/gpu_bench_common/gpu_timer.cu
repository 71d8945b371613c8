#include "gpu_timer.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "splinebench/cuda/check.hpp"

namespace splinebench::bench {
namespace {

__device__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin_for(std::uint64_t ns) {
  const std::uint64_t start = global_ns();
  while (global_ns() - start < ns) __nanosleep(1000);
}

// Reads every float4 and stores nothing: the buffer holds zeros, so the sum never
// matches and the cache gets no dirty line from here, while the store's dependence on
// every load keeps the loads.
__global__ void read_everything(const float4* __restrict__ data, std::size_t n4, float* sink, int sink_len) {
  float sum = 0.f;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride) {
    const float4 v = data[i];
    sum += v.x + v.y + v.z + v.w;
  }
  if (sum == 1.2345678e30f) sink[blockIdx.x % sink_len] = sum;
}

// The same loads through L2 only (__ldcg), `passes` times: the bandwidth probe.
__global__ void read_passes(const float4* __restrict__ p, std::size_t n, int passes, float* sink) {
  float acc = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (int pass = 0; pass < passes; ++pass)
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
      const float4 v = __ldcg(p + i);
      acc += v.x + v.y + v.z + v.w;
    }
  if (acc == 1234.5f) *sink = acc;
}

int device_attribute(cudaDeviceAttr a) {
  int dev = 0, v = 0;
  SB_CUDA_CHECK(cudaGetDevice(&dev));
  SB_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, dev));
  return v;
}

}  // namespace

namespace {
__global__ void empty_kernel() {}
}  // namespace

void launch_empty(cudaStream_t stream) {
  empty_kernel<<<1, 32, 0, stream>>>();
  SB_CUDA_CHECK_LAUNCH("bench empty_kernel");
}

void hold_stream(cudaStream_t stream, double microseconds) {
  if (microseconds <= 0) return;
  spin_for<<<1, 1, 0, stream>>>(static_cast<std::uint64_t>(microseconds * 1e3));
  SB_CUDA_CHECK_LAUNCH("bench hold_stream");
}

GpuTimer::GpuTimer(cudaStream_t stream, TimingSettings settings) : stream_(stream), settings_(settings) {
  SB_CUDA_CHECK(cudaEventCreate(&start_));
  SB_CUDA_CHECK(cudaEventCreate(&stop_));
}

GpuTimer::~GpuTimer() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

void GpuTimer::ensure_conditioning_buffers() {
  if (dirty_.size()) return;
  // max(256 MiB, 4 x L2) bytes, a whole number of float4.
  const std::size_t l2 = static_cast<std::size_t>(device_attribute(cudaDevAttrL2CacheSize));
  const std::size_t bytes = std::max<std::size_t>(std::size_t{256} << 20, 4 * l2);
  const std::size_t n = bytes / 16 * 4;
  dirty_.resize(n);
  clean_.resize(n);
  sink_.resize(1024);
  // The clean buffer is zeroed once, then its dirty lines are evicted by the memset of
  // the other buffer; from then on nothing writes it.
  SB_CUDA_CHECK(cudaMemsetAsync(clean_.data(), 0, clean_.bytes(), stream_));
  SB_CUDA_CHECK(cudaMemsetAsync(dirty_.data(), 0, dirty_.bytes(), stream_));
  SB_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void GpuTimer::condition(L2State state) {
  if (state == L2State::hot) return;
  ensure_conditioning_buffers();
  if (state == L2State::cold) {
    SB_CUDA_CHECK(cudaMemsetAsync(dirty_.data(), 0, dirty_.bytes(), stream_));
  } else {
    read_everything<<<1024, 256, 0, stream_>>>(reinterpret_cast<const float4*>(clean_.data()), clean_.size() / 4,
                                               sink_.data(), static_cast<int>(sink_.size()));
    SB_CUDA_CHECK_LAUNCH("bench read_everything");
  }
}

double GpuTimer::time_once(const Region& region, double* enqueue_s) {
  hold();
  SB_CUDA_CHECK(cudaEventRecord(start_, stream_));
  const auto t0 = std::chrono::steady_clock::now();
  region();
  const double enqueue = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  SB_CUDA_CHECK(cudaEventRecord(stop_, stream_));
  SB_CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0;
  SB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  if (enqueue_s) *enqueue_s = enqueue;
  return ms * 1e-3;
}

Measurement GpuTimer::measure(const Region& region, L2State state) {
  return measure(region, state, settings_.warmups, settings_.repetitions);
}

Measurement GpuTimer::measure(const Region& region, L2State state, int warmups, int repetitions) {
  std::vector<double> gpu, host;
  long outlasted = 0;
  for (int r = 0; r < warmups + repetitions; ++r) {
    condition(state);
    double enqueue = 0;
    const double t = time_once(region, &enqueue);
    if (r < warmups) continue;
    gpu.push_back(t);
    host.push_back(enqueue);
    if (settings_.hold_us > 0 && enqueue * 1e6 >= settings_.hold_us) ++outlasted;
  }
  return {runner::summarize(std::move(gpu)), runner::summarize(std::move(host)), outlasted};
}

std::map<std::string, std::map<L2State, Measurement>> GpuTimer::measure_interleaved(
    const std::vector<std::pair<std::string, Region>>& ops, const std::vector<L2State>& states) {
  std::map<std::string, std::map<L2State, std::vector<double>>> gpu, host;
  std::map<std::string, std::map<L2State, long>> outlasted;
  for (int r = 0; r < settings_.warmups + settings_.repetitions; ++r)
    for (const auto& [name, region] : ops)
      for (L2State state : states) {
        condition(state);
        double enqueue = 0;
        const double t = time_once(region, &enqueue);
        if (r < settings_.warmups) continue;
        gpu[name][state].push_back(t);
        host[name][state].push_back(enqueue);
        if (settings_.hold_us > 0 && enqueue * 1e6 >= settings_.hold_us) ++outlasted[name][state];
      }
  std::map<std::string, std::map<L2State, Measurement>> result;
  for (const auto& [name, region] : ops)
    for (L2State state : states)
      result[name][state] = {runner::summarize(gpu[name][state]), runner::summarize(host[name][state]),
                             outlasted[name][state]};
  return result;
}

double read_bandwidth(GpuTimer& timer, std::size_t bytes, int passes) {
  const std::size_t n = bytes / sizeof(float4);
  gpu::DeviceBuffer<float4> buf(n);
  gpu::DeviceBuffer<float> sink(1);
  SB_CUDA_CHECK(cudaMemsetAsync(buf.data(), 0, n * sizeof(float4), timer.stream()));
  const int sms = device_attribute(cudaDevAttrMultiProcessorCount);
  const Measurement m = timer.measure(
      [&] {
        read_passes<<<sms * 8, 256, 0, timer.stream()>>>(buf.data(), n, passes, sink.data());
        SB_CUDA_CHECK_LAUNCH("bench read_passes");
      },
      L2State::hot, 2, timer.settings().repetitions);
  return static_cast<double>(n * sizeof(float4)) * passes / m.gpu.median;
}

}  // namespace splinebench::bench
