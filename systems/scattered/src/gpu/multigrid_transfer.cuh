// P and P^T on the device, one axis at a time (P is the Kronecker product of the per-axis
// two-scale matrices): each pass is a gather over the axis's CSR rows in a fixed order,
// so no atomics and the same result from run to run. f32 sums; the weights are exact.
#pragma once

#include <array>

#include "cuda_support.cuh"
#include "multigrid_levels.hpp"

namespace splinebench::scattered::gpu::detail {

class DeviceTransfer {
 public:
  explicit DeviceTransfer(const std::array<AxisTransfer, 3>& axes);
  long long fine_rows() const { return fine_rows_; }
  long long coarse_rows() const { return coarse_rows_; }
  // fine = P coarse, or fine += P coarse when accumulate.
  void prolongate(const float* coarse, float* fine, bool accumulate);
  // coarse = P^T fine.
  void restrict_to_coarse(const float* fine, float* coarse);

 private:
  struct Axis {
    int fine = 1, coarse = 1;
    DeviceBuffer<int> p_offset, p_index, r_offset, r_index;
    DeviceBuffer<float> p_weight, r_weight;
  };
  // out = (or +=) M in along `axis`, M = P (to_fine) or P^T; in has extent n_in there.
  void pass(int axis, bool to_fine, const int shape_out[3], const float* in, float* out, bool accumulate);
  std::array<Axis, 3> axes_;
  long long fine_rows_ = 1, coarse_rows_ = 1;
  DeviceBuffer<float> tmp_[2];
};

}  // namespace splinebench::scattered::gpu::detail
