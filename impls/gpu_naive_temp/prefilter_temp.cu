// Host side of the "temp array" prefilter: the recursion's constants per axis (pole
// powers and boundary factors computed in double, rounded once to float, as the step
// prefilter's in gpu_common/prefilter_step.cu) and one launch per axis, with the
// smallest local array that holds the line.
#include <cmath>
#include <string>

#include "gpu_common/axis_math.cuh"
#include "gpu_naive_temp/prefilter_temp.hpp"
#include "gpu_naive_temp/prefilter_temp_kernel.cuh"
#include "splinebench/bspline_math.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/error.hpp"

namespace splinebench::gpu {
namespace {

constexpr int kBlock = 128;

// The step prefilter's parameters for a line held in a local array (stride C).
detail::StepPrefilterParams<float> line_params(const GridShape& shape, std::int64_t fields, Mode mode, int axis) {
  const int m = static_cast<int>(mode);
  const std::int64_t n = shape.extent[axis];
  const double z = bspline::kPole;
  detail::StepPrefilterParams<float> p{};
  p.data = nullptr;
  p.stride = shape.channels;
  p.inner = shape.stride(axis) / shape.channels;
  p.lines = fields * (shape.points() / n);
  p.n = static_cast<int>(n);
  p.mode = m;
  p.z = static_cast<float>(z);
  p.gain = static_cast<float>(bspline::kGain);
  for (int k = 0; k <= detail::kPoleHorizon<float>; ++k) p.zpow[k] = static_cast<float>(std::pow(z, k));
  const double zn = std::pow(z, static_cast<double>(detail::axis_period(m, p.n)));
  switch (mode) {
    case Mode::mirror:
      p.init_scale = static_cast<float>(bspline::kGain / (1.0 - zn));  // zn = z^(2n-2)
      p.last_scale = static_cast<float>(z / (z * z - 1.0));
      break;
    case Mode::half:
      p.init_scale = static_cast<float>(bspline::kGain / (1.0 - zn));  // zn = z^(2n)
      p.last_scale = static_cast<float>(z / (z - 1.0));
      break;
    case Mode::periodic:
      p.init_scale = static_cast<float>(bspline::kGain / (1.0 - zn));  // zn = z^n
      p.last_scale = static_cast<float>(-z / (1.0 - zn));
      break;
  }
  return p;
}

template <int C, int L>
void launch(const detail::TempPrefilterParams& p, cudaStream_t stream) {
  const std::int64_t blocks = (p.filter.lines + kBlock - 1) / kBlock;
  detail::temp_prefilter_kernel<C, L><<<static_cast<unsigned>(blocks), kBlock, 0, stream>>>(p);
  SB_CUDA_CHECK_LAUNCH("temp_prefilter_kernel");
}

// Local array sizes: the smallest holding the line is launched. Each is a separate
// kernel; the largest is kMaxTempLine.
template <int C>
void launch_sized(const detail::TempPrefilterParams& p, cudaStream_t stream) {
  if (p.filter.n <= 64) return launch<C, 64>(p, stream);
  if (p.filter.n <= 512) return launch<C, 512>(p, stream);
  static_assert(kMaxTempLine == 2048, "the largest local array is kMaxTempLine");
  return launch<C, 2048>(p, stream);
}

std::string too_long(const GridShape& shape, int axis) {
  return "axis " + std::to_string(axis) + " has " + std::to_string(shape.extent[axis]) +
         " samples; the temp-array prefilter copies a line into a local array of at most " +
         std::to_string(kMaxTempLine) + " samples";
}

}  // namespace

std::string temp_array_why_not(const GridShape& shape) {
  for (int d = 0; d < shape.dims; ++d)
    if (shape.extent[d] > kMaxTempLine) return too_long(shape, d);
  return {};
}

void prefilter_axis_temp(const GridShape& shape, std::int64_t fields, Mode mode, const float* d_src, float* d_dst,
                         int axis, cudaStream_t stream) {
  shape.validate();
  if (axis < 0 || axis >= shape.dims)
    throw Error("prefilter_axis_temp: axis " + std::to_string(axis) + " outside [0, " + std::to_string(shape.dims) +
                ")");
  if (fields < 1) throw Error("prefilter_axis_temp: fields must be >= 1");
  if (shape.extent[axis] > kMaxTempLine)
    throw Unsupported("GPU prefilter: " + too_long(shape, axis));
  detail::TempPrefilterParams p{};
  p.filter = line_params(shape, fields, mode, axis);
  p.src = d_src;
  p.dst = d_dst;
  p.stride = shape.stride(axis);
  if ((p.filter.lines + kBlock - 1) / kBlock > 0x7fffffff)
    throw Unsupported("GPU temp-array prefilter: too many lines (" + std::to_string(p.filter.lines) +
                      ") for one launch");
  switch (shape.channels) {
    case 1: return launch_sized<1>(p, stream);
    case 2: return launch_sized<2>(p, stream);
    case 4: return launch_sized<4>(p, stream);
  }
  throw Error("GPU temp-array prefilter: channels must be 1, 2 or 4, got " + std::to_string(shape.channels));
}

}  // namespace splinebench::gpu
