// Host side of the "step" prefilter: constants per axis (pole powers and boundary
// factors computed in double, rounded once to the storage type) and one launch per
// axis, for float and double data.
#include <cmath>
#include <string>

#include "gpu_common/axis_math.cuh"
#include "gpu_common/prefilter_step.hpp"
#include "gpu_common/prefilter_step_kernel.cuh"
#include "splinebench/bspline_math.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/error.hpp"

namespace splinebench::gpu {
namespace {

constexpr int kBlock = 128;

template <typename T>
detail::StepPrefilterParams<T> make_params(const GridShape& shape, std::int64_t fields, Mode mode, T* d_data,
                                           int axis) {
  const int m = static_cast<int>(mode);
  const std::int64_t n = shape.extent[axis];
  const double z = bspline::kPole;
  detail::StepPrefilterParams<T> p{};
  p.data = d_data;
  p.stride = shape.stride(axis);
  p.inner = p.stride / shape.channels;
  p.lines = fields * (shape.points() / n);
  p.n = static_cast<int>(n);
  p.mode = m;
  p.z = static_cast<T>(z);
  p.gain = static_cast<T>(bspline::kGain);
  for (int k = 0; k <= detail::kPoleHorizon<T>; ++k) p.zpow[k] = static_cast<T>(std::pow(z, k));
  const double zn = std::pow(z, static_cast<double>(detail::axis_period(m, p.n)));
  switch (mode) {
    case Mode::mirror:
      p.init_scale = static_cast<T>(bspline::kGain / (1.0 - zn));  // zn = z^(2n-2)
      p.last_scale = static_cast<T>(z / (z * z - 1.0));
      break;
    case Mode::half:
      p.init_scale = static_cast<T>(bspline::kGain / (1.0 - zn));  // zn = z^(2n)
      p.last_scale = static_cast<T>(z / (z - 1.0));
      break;
    case Mode::periodic:
      p.init_scale = static_cast<T>(bspline::kGain / (1.0 - zn));  // zn = z^n
      p.last_scale = static_cast<T>(-z / (1.0 - zn));
      break;
  }
  return p;
}

template <int C, typename T>
void launch(const detail::StepPrefilterParams<T>& p, cudaStream_t stream) {
  const std::int64_t blocks = (p.lines + kBlock - 1) / kBlock;
  detail::step_prefilter_kernel<C, T><<<static_cast<unsigned>(blocks), kBlock, 0, stream>>>(p);
  SB_CUDA_CHECK_LAUNCH("step_prefilter_kernel");
}

template <typename T>
void prefilter_axis(const GridShape& shape, std::int64_t fields, Mode mode, T* d_data, int axis,
                    cudaStream_t stream) {
  shape.validate();
  if (axis < 0 || axis >= shape.dims)
    throw Error("prefilter_axis_step: axis " + std::to_string(axis) + " outside [0, " +
                std::to_string(shape.dims) + ")");
  if (fields < 1) throw Error("prefilter_axis_step: fields must be >= 1");
  if (shape.extent[axis] >= detail::kMaxAxisLength)
    throw Unsupported("GPU prefilter: axis " + std::to_string(axis) + " has " +
                      std::to_string(shape.extent[axis]) + " samples; at most 2^30 - 1 supported");
  const auto p = make_params(shape, fields, mode, d_data, axis);
  if ((p.lines + kBlock - 1) / kBlock > 0x7fffffff)
    throw Unsupported("GPU prefilter: too many lines (" + std::to_string(p.lines) + ") for one launch");
  switch (shape.channels) {
    case 1: return launch<1>(p, stream);
    case 2: return launch<2>(p, stream);
    case 4: return launch<4>(p, stream);
  }
  throw Error("GPU prefilter: channels must be 1, 2 or 4, got " + std::to_string(shape.channels));
}

}  // namespace

void prefilter_axis_step(const GridShape& shape, std::int64_t fields, Mode mode, float* d_data, int axis,
                         cudaStream_t stream) {
  prefilter_axis(shape, fields, mode, d_data, axis, stream);
}

void prefilter_axis_step(const GridShape& shape, std::int64_t fields, Mode mode, double* d_data, int axis,
                         cudaStream_t stream) {
  prefilter_axis(shape, fields, mode, d_data, axis, stream);
}

void prefilter_step(const GridShape& shape, std::int64_t fields, Mode mode, float* d_data, cudaStream_t stream) {
  for (int axis = 0; axis < shape.dims; ++axis) prefilter_axis_step(shape, fields, mode, d_data, axis, stream);
}

void prefilter_step(const GridShape& shape, std::int64_t fields, Mode mode, double* d_data, cudaStream_t stream) {
  for (int axis = 0; axis < shape.dims; ++axis) prefilter_axis_step(shape, fields, mode, d_data, axis, stream);
}

}  // namespace splinebench::gpu
