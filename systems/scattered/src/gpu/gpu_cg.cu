#include "device_cg.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <sstream>

#include "cg_device_loop.cuh"
#include "splinebench/error.hpp"

namespace splinebench::scattered::gpu::detail {

namespace {

void check(cudaError_t err, const char* call, const char* file, int line) {
  if (err == cudaSuccess) return;
  std::ostringstream msg;
  msg << "CUDA error " << cudaGetErrorName(err) << " (" << cudaGetErrorString(err) << ") in " << call << " at "
      << file << ":" << line;
  if (err == cudaErrorMemoryAllocation) throw Unsupported(msg.str());
  throw Error(msg.str());
}
#define SC_CUDA(call) check((call), #call, __FILE__, __LINE__)
#define SC_LAUNCH(what) check(cudaGetLastError(), "launch of " what, __FILE__, __LINE__)

template <typename T>
class DeviceArray {
 public:
  explicit DeviceArray(std::size_t n) : n_(n) {
    if (n) SC_CUDA(cudaMalloc(&ptr_, n * sizeof(T)));
  }
  ~DeviceArray() {
    if (ptr_) cudaFree(ptr_);
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  T* get() const { return ptr_; }
  std::size_t size() const { return n_; }
  void upload(const T* host) { SC_CUDA(cudaMemcpy(ptr_, host, n_ * sizeof(T), cudaMemcpyHostToDevice)); }
  void download(T* host) const { SC_CUDA(cudaMemcpy(host, ptr_, n_ * sizeof(T), cudaMemcpyDeviceToHost)); }

 private:
  T* ptr_ = nullptr;
  std::size_t n_;
};

class Event {
 public:
  Event() { SC_CUDA(cudaEventCreate(&e_)); }
  ~Event() { cudaEventDestroy(e_); }
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_{};
};

constexpr int kBlock = 256;
constexpr int kLanesPerRow = 8;  // rows hold up to 49 (2-D) or 343 (3-D) entries
// y = A x, kLanesPerRow lanes per CSR row.
__global__ void spmv(int rows, const int* __restrict__ outer, const int* __restrict__ inner,
                     const float* __restrict__ value, const float* __restrict__ x, float* __restrict__ y) {
  const long long lane_global = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int row = static_cast<int>(lane_global / kLanesPerRow);
  const int lane = threadIdx.x % kLanesPerRow;
  float sum = 0.f;
  if (row < rows)
    for (int j = outer[row] + lane; j < outer[row + 1]; j += kLanesPerRow) sum += value[j] * x[inner[j]];
  for (int off = kLanesPerRow / 2; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffu, sum, off, kLanesPerRow);
  if (row < rows && lane == 0) y[row] = sum;
}

int blocks_for(long long threads) { return static_cast<int>((threads + kBlock - 1) / kBlock); }

}  // namespace

std::string unavailable_reason() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) return std::string("no CUDA device: ") + cudaGetErrorString(err);
  if (count == 0) return "no CUDA device";
  return "";
}

DeviceCgOutput run_cg(int n, const int* outer, const int* inner, const float* values, const float* rhs, double bnorm,
                      int max_iterations, double tolerance) {
  using Clock = std::chrono::steady_clock;
  DeviceCgOutput out;
  const auto nnz = static_cast<std::size_t>(outer[n]);
  DeviceArray<int> d_outer(static_cast<std::size_t>(n) + 1), d_inner(nnz);
  DeviceArray<float> d_value(nnz), d_x(n), d_r(n), d_p(n), d_ap(n);
  auto t0 = Clock::now();
  d_outer.upload(outer);
  d_inner.upload(inner);
  d_value.upload(values);
  d_r.upload(rhs);
  d_p.upload(rhs);
  SC_CUDA(cudaMemset(d_x.get(), 0, sizeof(float) * static_cast<std::size_t>(n)));
  out.upload_s = std::chrono::duration<double>(Clock::now() - t0).count();

  const auto slots = static_cast<std::size_t>(std::max(max_iterations, 0)) + 1;
  DeviceArray<double> d_partial(kCgDotBlocks), d_rr(slots), d_pap(1);
  DeviceArray<int> d_state(2);  // state, stop_it
  const CgScalars scalars{d_rr.get(), d_pap.get(), d_state.get(), d_state.get() + 1};
  const int spmv_blocks = blocks_for(static_cast<long long>(n) * kLanesPerRow);
  const auto apply = [&](const float* p, float* ap) {
    spmv<<<spmv_blocks, kBlock>>>(n, d_outer.get(), d_inner.get(), d_value.get(), p, ap);
    SC_LAUNCH("spmv");
  };
  const auto cuda_check = [](cudaError_t err, const char* what) { check(err, what, __FILE__, __LINE__); };

  Event start, stop;
  SC_CUDA(cudaEventRecord(start.get()));
  // x0 = 0: r0 = p0 = b.
  const CgDeviceLoopResult res = run_cg_device_loop(n, max_iterations, bnorm, tolerance, d_x.get(), d_r.get(), d_p.get(),
                                                    d_ap.get(), d_partial.get(), scalars, apply, cuda_check);
  SC_CUDA(cudaEventRecord(stop.get()));
  SC_CUDA(cudaEventSynchronize(stop.get()));
  float ms = 0;
  SC_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  out.solve_s = ms * 1e-3;
  std::vector<double> rr(slots);
  d_rr.download(rr.data());
  for (int it = 1; it <= res.iterations; ++it) out.history.push_back(std::sqrt(rr[static_cast<std::size_t>(it)]) / bnorm);
  out.iterations = res.iterations;
  if (res.state == kCgSingular) {
    out.status = DeviceCgOutput::singular;
    std::ostringstream msg;
    msg << "p.Ap = " << res.pap << " at iteration " << res.stop_it << ": not positive definite in f32";
    out.message = msg.str();
  } else if (res.state == kCgDiverged) {
    out.status = DeviceCgOutput::diverged;
    out.message = "non-finite residual at iteration " + std::to_string(res.stop_it);
  } else if (res.state == kCgConverged) {
    out.status = DeviceCgOutput::converged;
  }
  out.x.assign(static_cast<std::size_t>(n), std::nanf(""));  // poisoned: every entry must come back
  t0 = Clock::now();
  d_x.download(out.x.data());
  out.readback_s = std::chrono::duration<double>(Clock::now() - t0).count();
  return out;
}

}  // namespace splinebench::scattered::gpu::detail
