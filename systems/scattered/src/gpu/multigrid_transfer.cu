#include "multigrid_transfer.cuh"

#include <algorithm>
#include <vector>

namespace splinebench::scattered::gpu::detail {

namespace {

template <typename T>
void upload_vector(DeviceBuffer<T>& buf, const std::vector<T>& host) {
  buf.resize(host.size());
  if (!host.empty()) buf.upload(host.data());
}

// out[i0, i1, i2] (=|+=) sum over row i_axis of M: weight * in[.., index, ..].
__global__ void axis_pass(int o0, int o1, int o2, int axis, int n_in, const int* __restrict__ offset,
                          const int* __restrict__ index, const float* __restrict__ weight, const float* __restrict__ in,
                          float* __restrict__ out, bool accumulate) {
  const long long total = static_cast<long long>(o0) * o1 * o2;
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= total) return;
  int i[3];
  i[2] = static_cast<int>(t % o2);
  i[1] = static_cast<int>((t / o2) % o1);
  i[0] = static_cast<int>(t / (static_cast<long long>(o1) * o2));
  int n[3] = {o0, o1, o2};
  n[axis] = n_in;
  const int row = i[axis];
  float sum = 0.f;
  for (int e = offset[row]; e < offset[row + 1]; ++e) {
    i[axis] = index[e];
    sum = fmaf(weight[e], in[(static_cast<long long>(i[0]) * n[1] + i[1]) * n[2] + i[2]], sum);
  }
  out[t] = accumulate ? out[t] + sum : sum;
}

}  // namespace

DeviceTransfer::DeviceTransfer(const std::array<AxisTransfer, 3>& axes) {
  for (int a = 0; a < 3; ++a) {
    Axis& d = axes_[a];
    d.fine = axes[a].fine;
    d.coarse = axes[a].coarse;
    fine_rows_ *= d.fine;
    coarse_rows_ *= d.coarse;
    if (axes[a].identity()) continue;
    upload_vector(d.p_offset, axes[a].p_offset);
    upload_vector(d.p_index, axes[a].p_index);
    upload_vector(d.p_weight, axes[a].p_weight);
    upload_vector(d.r_offset, axes[a].r_offset);
    upload_vector(d.r_index, axes[a].r_index);
    upload_vector(d.r_weight, axes[a].r_weight);
  }
  for (auto& t : tmp_) t.resize(static_cast<std::size_t>(fine_rows_));
}

void DeviceTransfer::pass(int axis, bool to_fine, const int shape_out[3], const float* in, float* out,
                          bool accumulate) {
  const Axis& d = axes_[axis];
  const long long total = static_cast<long long>(shape_out[0]) * shape_out[1] * shape_out[2];
  axis_pass<<<blocks_for(total), kThreads>>>(
      shape_out[0], shape_out[1], shape_out[2], axis, to_fine ? d.coarse : d.fine,
      to_fine ? d.p_offset.data() : d.r_offset.data(), to_fine ? d.p_index.data() : d.r_index.data(),
      to_fine ? d.p_weight.data() : d.r_weight.data(), in, out, accumulate);
  SB_CUDA_CHECK_LAUNCH("axis_pass");
}

void DeviceTransfer::prolongate(const float* coarse, float* fine, bool accumulate) {
  std::vector<int> moving;
  for (int a = 2; a >= 0; --a)
    if (axes_[a].fine != axes_[a].coarse) moving.push_back(a);
  int shape[3] = {axes_[0].coarse, axes_[1].coarse, axes_[2].coarse};
  const float* in = coarse;
  for (std::size_t k = 0; k < moving.size(); ++k) {
    const int a = moving[k];
    shape[a] = axes_[a].fine;
    const bool last = k + 1 == moving.size();
    float* out = last ? fine : tmp_[k % 2].data();
    pass(a, true, shape, in, out, last && accumulate);
    in = out;
  }
}

void DeviceTransfer::restrict_to_coarse(const float* fine, float* coarse) {
  std::vector<int> moving;
  for (int a = 0; a < 3; ++a)
    if (axes_[a].fine != axes_[a].coarse) moving.push_back(a);
  int shape[3] = {axes_[0].fine, axes_[1].fine, axes_[2].fine};
  const float* in = fine;
  for (std::size_t k = 0; k < moving.size(); ++k) {
    const int a = moving[k];
    shape[a] = axes_[a].coarse;
    const bool last = k + 1 == moving.size();
    float* out = last ? coarse : tmp_[k % 2].data();
    pass(a, false, shape, in, out, false);
    in = out;
  }
}

}  // namespace splinebench::scattered::gpu::detail
