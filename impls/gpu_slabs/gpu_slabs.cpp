// `gpu_slabs`: a field split along axis 0 into slabs, one slab per CUDA device (two
// slabs share a lone device; SPLINEBENCH_GPU_SLABS=K forces K slabs), each slab's planes
// on its device. The prefilter is exact: the inner axes 1..D-1 lie inside a plane and are
// filtered slab by slab with gpu_flex's tiles (slab_inner.hpp); axis 0 runs the steps of
// slab_steps.hpp with only plane-sized shares and carries crossing between devices
// (slab_axis0.hpp). Each slab then keeps three halo planes (slab_halo.hpp), so every
// query is evaluated on one device, the slab holding its 4-tap footprint along axis 0,
// with evaluate_global's arithmetic (slab_eval.hpp). The host routes the queries
// (query_route.hpp).
//
// Phases, each timed over all devices from one fork to one join on the master stream:
// upload, prefilter (+ prefilter_inner, the inner axes first as the slab driver runs
// them, and prefilter_axis0), bind (the halo exchange), query_upload, evaluate, download,
// readback. The field moves through small pinned chunks per slab (slab_staging.hpp), so
// upload and readback include the host's copies into and out of them; the queries'
// copies between the caller's memory and the pinned buffer, and the host routing, are
// host_staging.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gpu_common/axis_limits.hpp"
#include "gpu_common/gpu_pipeline.hpp"
#include "gpu_slabs/query_route.hpp"
#include "gpu_slabs/slab_axis0.hpp"
#include "gpu_slabs/slab_devices.hpp"
#include "gpu_slabs/slab_eval.hpp"
#include "gpu_slabs/slab_halo.hpp"
#include "gpu_slabs/slab_inner.hpp"
#include "gpu_slabs/slab_layout.hpp"
#include "gpu_slabs/slab_staging.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/cuda/device_buffer.hpp"
#include "splinebench/error.hpp"
#include "splinebench/f32_accuracy.hpp"
#include "splinebench/implementation.hpp"

namespace splinebench::impls {
namespace {

using gpu::slabs::DeviceGuard;
using gpu::slabs::Slab;
using gpu::slabs::SlabSet;

class GpuSlabs final : public Implementation {
 public:
  std::string_view name() const override { return "gpu_slabs"; }
  std::string_view description() const override {
    return "CUDA f32 on every device: the field split along axis 0 into slabs, one per device (at least 2; "
           "SPLINEBENCH_GPU_SLABS=K forces K); exact prefilter along axis 0 with plane-sized shares and carries "
           "exchanged by peer copies, gpu_flex's single-launch tiles along the other axes; each query evaluated (4^D "
           "global-memory loads) on the slab holding its footprint";
  }
  Capabilities capabilities() const override {
    Capabilities caps;
    caps.device = Device::gpu;
    return caps;
  }
  Availability availability() const override {
    const std::string reason = gpu::cuda_unavailable_reason();
    return {reason.empty(), reason};
  }
  Tolerance tolerance(const GridShape& shape) const override {
    Tolerance t = f32_accuracy::pass_by_pass_tolerance(shape);
    t.basis = "gpu_flex's float32 recursions along the inner axes (halo truncation <= 1.0e-9 relative per axis; "
              "gpu_naive's where gpu_flex cannot take the planes); along axis 0 the slab steps, whose carries make "
              "every slab exact and whose truncated corrections are below f32 rounding (slab_steps.hpp); nested 4-term tap "
              "sums: " + t.basis;
    return t;
  }
  // The taps, weights and sums of gpu_common's evaluate_global, on the slab's copy of the
  // same coefficients.
  std::string evaluation() const override { return "f32 taps, global loads"; }
  std::vector<std::string> run_facts() const override {
    std::vector<std::string> facts = {
        "prefilter=axis 0 in slabs, one per device (exact: shares, carries, corrections); gpu_flex tiles along "
        "the other axes",
        "evaluate=4^D global loads on the slab holding the query's footprint (host routing)"};
    if (set_) facts.push_back("devices=" + std::to_string(set_->device_count()));
    if (prepared_) facts.push_back("slabs=" + gpu::slabs::describe(layout_));
    // Each distinct way the slabs' inner axes went, in slab order.
    std::vector<std::string> inner;
    for (const gpu::slabs::InnerMethod& m : inner_)
      if (const std::string d = gpu::slabs::describe(m); std::find(inner.begin(), inner.end(), d) == inner.end())
        inner.push_back(d);
    for (const std::string& d : inner) facts.push_back("inner_axes=" + d);
    return facts;
  }

  void prepare(const GridShape& shape, std::int64_t fields, const float* input, Mode mode, bool prefilter,
               PhaseTimes& times) override {
    shape.validate();
    if (fields < 1) throw Error("gpu_slabs: fields must be >= 1, got " + std::to_string(fields));
    if (!input) throw Error("gpu_slabs: null input");
    const std::string why = capabilities().why_not(shape.dims, shape.channels, mode);
    if (!why.empty()) throw Unsupported("gpu_slabs: " + why);
    for (int d = 0; d < shape.dims; ++d)
      if (shape.extent[d] >= gpu::kMaxAxisLength)
        throw Unsupported("gpu_slabs: axis " + std::to_string(d) + " longer than 2^30 - 1 samples");
    SlabSet& set = devices();

    prepared_ = false;
    inner_.clear();
    shape_ = shape;
    fields_ = fields;
    mode_ = mode;
    const std::int64_t n = shape.extent[0];
    layout_ = gpu::slabs::make_layout(n, gpu::slabs::slab_count(set.device_count(), n), set.device_count());
    const std::int64_t P = shape.stride(0);
    set.configure(layout_, P, fields, mode);

    set.begin_phase();
    stager_.upload(set, input, shape.values(), P);
    times.add(phase::upload, set.end_phase());

    if (prefilter) run_prefilter(set, times);

    set.begin_phase();
    gpu::slabs::enqueue_halos(set);
    times.add(phase::bind, set.end_phase());
    prepared_ = true;
  }

  void read_coefficients(float* out, PhaseTimes& times) override {
    if (!prepared_) throw Error("gpu_slabs: read_coefficients before prepare");
    SlabSet& set = *set_;
    const std::int64_t P = shape_.stride(0);
    set.begin_phase();
    stager_.download(set, out, shape_.values(), P);
    times.add(phase::readback, set.end_phase());
  }

  void evaluate(const float* coords, std::int64_t n, float* out, PhaseTimes& times) override {
    if (!prepared_) throw Error("gpu_slabs: evaluate before prepare");
    if (n < 0) throw Error("gpu_slabs: negative query count");
    if (n == 0) return;
    SlabSet& set = *set_;
    const int D = shape_.dims;
    const int C = shape_.channels;
    const std::size_t ncoords = static_cast<std::size_t>(D * n);
    const std::size_t nvalues = static_cast<std::size_t>(fields_ * n * C);
    float* host = staging(ncoords > nvalues ? ncoords : nvalues);
    {
      ScopedPhase p(times, gpu::kHostStagingPhase);
      gpu::slabs::route_queries(coords, n, D, static_cast<int>(mode_), layout_, route_, host);
    }
    for (int s = 0; s < set.count(); ++s) {
      Slab& sl = set.slab(s);
      DeviceGuard g(sl.device);
      gpu::ensure_capacity(sl.coords, static_cast<std::size_t>(D * route_.count(s)));
      gpu::ensure_capacity(sl.values, static_cast<std::size_t>(fields_ * route_.count(s) * C));
    }

    set.begin_phase();
    for_each_busy_slab(set, [&](Slab& sl, std::int64_t first, std::int64_t m) {
      SB_CUDA_CHECK(cudaMemcpyAsync(sl.coords.data(), host + D * first, bytes(D * m), cudaMemcpyHostToDevice,
                                    sl.stream));
    });
    times.add(phase::query_upload, set.end_phase());

    // Poison the values (all-ones bytes are a NaN) so a value no kernel writes can never
    // pass a check with a stale one. Not timed: joined before the evaluation starts.
    set.fork();
    for_each_busy_slab(set, [&](Slab& sl, std::int64_t, std::int64_t m) {
      SB_CUDA_CHECK(cudaMemsetAsync(sl.values.data(), 0xFF, bytes(fields_ * m * C), sl.stream));
    });
    set.join();

    set.begin_phase();
    for_each_busy_slab(set, [&](Slab& sl, std::int64_t, std::int64_t m) {
      gpu::slabs::evaluate_slab(shape_, fields_, mode_, {sl.ext(), sl.pitch(), sl.start, sl.len}, sl.coords.data(),
                                m, sl.values.data(), sl.stream);
    });
    times.add(phase::evaluate, set.end_phase());

    set.begin_phase();
    for_each_busy_slab(set, [&](Slab& sl, std::int64_t first, std::int64_t m) {
      SB_CUDA_CHECK(cudaMemcpyAsync(host + fields_ * first * C, sl.values.data(), bytes(fields_ * m * C),
                                    cudaMemcpyDeviceToHost, sl.stream));
    });
    times.add(phase::download, set.end_phase());

    ScopedPhase p(times, gpu::kHostStagingPhase);
    gpu::slabs::scatter_values(route_, set.count(), fields_, n, C, host, out);
  }

  void release() override {
    if (set_) set_->release();
    staging_.reset();
    stager_.release();
    route_ = {};
    prepared_ = false;
  }

 private:
  static std::size_t bytes(std::int64_t floats) { return static_cast<std::size_t>(floats) * sizeof(float); }

  SlabSet& devices() {
    if (!set_) set_ = std::make_unique<SlabSet>();
    return *set_;
  }

  float* staging(std::size_t count) {
    gpu::ensure_capacity(staging_, count);
    return staging_.data();
  }

  // Calls fn(slab, first position, query count) with the slab's device current, for every
  // slab with queries routed to it.
  template <typename Fn>
  void for_each_busy_slab(SlabSet& set, Fn fn) {
    for (int s = 0; s < set.count(); ++s) {
      const std::int64_t m = route_.count(s);
      if (m == 0) continue;
      Slab& sl = set.slab(s);
      DeviceGuard g(sl.device);
      fn(sl, route_.offset[s], m);
    }
  }

  // The inner axes slab by slab (one gpu_flex launch per slab, or per chunk of its
  // planes), then axis 0 across the slabs; events on the master stream between the two,
  // no host synchronisation in between, so prefilter_inner and prefilter_axis0 add up
  // to the whole prefilter.
  void run_prefilter(SlabSet& set, PhaseTimes& times) {
    set.mark(0);
    if (shape_.dims > 1) {
      std::vector<int> left(static_cast<std::size_t>(set.device_count()), 0);
      for (int s = 0; s < set.count(); ++s) ++left[static_cast<std::size_t>(set.slab(s).device)];
      inner_.assign(static_cast<std::size_t>(set.count()), {});
      set.fork();
      for (int s = 0; s < set.count(); ++s) {
        Slab& sl = set.slab(s);
        // Slabs sharing a device split its free memory for their second buffers.
        const double share = kInnerMemoryFraction / left[static_cast<std::size_t>(sl.device)]--;
        inner_[static_cast<std::size_t>(s)] = gpu::slabs::enqueue_inner_axes(sl, shape_, fields_, mode_, share);
      }
      set.join();
    }
    set.mark(1);
    set.fork();
    gpu::slabs::enqueue_axis0(set, layout_, mode_);
    set.join();
    set.mark(2);
    if (shape_.dims > 1) times.add(kPrefilterInnerPhase, set.seconds(0, 1));
    times.add(phase::prefilter_axis(0), set.seconds(1, 2));
    times.add(phase::prefilter, set.seconds(0, 2));
  }

  // The share of a device's free memory the inner axes' second buffers may take.
  static constexpr double kInnerMemoryFraction = 0.9;
  static constexpr const char* kPrefilterInnerPhase = "prefilter_inner";

  gpu::slabs::SlabLayout layout_;
  GridShape shape_{};
  std::int64_t fields_ = 0;
  Mode mode_ = Mode::mirror;
  bool prepared_ = false;
  gpu::PinnedBuffer<float> staging_;  // the queries and their values
  gpu::slabs::SlabStaging stager_;     // the field's planes, chunk by chunk
  gpu::slabs::QueryRoute route_;
  std::vector<gpu::slabs::InnerMethod> inner_;  // per slab, the last prefilter's
  // Last, so it is destroyed first: its streams finish before the pinned buffer goes.
  std::unique_ptr<SlabSet> set_;
};

}  // namespace

ImplementationPtr make_gpu_slabs() { return std::make_unique<GpuSlabs>(); }

}  // namespace splinebench::impls
