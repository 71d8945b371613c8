// MG-PCG's coarse levels formed on the device by Galerkin passes (galerkin_level.hpp says
// what a pass sums): one thread per output entry (entry-major: a warp is one entry of
// consecutive nodes), f64 throughout. Included by multigrid.cu alone (internal linkage).
#pragma once

#include "cuda_support.cuh"
#include "galerkin_level.hpp"

namespace splinebench::scattered::gpu::detail {
namespace {

__global__ void galerkin_pass_kernel(StencilGeometry in_geo, const double* __restrict__ in, StencilGeometry out_geo,
                                     GalerkinAxis t, double* __restrict__ out) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= out_geo.nodes * out_geo.entries) return;
  out[i] = galerkin_entry(in_geo, in, out_geo, t, i % out_geo.nodes, static_cast<int>(i / out_geo.nodes));
}

// One axis's pass terms in device memory.
class DeviceGalerkinAxis {
 public:
  explicit DeviceGalerkinAxis(const GalerkinAxisHost& h) : host_(h) {
    auto up = [](auto& buffer, const auto& v) {
      buffer.resize(v.size());
      if (!v.empty()) buffer.upload(v.data());
    };
    up(offset_, h.term_offset);
    up(node_, h.term_node);
    up(shift_, h.term_shift);
    up(weight_, h.term_weight);
  }
  GalerkinAxis view() const {
    return {host_.axis, host_.fine, host_.coarse, offset_.data(), node_.data(), shift_.data(), weight_.data()};
  }

 private:
  GalerkinAxisHost host_;
  DeviceBuffer<int> offset_, node_, shift_;
  DeviceBuffer<double> weight_;
};

// The next level's f64 stencil from `fine`'s (device, geometry geo: updated to the coarse
// level's). The passes queue on the calling thread's stream; the returned buffer holds the
// result once they have run (the host waits for nothing here).
DeviceBuffer<double> galerkin_level_device(const Level& fine, StencilGeometry& geo, DeviceBuffer<double> value) {
  for (const GalerkinAxisHost& h : galerkin_axes(fine)) {
    const DeviceGalerkinAxis t(h);
    const StencilGeometry out_geo = galerkin_output_geometry(geo, h);
    DeviceBuffer<double> out(static_cast<std::size_t>(out_geo.nodes) * static_cast<std::size_t>(out_geo.entries));
    galerkin_pass_kernel<<<blocks_for(out_geo.nodes * out_geo.entries), kThreads>>>(geo, value.data(), out_geo,
                                                                                    t.view(), out.data());
    SB_CUDA_CHECK_LAUNCH("galerkin_pass_kernel");
    value = std::move(out);  // the input returns to the pool behind the pass
    geo = out_geo;
  }
  return value;
}

}  // namespace
}  // namespace splinebench::scattered::gpu::detail
