// The element-wise vector kernels of CG on f32 device vectors (n elements, one thread
// each), shared by the matrix-free CG (operator.cu) and the multigrid (multigrid.cu).
#pragma once

namespace splinebench::scattered::gpu::detail {
namespace {

// r = b - a (a residual b - A x with a = A x).
__global__ void residual(long long n, const float* __restrict__ b, const float* __restrict__ a, float* __restrict__ r) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) r[i] = b[i] - a[i];
}

// x += alpha p, r -= alpha A p.
__global__ void update_xr(long long n, float alpha, const float* __restrict__ p, const float* __restrict__ ap, float* x,
                          float* r) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] = fmaf(alpha, p[i], x[i]);
    r[i] = fmaf(-alpha, ap[i], r[i]);
  }
}

// p = z + beta p (z the residual, or the preconditioned one).
__global__ void update_p(long long n, float beta, const float* __restrict__ z, float* p) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) p[i] = fmaf(beta, p[i], z[i]);
}

}  // namespace
}  // namespace splinebench::scattered::gpu::detail
