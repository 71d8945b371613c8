// CG's scalars on the device (gpu_cg.cu on the CSR, operator.cu on the matrix-free
// operator): alpha, beta and the stop decision never travel to the host inside the loop,
// so an iteration is a chain of launches without a round trip (two per iteration cost
// about a third of an iteration on a 512^2 image). The host reads the state every
// kCgCheckEvery iterations; the kernels decide the stop themselves and do nothing once it
// is set, so x and r are exactly the iterate at the stop. alpha and beta are formed in f64
// from f64 dot products and rounded to f32, as a host-driven loop forms them.
#pragma once

#include <cuda_runtime.h>

#include "block_sums.cuh"

namespace splinebench::scattered::gpu::detail {
namespace {

enum CgState : int { kCgRunning = 0, kCgConverged = 1, kCgSingular = 2, kCgDiverged = 3 };
inline constexpr int kCgCheckEvery = 16;
inline constexpr int kCgThreads = 256;
inline constexpr int kCgDotBlocks = 264;  // two waves of an H100's 132 SMs; one thread sums them

struct CgScalars {
  double* rr;    // r.r before iteration 1 (rr[0]) and after each iteration it (rr[it])
  double* pap;   // p.Ap of the current iteration
  int* state;    // CgState
  int* stop_it;  // the iteration that set state
};

// Per-block partial sums of a . b in f64, in a fixed grid-stride order.
__global__ void cg_dot_partial(long long n, const float* __restrict__ a, const float* __restrict__ b, double* partial,
                               const int* state) {
  if (*state != kCgRunning) return;
  store_block_sum<kCgThreads>(grid_stride_dot(n, a, b), partial);
}

// Sums cg_dot_partial's partials into *out with one warp in a fixed order (lane l takes
// partials l, l + 32, ...; then a butterfly), so the bits repeat from run to run; then the
// stop decision of iteration `it`, kept with its iteration in *stop_it.
// check_pap: p.Ap must be positive (else singular, and nothing of the iteration is
// updated). Otherwise r.r: non-finite is divergence, sqrt(r.r) / bnorm <= tolerance
// (tolerance > 0) convergence.
__global__ void cg_dot_final_decide(const double* partial, double* out, CgScalars s, int it, bool check_pap,
                                    double bnorm, double tolerance) {
  if (blockIdx.x != 0 || threadIdx.x >= 32 || *s.state != kCgRunning) return;
  const double t = warp_sum_of_partials<kCgDotBlocks>(partial);
  if (threadIdx.x != 0) return;
  *out = t;
  int decided = kCgRunning;
  if (check_pap) {
    if (!(t > 0)) decided = kCgSingular;
  } else if (!isfinite(t)) {
    decided = kCgDiverged;
  } else if (tolerance > 0 && sqrt(t) / bnorm <= tolerance) {
    decided = kCgConverged;
  }
  if (decided != kCgRunning) {
    *s.state = decided;
    *s.stop_it = it;
  }
}

// x += alpha p, r -= alpha A p with alpha = rr[it - 1] / pap rounded to f32.
__global__ void cg_update_xr(long long n, CgScalars s, int it, const float* __restrict__ p,
                             const float* __restrict__ ap, float* x, float* r) {
  if (*s.state != kCgRunning) return;
  const float alpha = static_cast<float>(s.rr[it - 1] / *s.pap);
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] = fmaf(alpha, p[i], x[i]);
    r[i] = fmaf(-alpha, ap[i], r[i]);
  }
}

// p = r + beta p with beta = rr[it] / rr[it - 1] rounded to f32.
__global__ void cg_update_p(long long n, CgScalars s, int it, const float* __restrict__ r, float* p) {
  if (*s.state != kCgRunning) return;
  const float beta = static_cast<float>(s.rr[it] / s.rr[it - 1]);
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) p[i] = fmaf(beta, p[i], r[i]);
}

// The loop itself, on device buffers: x = 0, r = p = b on entry; apply(p, ap) launches
// A p (it may ignore the state: its output is unused once the state is set); check(err,
// what) throws on a CUDA error. s.rr holds max_iterations + 1 doubles, s.pap 1, s.state
// and s.stop_it two adjacent ints, partial kCgDotBlocks doubles. Returns the iterations
// run, the state and its iteration, and the last p.Ap.
struct CgDeviceLoopResult {
  int iterations = 0;
  int state = kCgRunning;
  int stop_it = 0;
  double pap = 0;  // p.Ap at the stop (the singular value)
};

template <typename Apply, typename Check>
CgDeviceLoopResult run_cg_device_loop(long long n, int max_iterations, double bnorm, double tolerance, float* x,
                                      float* r, float* p, float* ap, double* partial, const CgScalars& s,
                                      const Apply& apply, const Check& check) {
  const auto vec_blocks = static_cast<unsigned>((n + kCgThreads - 1) / kCgThreads);
  check(cudaMemset(s.state, 0, 2 * sizeof(int)), "cudaMemset(state)");
  cg_dot_partial<<<kCgDotBlocks, kCgThreads>>>(n, r, r, partial, s.state);
  check(cudaGetLastError(), "launch of cg_dot_partial");
  cg_dot_final_decide<<<1, 32>>>(partial, s.rr, s, 0, false, bnorm, 0.0);
  check(cudaGetLastError(), "launch of cg_dot_final_decide");
  int launched = 0;
  int state[2] = {kCgRunning, 0};
  while (launched < max_iterations && state[0] == kCgRunning) {
    const int batch = max_iterations - launched < kCgCheckEvery ? max_iterations - launched : kCgCheckEvery;
    for (int k = 1; k <= batch; ++k) {
      const int it = launched + k;
      apply(p, ap);
      cg_dot_partial<<<kCgDotBlocks, kCgThreads>>>(n, p, ap, partial, s.state);
      check(cudaGetLastError(), "launch of cg_dot_partial");
      cg_dot_final_decide<<<1, 32>>>(partial, s.pap, s, it, true, bnorm, 0.0);
      check(cudaGetLastError(), "launch of cg_dot_final_decide");
      cg_update_xr<<<vec_blocks, kCgThreads>>>(n, s, it, p, ap, x, r);
      check(cudaGetLastError(), "launch of cg_update_xr");
      cg_dot_partial<<<kCgDotBlocks, kCgThreads>>>(n, r, r, partial, s.state);
      check(cudaGetLastError(), "launch of cg_dot_partial");
      cg_dot_final_decide<<<1, 32>>>(partial, s.rr + it, s, it, false, bnorm, tolerance);
      check(cudaGetLastError(), "launch of cg_dot_final_decide");
      cg_update_p<<<vec_blocks, kCgThreads>>>(n, s, it, r, p);
      check(cudaGetLastError(), "launch of cg_update_p");
    }
    launched += batch;
    check(cudaMemcpy(state, s.state, 2 * sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy(state)");
  }
  CgDeviceLoopResult res;
  res.state = state[0];
  res.stop_it = state[1];
  // A singular p.Ap stops before its iteration updates anything; a converged or
  // non-finite r.r ends its iteration.
  res.iterations = state[0] == kCgRunning ? launched : state[0] == kCgSingular ? state[1] - 1 : state[1];
  if (res.iterations < 0) res.iterations = 0;
  check(cudaMemcpy(&res.pap, s.pap, sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy(pap)");
  return res;
}

}  // namespace
}  // namespace splinebench::scattered::gpu::detail
