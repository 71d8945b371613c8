#include "device_cg.hpp"

#include <cuda_runtime.h>

#include <algorithm>
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

// The CG loop's scalars stay on the device, so an iteration is seven launches and no
// round trip to the host (which cost about a third of an iteration on a 512^2 image).
// The host looks at `state` every kCheckEvery iterations; the kernels decide the stop
// themselves and do nothing once it is set, so x and r are exactly the iterate at the stop.
struct CgScalars {
  double* rr;   // r.r before iteration 1 (rr[0]) and after each iteration it (rr[it])
  double* pap;  // p.Ap of the current iteration
  int* state;   // CgState
  int* stop_it;  // the iteration that set state
};
enum CgState : int { kRunning = 0, kConverged = 1, kSingular = 2, kDiverged = 3 };
constexpr int kCheckEvery = 16;

// Sums dot_partial's partials in index order (one thread: repeatable bits) into *out; then the stop decision of
// iteration `it`, kept with its iteration in *stop_it. check_pap: p.Ap must be positive
// (else singular, and nothing of the iteration is updated). Otherwise r.r: non-finite is
// divergence, sqrt(r.r) / bnorm <= tolerance (tolerance > 0) convergence.
__global__ void dot_final_decide(int count, const double* partial, double* out, int* state, int* stop_it, int it,
                                 bool check_pap, double bnorm, double tolerance) {
  if (threadIdx.x != 0 || blockIdx.x != 0 || *state != kRunning) return;
  double t = 0;
  for (int i = 0; i < count; ++i) t += partial[i];
  *out = t;
  int decided = kRunning;
  if (check_pap) {
    if (!(t > 0)) decided = kSingular;
  } else if (!isfinite(t)) {
    decided = kDiverged;
  } else if (tolerance > 0 && sqrt(t) / bnorm <= tolerance) {
    decided = kConverged;
  }
  if (decided != kRunning) {
    *state = decided;
    *stop_it = it;
  }
}

// Per-block partial sums of a . b in f64, in a fixed grid-stride order.
__global__ void dot_partial(int n, const float* __restrict__ a, const float* __restrict__ b, double* partial,
                            const int* state) {
  if (*state != kRunning) return;
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

// y = A x, kLanesPerRow lanes per CSR row.
__global__ void spmv(int rows, const int* __restrict__ outer, const int* __restrict__ inner,
                     const float* __restrict__ value, const float* __restrict__ x, float* __restrict__ y,
                     const int* state) {
  if (*state != kRunning) return;
  const long long lane_global = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int row = static_cast<int>(lane_global / kLanesPerRow);
  const int lane = threadIdx.x % kLanesPerRow;
  float sum = 0.f;
  if (row < rows)
    for (int j = outer[row] + lane; j < outer[row + 1]; j += kLanesPerRow) sum += value[j] * x[inner[j]];
  for (int off = kLanesPerRow / 2; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffu, sum, off, kLanesPerRow);
  if (row < rows && lane == 0) y[row] = sum;
}

// alpha = rr[it - 1] / pap, rounded to f32 as the host did.
__global__ void update_xr(int n, CgScalars s, int it, const float* __restrict__ p, const float* __restrict__ ap,
                          float* x, float* r) {
  if (*s.state != kRunning) return;
  const float alpha = static_cast<float>(s.rr[it - 1] / *s.pap);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] = fmaf(alpha, p[i], x[i]);
    r[i] = fmaf(-alpha, ap[i], r[i]);
  }
}

// beta = rr[it] / rr[it - 1].
__global__ void update_p(int n, CgScalars s, int it, const float* __restrict__ r, float* p) {
  if (*s.state != kRunning) return;
  const float beta = static_cast<float>(s.rr[it] / s.rr[it - 1]);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = fmaf(beta, p[i], r[i]);
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
  DeviceArray<double> d_partial(kDotBlocks);
  auto t0 = Clock::now();
  d_outer.upload(outer);
  d_inner.upload(inner);
  d_value.upload(values);
  d_r.upload(rhs);
  d_p.upload(rhs);
  SC_CUDA(cudaMemset(d_x.get(), 0, sizeof(float) * static_cast<std::size_t>(n)));
  out.upload_s = std::chrono::duration<double>(Clock::now() - t0).count();

  const auto slots = static_cast<std::size_t>(std::max(max_iterations, 0)) + 1;
  DeviceArray<double> d_rr(slots), d_pap(1);
  DeviceArray<int> d_state(2);  // state, stop_it
  SC_CUDA(cudaMemset(d_state.get(), 0, 2 * sizeof(int)));
  const CgScalars scalars{d_rr.get(), d_pap.get(), d_state.get(), d_state.get() + 1};

  Event start, stop;
  SC_CUDA(cudaEventRecord(start.get()));
  // x0 = 0: r0 = p0 = b.
  const int spmv_blocks = blocks_for(static_cast<long long>(n) * kLanesPerRow);
  const int vec_blocks = blocks_for(n);
  dot_partial<<<kDotBlocks, kBlock>>>(n, d_r.get(), d_r.get(), d_partial.get(), scalars.state);
  SC_LAUNCH("dot_partial");
  dot_final_decide<<<1, 32>>>(kDotBlocks, d_partial.get(), d_rr.get(), scalars.state, scalars.stop_it, 0, false, bnorm,
                              0.0);
  SC_LAUNCH("dot_final_decide");
  int launched = 0;
  int state[2] = {kRunning, 0};
  while (launched < max_iterations && state[0] == kRunning) {
    const int batch = std::min(kCheckEvery, max_iterations - launched);
    for (int k = 1; k <= batch; ++k) {
      const int it = launched + k;
      spmv<<<spmv_blocks, kBlock>>>(n, d_outer.get(), d_inner.get(), d_value.get(), d_p.get(), d_ap.get(),
                                            scalars.state);
      SC_LAUNCH("spmv");
      dot_partial<<<kDotBlocks, kBlock>>>(n, d_p.get(), d_ap.get(), d_partial.get(), scalars.state);
      SC_LAUNCH("dot_partial");
      dot_final_decide<<<1, 32>>>(kDotBlocks, d_partial.get(), d_pap.get(), scalars.state, scalars.stop_it, it, true,
                                  bnorm, 0.0);
      SC_LAUNCH("dot_final_decide");
      update_xr<<<vec_blocks, kBlock>>>(n, scalars, it, d_p.get(), d_ap.get(), d_x.get(), d_r.get());
      SC_LAUNCH("update_xr");
      dot_partial<<<kDotBlocks, kBlock>>>(n, d_r.get(), d_r.get(), d_partial.get(), scalars.state);
      SC_LAUNCH("dot_partial");
      dot_final_decide<<<1, 32>>>(kDotBlocks, d_partial.get(), d_rr.get() + it, scalars.state, scalars.stop_it, it,
                                  false, bnorm, tolerance);
      SC_LAUNCH("dot_final_decide");
      update_p<<<vec_blocks, kBlock>>>(n, scalars, it, d_r.get(), d_p.get());
      SC_LAUNCH("update_p");
    }
    launched += batch;
    SC_CUDA(cudaMemcpy(state, d_state.get(), 2 * sizeof(int), cudaMemcpyDeviceToHost));
  }
  // Iterations run: all launched, or up to the stop (a singular p.Ap stops before its
  // iteration updates anything; a converged or non-finite r.r ends its iteration).
  const int done = state[0] == kRunning ? launched : state[0] == kSingular ? state[1] - 1 : state[1];
  std::vector<double> rr(slots);
  SC_CUDA(cudaMemcpy(rr.data(), d_rr.get(), slots * sizeof(double), cudaMemcpyDeviceToHost));
  double pap = 0;
  SC_CUDA(cudaMemcpy(&pap, d_pap.get(), sizeof(double), cudaMemcpyDeviceToHost));
  for (int it = 1; it <= done; ++it) out.history.push_back(std::sqrt(rr[static_cast<std::size_t>(it)]) / bnorm);
  out.iterations = std::max(done, 0);
  if (state[0] == kSingular) {
    out.status = DeviceCgOutput::singular;
    std::ostringstream msg;
    msg << "p.Ap = " << pap << " at iteration " << state[1] << ": not positive definite in f32";
    out.message = msg.str();
  } else if (state[0] == kDiverged) {
    out.status = DeviceCgOutput::diverged;
    out.message = "non-finite residual at iteration " + std::to_string(state[1]);
  } else if (state[0] == kConverged) {
    out.status = DeviceCgOutput::converged;
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
