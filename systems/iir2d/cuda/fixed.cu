// The seed's fixed allocation: the host walks the wavefront t = i + j and launches one
// kernel per step, one 32-thread block per element of the step; each block reads the
// element's M^2 - 1 window values from global memory (written by earlier launches).
#include <algorithm>

#include "device_common.cuh"
#include "kernels.hpp"

namespace splinebench::iir2d::kern {

namespace {

__global__ void __launch_bounds__(32) fixed_step(const Image im, std::int64_t t, std::int64_t i_lo) {
  const std::int64_t i = i_lo + blockIdx.x, j = t - i;
  const int M = im.M, lane = threadIdx.x;
  const float* y = im.y;
  const std::int64_t W = im.W;
  const float s = dev::window_sum(
      M * M - 1, lane,
      [&](int idx) {
        const int k = idx / M, l = idx - k * M;
        return (i - k >= 0 && j - l >= 0) ? y[(i - k) * W + (j - l)] : 0.f;
      },
      [&](int idx) { return __ldg(&im.b[idx]); });
  if (lane == 0) im.y[i * W + j] = im.x[i * W + j] + s;
}

__global__ void __launch_bounds__(32) empty_step() {}

template <typename Launch>
void for_each_step(std::int64_t H, std::int64_t W, Launch launch) {
  for (std::int64_t t = 0; t < H + W - 1; ++t) {
    const std::int64_t lo = std::max<std::int64_t>(0, t - (W - 1));
    const std::int64_t hi = std::min<std::int64_t>(H - 1, t);
    launch(t, lo, static_cast<unsigned>(hi - lo + 1));
  }
}

}  // namespace

void launch_fixed_steps(const Image& im, cudaStream_t stream) {
  for_each_step(im.H, im.W, [&](std::int64_t t, std::int64_t lo, unsigned blocks) {
    fixed_step<<<blocks, 32, 0, stream>>>(im, t, lo);
  });
}

void launch_empty_steps(std::int64_t H, std::int64_t W, cudaStream_t stream) {
  for_each_step(H, W, [&](std::int64_t, std::int64_t, unsigned blocks) { empty_step<<<blocks, 32, 0, stream>>>(); });
}

}  // namespace splinebench::iir2d::kern
