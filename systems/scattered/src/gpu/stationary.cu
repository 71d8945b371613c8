// Jacobi and coloured Gauss-Seidel on the device (gpu_stationary.hpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "cuda_support.cuh"
#include "device_stationary.hpp"

namespace splinebench::scattered::gpu::detail {

namespace {

struct Csr {
  int n;
  const int* outer;
  const int* inner;
  const float* value;
  const float* diagonal;
  const float* rhs;
};

// b_row - sum over the off-diagonal entries of a x, in the CSR's column order.
__device__ inline float off_diagonal_residual(const Csr& a, int row, const float* x) {
  float s = a.rhs[row];
  for (int j = a.outer[row]; j < a.outer[row + 1]; ++j)
    if (a.inner[j] != row) s = fmaf(-a.value[j], x[a.inner[j]], s);
  return s;
}

__global__ void jacobi_step(Csr a, float omega, const float* __restrict__ x, float* __restrict__ next) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= a.n) return;
  float s = a.rhs[row];
  for (int j = a.outer[row]; j < a.outer[row + 1]; ++j) s = fmaf(-a.value[j], x[a.inner[j]], s);
  next[row] = fmaf(omega / a.diagonal[row], s, x[row]);
}

__global__ void colour_values(Csr a, int count, const int* __restrict__ members, const float* x, float* next) {
  const int m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= count) return;
  const int row = members[m];
  next[m] = off_diagonal_residual(a, row, x) / a.diagonal[row];
}

__global__ void colour_write(int count, const int* __restrict__ members, const float* __restrict__ next, float* x) {
  const int m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m < count) x[members[m]] = next[m];
}

__global__ void residual(Csr a, const float* __restrict__ x, float* __restrict__ r) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= a.n) return;
  float s = a.rhs[row];
  for (int j = a.outer[row]; j < a.outer[row + 1]; ++j) s = fmaf(-a.value[j], x[a.inner[j]], s);
  r[row] = s;
}

template <typename T>
void upload_vector(DeviceBuffer<T>& buf, const T* host, std::size_t n) {
  buf.resize(n);
  if (n) buf.upload(host);
}

}  // namespace

StationaryOutput run_stationary(const StationaryInput& in) {
  using Clock = std::chrono::steady_clock;
  StationaryOutput out;
  const int n = in.n;
  const auto un = static_cast<std::size_t>(n);
  const auto nnz = static_cast<std::size_t>(in.outer[n]);
  auto t0 = Clock::now();
  DeviceBuffer<int> outer, inner, members;
  DeviceBuffer<float> value, diagonal, rhs, x(un), other(un), previous(un), r(un), next(in.members.size() + 1);
  upload_vector(outer, in.outer, un + 1);
  upload_vector(inner, in.inner, nnz);
  upload_vector(value, in.value, nnz);
  upload_vector(diagonal, in.diagonal, un);
  upload_vector(rhs, in.rhs, un);
  upload_vector(members, in.members.data(), in.members.size());
  SCG_CUDA(cudaMemset(x.get(), 0, un * sizeof(float)));
  SCG_CUDA(cudaDeviceSynchronize());
  out.upload_s = std::chrono::duration<double>(Clock::now() - t0).count();
  const Csr a{n, outer.get(), inner.get(), value.get(), diagonal.get(), rhs.get()};
  DotProduct dot;
  const int colours = in.colour_offset.empty() ? 0 : static_cast<int>(in.colour_offset.size()) - 1;
  auto sweep = [&](bool forward) {
    for (int step = 0; step < colours; ++step) {
      const int c = forward ? step : colours - 1 - step;
      const int first = in.colour_offset[static_cast<std::size_t>(c)];
      const int count = in.colour_offset[static_cast<std::size_t>(c) + 1] - first;
      if (count == 0) continue;
      colour_values<<<blocks_for(count), kThreads>>>(a, count, members.get() + first, x.get(), next.get());
      SCG_LAUNCH("colour_values");
      colour_write<<<blocks_for(count), kThreads>>>(count, members.get() + first, next.get(), x.get());
      SCG_LAUNCH("colour_write");
    }
  };

  DeviceEvent start, stop;
  start.record();
  const double scale = in.bnorm > 0 ? in.bnorm : 1.0;
  residual<<<blocks_for(n), kThreads>>>(a, x.get(), r.get());
  SCG_LAUNCH("residual");
  const double r0 = std::sqrt(dot(n, r.get(), r.get()));
  const double limit = in.divergence_factor * std::max(r0, in.bnorm);
  for (int it = 1; it <= in.max_iterations; ++it) {
    SCG_CUDA(cudaMemcpyAsync(previous.get(), x.get(), un * sizeof(float), cudaMemcpyDeviceToDevice));
    if (colours == 0) {
      jacobi_step<<<blocks_for(n), kThreads>>>(a, static_cast<float>(in.omega), x.get(), other.get());
      SCG_LAUNCH("jacobi_step");
      SCG_CUDA(cudaMemcpyAsync(x.get(), other.get(), un * sizeof(float), cudaMemcpyDeviceToDevice));
    } else {
      sweep(true);
      if (in.symmetric) sweep(false);
    }
    residual<<<blocks_for(n), kThreads>>>(a, x.get(), r.get());
    SCG_LAUNCH("residual");
    const double rn = std::sqrt(dot(n, r.get(), r.get()));
    if (!std::isfinite(rn) || rn > limit) {
      SCG_CUDA(cudaMemcpy(x.get(), previous.get(), un * sizeof(float), cudaMemcpyDeviceToDevice));
      out.status = StationaryOutput::diverged;
      std::ostringstream msg;
      msg << "diverged at iteration " << it << ": ||r|| = " << rn << " against " << r0 << " at the start";
      out.message = msg.str();
      break;
    }
    out.history.push_back(rn / scale);
    out.iterations = it;
    if (in.tolerance > 0 && rn / scale <= in.tolerance) {
      out.status = StationaryOutput::converged;
      break;
    }
  }
  stop.record();
  out.solve_s = stop.seconds_since(start);
  t0 = Clock::now();
  out.x.resize(un);
  x.download(out.x.data());
  out.readback_s = std::chrono::duration<double>(Clock::now() - t0).count();
  return out;
}

}  // namespace splinebench::scattered::gpu::detail
