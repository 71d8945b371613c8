#include "device_cg.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <sstream>

#include "cg_device_loop.cuh"
#include "cuda_support.cuh"
#include "device_system.cuh"
#include "splinebench/error.hpp"

namespace splinebench::scattered::gpu::detail {

namespace {

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

// The assembly's f64 values rounded once to the solver's f32.
__global__ void narrow(long long n, const double* __restrict__ in, float* __restrict__ out) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<float>(in[i]);
}

}  // namespace

std::string unavailable_reason() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) return std::string("no CUDA device: ") + cudaGetErrorString(err);
  if (count == 0) return "no CUDA device";
  return "";
}

double peak_bandwidth() {
  int device = 0, khz = 0, bits = 0;
  SB_CUDA_CHECK(cudaGetDevice(&device));
  SB_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device));
  SB_CUDA_CHECK(cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, device));
  return 2.0 * khz * 1e3 * bits / 8;  // two transfers a clock (HBM, GDDR)
}

struct DeviceCg::State {
  int n = 0;
  DeviceBuffer<int> outer, inner;  // empty when the pattern is a DeviceSystem's
  const int* outer_at = nullptr;
  const int* inner_at = nullptr;
  DeviceBuffer<float> value, b, x, r, p, ap;
};

DeviceCg::DeviceCg(int n, const int* outer, const int* inner, const float* values, const float* rhs)
    : s_(std::make_unique<State>()) {
  using Clock = std::chrono::steady_clock;
  const auto nnz = static_cast<std::size_t>(outer[n]);
  const auto un = static_cast<std::size_t>(n);
  State& s = *s_;
  s.n = n;
  s.outer.resize(un + 1);
  s.inner.resize(nnz);
  s.value.resize(nnz);
  for (DeviceBuffer<float>* v : {&s.b, &s.x, &s.r, &s.p, &s.ap}) v->resize(un);
  const auto t0 = Clock::now();
  s.outer.upload(outer);
  s.inner.upload(inner);
  s.value.upload(values);
  s.b.upload(rhs);
  upload_s = std::chrono::duration<double>(Clock::now() - t0).count();
  s.outer_at = s.outer.data();
  s.inner_at = s.inner.data();
}

DeviceCg::DeviceCg(const DeviceSystem& system) : s_(std::make_unique<State>()) {
  const DeviceSystem::State& sys = system.state();
  State& s = *s_;
  s.n = static_cast<int>(sys.rows);
  const auto un = static_cast<std::size_t>(sys.rows);
  s.value.resize(sys.nnz);
  for (DeviceBuffer<float>* v : {&s.b, &s.x, &s.r, &s.p, &s.ap}) v->resize(un);
  s.outer_at = sys.outer.data();
  s.inner_at = sys.inner.data();
  narrow<<<blocks_for(static_cast<long long>(sys.nnz)), kThreads>>>(static_cast<long long>(sys.nnz), sys.value.data(),
                                                                    s.value.data());
  SB_CUDA_CHECK_LAUNCH("narrow values");
  narrow<<<blocks_for(sys.rows), kThreads>>>(sys.rows, sys.rhs.data(), s.b.data());
  SB_CUDA_CHECK_LAUNCH("narrow rhs");
}

DeviceCg::~DeviceCg() = default;

DeviceCgOutput DeviceCg::solve(double bnorm, int max_iterations, double tolerance) {
  using Clock = std::chrono::steady_clock;
  State& s = *s_;
  const int n = s.n;
  const auto bytes = sizeof(float) * static_cast<std::size_t>(n);
  DeviceCgOutput out;
  // x0 = 0: r0 = p0 = b.
  SB_CUDA_CHECK(cudaMemset(s.x.data(), 0, bytes));
  SB_CUDA_CHECK(cudaMemcpy(s.r.data(), s.b.data(), bytes, cudaMemcpyDeviceToDevice));
  SB_CUDA_CHECK(cudaMemcpy(s.p.data(), s.b.data(), bytes, cudaMemcpyDeviceToDevice));

  const auto slots = static_cast<std::size_t>(std::max(max_iterations, 0)) + 1;
  DeviceBuffer<double> d_partial(kCgDotBlocks), d_rr(slots), d_pap(1);
  DeviceBuffer<int> d_state(2);  // state, stop_it
  const CgScalars scalars{d_rr.data(), d_pap.data(), d_state.data(), d_state.data() + 1};
  const int spmv_blocks = blocks_for(static_cast<long long>(n) * kLanesPerRow);
  const auto apply = [&](const float* p, float* ap) {
    spmv<<<spmv_blocks, kThreads>>>(n, s.outer_at, s.inner_at, s.value.data(), p, ap);
    SB_CUDA_CHECK_LAUNCH("spmv");
  };
  const auto cuda_check = [](cudaError_t err, const char* what) { check_cuda(err, what, __FILE__, __LINE__); };

  Event start, stop;
  start.record();
  const CgDeviceLoopResult res =
      run_cg_device_loop(n, max_iterations, bnorm, tolerance, s.x.data(), s.r.data(), s.p.data(), s.ap.data(),
                         d_partial.data(), scalars, apply, cuda_check);
  stop.record();
  out.solve_s = stop.seconds_since(start);
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
  const auto t0 = Clock::now();
  s.x.download(out.x.data());
  out.readback_s = std::chrono::duration<double>(Clock::now() - t0).count();
  return out;
}

}  // namespace splinebench::scattered::gpu::detail
