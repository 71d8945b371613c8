#include "device_cg.hpp"

#include <cuda_runtime.h>

#include <cmath>
#include <chrono>
#include <sstream>

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
constexpr int kDotBlocks = 264;  // two waves of an H100's 132 SMs; the second pass sums them

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

// First pass: each block's f64 partial sum of a[i] * b[i].
__global__ void dot_partial(int n, const float* __restrict__ a, const float* __restrict__ b, double* partial) {
  __shared__ double warp_sums[kBlock / 32];
  double s = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    s += static_cast<double>(a[i]) * static_cast<double>(b[i]);
  for (int off = 16; off > 0; off /= 2) s += __shfl_down_sync(0xffffffffu, s, off);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    double t = 0;
    for (int w = 0; w < kBlock / 32; ++w) t += warp_sums[w];
    partial[blockIdx.x] = t;
  }
}

// Second pass: one thread sums the partials in a fixed order.
__global__ void dot_final(int count, const double* partial, double* out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    double t = 0;
    for (int i = 0; i < count; ++i) t += partial[i];
    *out = t;
  }
}

// x += alpha p; r -= alpha ap.
__global__ void update_xr(int n, float alpha, const float* __restrict__ p, const float* __restrict__ ap, float* x,
                          float* r) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] = fmaf(alpha, p[i], x[i]);
    r[i] = fmaf(-alpha, ap[i], r[i]);
  }
}

// p = r + beta p.
__global__ void update_p(int n, float beta, const float* __restrict__ r, float* p) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = fmaf(beta, p[i], r[i]);
}

int blocks_for(long long threads) { return static_cast<int>((threads + kBlock - 1) / kBlock); }

double device_dot(int n, const float* a, const float* b, DeviceArray<double>& partial, DeviceArray<double>& out) {
  dot_partial<<<kDotBlocks, kBlock>>>(n, a, b, partial.get());
  SC_LAUNCH("dot_partial");
  dot_final<<<1, 32>>>(kDotBlocks, partial.get(), out.get());
  SC_LAUNCH("dot_final");
  double h = 0;
  out.download(&h);
  return h;
}

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
  DeviceArray<double> d_partial(kDotBlocks), d_dot(1);
  auto t0 = Clock::now();
  d_outer.upload(outer);
  d_inner.upload(inner);
  d_value.upload(values);
  d_r.upload(rhs);
  d_p.upload(rhs);
  SC_CUDA(cudaMemset(d_x.get(), 0, sizeof(float) * static_cast<std::size_t>(n)));
  out.upload_s = std::chrono::duration<double>(Clock::now() - t0).count();

  Event start, stop;
  SC_CUDA(cudaEventRecord(start.get()));
  // x0 = 0: r0 = p0 = b.
  double rr = device_dot(n, d_r.get(), d_r.get(), d_partial, d_dot);
  const int spmv_blocks = blocks_for(static_cast<long long>(n) * kLanesPerRow);
  const int vec_blocks = blocks_for(n);
  for (int it = 1; it <= max_iterations; ++it) {
    spmv<<<spmv_blocks, kBlock>>>(n, d_outer.get(), d_inner.get(), d_value.get(), d_p.get(), d_ap.get());
    SC_LAUNCH("spmv");
    const double pap = device_dot(n, d_p.get(), d_ap.get(), d_partial, d_dot);
    if (!(pap > 0)) {
      out.status = DeviceCgOutput::singular;
      std::ostringstream msg;
      msg << "p.Ap = " << pap << " at iteration " << it << ": not positive definite in f32";
      out.message = msg.str();
      break;
    }
    const double alpha = rr / pap;
    update_xr<<<vec_blocks, kBlock>>>(n, static_cast<float>(alpha), d_p.get(), d_ap.get(), d_x.get(), d_r.get());
    SC_LAUNCH("update_xr");
    const double rr_next = device_dot(n, d_r.get(), d_r.get(), d_partial, d_dot);
    const double rel = std::sqrt(rr_next) / bnorm;
    out.iterations = it;
    out.history.push_back(rel);
    if (!std::isfinite(rel)) {
      out.status = DeviceCgOutput::diverged;
      out.message = "non-finite residual at iteration " + std::to_string(it);
      break;
    }
    if (tolerance > 0 && rel <= tolerance) {
      out.status = DeviceCgOutput::converged;
      break;
    }
    update_p<<<vec_blocks, kBlock>>>(n, static_cast<float>(rr_next / rr), d_r.get(), d_p.get());
    SC_LAUNCH("update_p");
    rr = rr_next;
  }
  SC_CUDA(cudaEventRecord(stop.get()));
  SC_CUDA(cudaEventSynchronize(stop.get()));
  float ms = 0;
  SC_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  out.solve_s = ms * 1e-3;
  out.x.assign(static_cast<std::size_t>(n), std::nanf(""));  // poisoned: every entry must come back
  t0 = Clock::now();
  d_x.download(out.x.data());
  out.readback_s = std::chrono::duration<double>(Clock::now() - t0).count();
  return out;
}

}  // namespace splinebench::scattered::gpu::detail
