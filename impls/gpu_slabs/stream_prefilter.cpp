// The streamed prefilter (stream_prefilter.hpp): oracle::prefilter_streamed's schedule
// with the slab buffer on one device.
//
// Streams and events. Three non-blocking streams: `h2d` uploads, `compute` runs every
// kernel (and the pre-pass), `d2h` downloads. Slab s uses buffer b = s % K (K buffers):
//   h2d      waits freed[b] (the download of slab s-K, which used the buffer), uploads,
//            records uploaded[b];
//   compute  waits uploaded[b], filters, records computed[b];
//   d2h      waits computed[b], downloads, records freed[b].
// So the upload of slab s+1, the compute of slab s and the download of slab s-1 run at
// once (with K >= 3; with K = 2 the upload of s+1 also waits for the download of s-1).
// The one dependency between slabs, the causal state, is the previous slab's last plane,
// copied on the compute stream into a plane set before the next slab's kernels, which
// follow it on that same stream; periodic's anti-causal sum is accumulated there too.
// The host enqueues the whole sweep without waiting, except in the staged fallback,
// where it copies each slab into a pinned staging buffer before its upload and out of
// one after its download.
#include "gpu_slabs/stream_prefilter.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gpu_common/prefilter_step.hpp"
#include "gpu_slabs/slab_devices.hpp"
#include "gpu_slabs/slab_kernels.hpp"
#include "gpu_slabs/slab_terms.hpp"
#include "gpu_slabs/host_copy.hpp"
#include "gpu_slabs/stream_kernels.hpp"
#include "gpu_slabs/stream_plan.hpp"
#include "splinebench/bspline_math.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/cuda/device_buffer.hpp"
#include "splinebench/error.hpp"

namespace splinebench::gpu::slabs {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::size_t bytes_of(std::int64_t floats) { return static_cast<std::size_t>(floats) * sizeof(float); }

std::string gib(std::int64_t floats) {
  const double g = static_cast<double>(bytes_of(floats)) / static_cast<double>(1 << 30);
  char text[32];
  std::snprintf(text, sizeof text, "%.3g GiB", g);
  return text;
}

// The caller's array page-locked for the call: used as it is when it already is
// (cudaMallocHost, or registered by the caller), registered here otherwise, and
// unregistered by release() or, on an error path, by the destructor. When registration
// fails or is declined, staged() says so and every slab goes through staging buffers.
class HostPin {
 public:
  HostPin(float* host, std::size_t bytes, bool try_register, StreamReport& report) : host_(host) {
    cudaPointerAttributes attr{};
    if (cudaPointerGetAttributes(&attr, host) == cudaSuccess && attr.type == cudaMemoryTypeHost) {
      report.host_memory = "already page-locked";
      return;
    }
    (void)cudaGetLastError();  // a pageable pointer may leave a (not sticky) error
    if (!try_register) {
      staged_ = true;
      report.host_memory = "staged: registration declined (register_host = false)";
      return;
    }
    const auto t = Clock::now();
    const cudaError_t err = cudaHostRegister(host, bytes, cudaHostRegisterDefault);
    report.pin_seconds = seconds_since(t);
    if (err == cudaSuccess) {
      registered_ = true;
      report.host_memory = "registered";
    } else {
      (void)cudaGetLastError();
      staged_ = true;
      report.host_memory = std::string("staged: cudaHostRegister failed: ") + cudaGetErrorName(err) + " (" +
                           cudaGetErrorString(err) + ")";
    }
  }
  ~HostPin() {
    // An error path: nothing to report, and a destructor cannot throw.
    if (registered_) (void)cudaHostUnregister(host_);
  }
  HostPin(const HostPin&) = delete;
  HostPin& operator=(const HostPin&) = delete;

  bool staged() const { return staged_; }
  // Unregisters (checked) when this call registered; returns the seconds it took.
  double release() {
    if (!registered_) return 0.0;
    registered_ = false;
    const auto t = Clock::now();
    SB_CUDA_CHECK(cudaHostUnregister(host_));
    return seconds_since(t);
  }

 private:
  float* host_;
  bool registered_ = false;
  bool staged_ = false;
};

class OwnedStream {
 public:
  OwnedStream() { SB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~OwnedStream() {
    // Everything enqueued finishes before the buffers it uses are freed or unpinned.
    if (stream_) {
      (void)cudaStreamSynchronize(stream_);
      (void)cudaStreamDestroy(stream_);
    }
  }
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
  cudaStream_t get() const { return stream_; }
  void synchronize() const { SB_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

class OrderEvent {
 public:
  OrderEvent() { SB_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming)); }
  ~OrderEvent() {
    if (event_) (void)cudaEventDestroy(event_);
  }
  OrderEvent(const OrderEvent&) = delete;
  OrderEvent& operator=(const OrderEvent&) = delete;
  void record(cudaStream_t s) { SB_CUDA_CHECK(cudaEventRecord(event_, s)); }
  void make_wait(cudaStream_t s) const { SB_CUDA_CHECK(cudaStreamWaitEvent(s, event_, 0)); }
  void synchronize() const { SB_CUDA_CHECK(cudaEventSynchronize(event_)); }

 private:
  cudaEvent_t event_ = nullptr;
};

// Plane sets on the device, kStreamPlaneSets of them.
enum PlaneSet : int { kSetInitCausal, kSetState, kSetAntiSum, kSetInitAnti };

// Everything the sweep allocates, members in the order that frees them safely: the
// streams (last, so destroyed first) wait for their work before the events, the device
// buffers and the staging buffers go.
struct Pipeline {
  std::vector<std::unique_ptr<PinnedBuffer<float>>> staging_in, staging_out;  // the staged fallback only
  std::vector<DeviceBuffer<float>> slab;                       // K buffers of T planes
  DeviceBuffer<float> sets;                                    // kStreamPlaneSets planes
  std::vector<std::unique_ptr<OrderEvent>> uploaded, computed, freed;
  OwnedStream h2d, compute, d2h;

  Pipeline(int buffers, std::int64_t slab_floats, std::int64_t P) {
    slab.resize(static_cast<std::size_t>(buffers));
    for (auto& b : slab) b.resize(static_cast<std::size_t>(slab_floats));
    sets.resize(static_cast<std::size_t>(kStreamPlaneSets * P));
    for (int b = 0; b < buffers; ++b) {
      uploaded.push_back(std::make_unique<OrderEvent>());
      computed.push_back(std::make_unique<OrderEvent>());
      freed.push_back(std::make_unique<OrderEvent>());
    }
  }
  // The staged fallback's buffers: one in and one out per slab buffer, so the host
  // fills one while the link drains another.
  void stage(int buffers, std::int64_t slab_floats) {
    try {
      for (int b = 0; b < buffers; ++b) {
        staging_in.push_back(std::make_unique<PinnedBuffer<float>>(static_cast<std::size_t>(slab_floats)));
        staging_out.push_back(std::make_unique<PinnedBuffer<float>>(static_cast<std::size_t>(slab_floats)));
      }
    } catch (const Unsupported& e) {  // check.hpp names every cudaErrorMemoryAllocation "device memory"
      throw Unsupported("gpu_slabs prefilter_streamed: out of pinned host memory for " + std::to_string(2 * buffers) +
                        " staging buffers of " + gib(slab_floats) + ": " + e.what());
    }
  }
  float* set(PlaneSet k, std::int64_t P) const { return sets.data() + static_cast<std::int64_t>(k) * P; }
};

}  // namespace

void prefilter_streamed(float* host_volume, const GridShape& shape, Mode mode, const StreamOptions& options,
                        StreamReport& report) {
  const auto t_total = Clock::now();
  report = StreamReport{};
  check_stream_arguments(host_volume, shape, options);
  const std::string reason = cuda_unavailable_reason();
  if (!reason.empty()) throw Unsupported("gpu_slabs prefilter_streamed: " + reason);
  int devices = 0;
  SB_CUDA_CHECK(cudaGetDeviceCount(&devices));
  if (options.device >= devices)
    throw Error("gpu_slabs prefilter_streamed: device " + std::to_string(options.device) + ", but " +
                std::to_string(devices) + " visible");
  DeviceGuard guard(options.device);

  const std::int64_t n = shape.extent[0];
  const std::int64_t P = shape.stride(0);
  const bool axis0 = !(n == 1 && mode == Mode::mirror);  // c = f along axis 0, as prefilter_line
  std::size_t free_bytes = 0, total_bytes = 0;
  SB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::int64_t T = choose_slab_planes(n, P, options, static_cast<std::int64_t>(free_bytes));
  const std::vector<std::int64_t> starts = stream_slab_starts(n, T);
  const int S = static_cast<int>(starts.size());
  const int K = std::min(options.buffers, S);  // more buffers than slabs would idle
  auto len_of = [&](int s) { return (s + 1 < S ? starts[static_cast<std::size_t>(s) + 1] : n) - starts[static_cast<std::size_t>(s)]; };
  report.slabs = S;
  report.slab_planes = T;
  report.buffers = K;

  HostPin pin(host_volume, bytes_of(n * P), options.register_host, report);
  const bool staged = pin.staged();
  {
    std::unique_ptr<Pipeline> owned;
    try {
      owned = std::make_unique<Pipeline>(K, T * P, P);
    } catch (const Unsupported& e) {
      throw Unsupported("gpu_slabs prefilter_streamed: out of device memory for " + std::to_string(K) +
                        " slab buffers of " + std::to_string(T) + " planes (" + gib(T * P) + " each) and " +
                        std::to_string(kStreamPlaneSets) + " plane sets on device " + std::to_string(options.device) +
                        " (" + std::to_string(free_bytes) + " bytes free); force fewer planes per slab: " + e.what());
    }
    Pipeline& r = *owned;
    if (staged) r.stage(K, T * P);
    const cudaStream_t hs = r.h2d.get(), cs = r.compute.get(), ds = r.d2h.get();
    const PlaneGeometry g{P, 1};
    const PolePowers zp(2 * n + 1);
    const double zd = bspline::kPole;
    const float z = static_cast<float>(zd);
    const float gain = static_cast<float>(bspline::kGain);
    float* const init_causal = r.set(kSetInitCausal, P);
    float* const state = r.set(kSetState, P);
    float* const anti_sum = r.set(kSetAntiSum, P);
    float* const init_anti = r.set(kSetInitAnti, P);
    auto filter_inner = [&](float* d, std::int64_t planes) {
      GridShape local = shape;
      local.extent[0] = planes;
      for (int axis = 1; axis < shape.dims; ++axis) prefilter_axis_step(local, 1, mode, d, axis, cs);
    };

    // The pre-pass: the planes whose float weight in the causal initial value is not
    // zero, in chunks of at most T planes through buffer 0, each chunk's contiguous runs
    // uploaded, filtered along the inner axes and weighted into the running sum.
    if (axis0) {
      const auto t = Clock::now();
      const PlaneTerms all = causal_share_terms(mode, n, 0, n, zp);
      for (int c0 = 0; c0 < all.count; c0 += static_cast<int>(std::min<std::int64_t>(T, kMaxTerms))) {
        const int m = static_cast<int>(std::min<std::int64_t>({T, static_cast<std::int64_t>(kMaxTerms),
                                                               static_cast<std::int64_t>(all.count - c0)}));
        PlaneTerms local;
        local.count = m;
        float* const dev = r.slab[0].data();
        for (int i = 0; i < m;) {
          int j = i;
          while (j + 1 < m && all.plane[c0 + j + 1] == all.plane[c0 + j] + 1) ++j;
          const float* src = host_volume + static_cast<std::int64_t>(all.plane[c0 + i]) * P;
          const std::int64_t count = (j - i + 1) * P;
          if (staged)
            parallel_copy(r.staging_in[0]->data() + i * P, src, bytes_of(count));
          else
            SB_CUDA_CHECK(cudaMemcpyAsync(dev + i * P, src, bytes_of(count), cudaMemcpyHostToDevice, cs));
          i = j + 1;
        }
        for (int i = 0; i < m; ++i) {
          local.plane[i] = i;
          local.weight[i] = all.weight[c0 + i];
        }
        if (staged)
          SB_CUDA_CHECK(cudaMemcpyAsync(dev, r.staging_in[0]->data(), bytes_of(m * P), cudaMemcpyHostToDevice, cs));
        filter_inner(dev, m);
        add_weighted_sum(g, local, dev, m * P, init_causal, c0 > 0, cs);
        report.bytes_to_device += static_cast<std::int64_t>(bytes_of(m * P));
        report.prepass_planes += m;
        // The next chunk rewrites the staging buffer and buffer 0.
        if (staged) r.compute.synchronize();
      }
      const double norm = mode == Mode::mirror ? 1.0 - zp(2 * n - 2) : mode == Mode::half ? 1.0 - zp(2 * n) : 1.0 - zp(n);
      sum_shares(g, init_causal, 1, 1.0f, static_cast<float>(norm), init_causal, cs);
      r.compute.synchronize();
      report.prepass_seconds = seconds_since(t);
    }

    // The sweep.
    const auto t_sweep = Clock::now();
    auto retire = [&](int s) {  // staged: slab s from its staging buffer into the caller's array
      const int b = s % K;
      r.freed[static_cast<std::size_t>(b)]->synchronize();
      parallel_copy(host_volume + starts[static_cast<std::size_t>(s)] * P, r.staging_out[static_cast<std::size_t>(b)]->data(),
                    bytes_of(len_of(s) * P));
    };
    for (int s = 0; s < S; ++s) {
      const std::size_t b = static_cast<std::size_t>(s % K);
      const std::int64_t start = starts[static_cast<std::size_t>(s)];
      const std::int64_t len = len_of(s);
      const std::int64_t count = len * P;
      const bool last = s + 1 == S;
      float* const dev = r.slab[b].data();
      float* const host_slab = host_volume + start * P;

      // Upload, once the download of the slab that last used the buffer is done.
      const float* src = host_slab;
      if (staged) {
        if (s >= K) r.uploaded[b]->synchronize();  // the staging buffer's previous upload
        parallel_copy(r.staging_in[b]->data(), host_slab, bytes_of(count));
        src = r.staging_in[b]->data();
      }
      if (s >= K) r.freed[b]->make_wait(hs);
      SB_CUDA_CHECK(cudaMemcpyAsync(dev, src, bytes_of(count), cudaMemcpyHostToDevice, hs));
      r.uploaded[b]->record(hs);
      report.bytes_to_device += static_cast<std::int64_t>(bytes_of(count));

      // Compute: the inner axes, then axis 0's steps in oracle::prefilter_streamed's order.
      r.uploaded[b]->make_wait(cs);
      filter_inner(dev, len);
      if (axis0) {
        if (s == 0)
          causal_from_zero(g, dev, count, len, init_causal, z, gain, cs);
        else
          causal_from_state(g, dev, count, len, state, z, gain, cs);
        if (mode == Mode::periodic) {
          // Only slabs near the line's ends have nonzero weights; the first slab starts the sum.
          const PlaneTerms share = periodic_share_terms(n, start, len, zp);
          if (s == 0 || share.count > 0) add_weighted_sum(g, share, dev, count, anti_sum, s > 0, cs);
        }
        if (last) {
          if (mode == Mode::periodic) {
            sum_shares(g, anti_sum, 1, -z, static_cast<float>(1.0 - zp(n)), init_anti, cs);
          } else {
            // Mirror needs plane n-2 too: in this slab, or, when it is one plane thick,
            // the causal state kept from the previous slab.
            const float* n1 = dev + (len - 1) * P;
            const float* n2 = mode == Mode::mirror ? (len >= 2 ? dev + (len - 2) * P : state) : nullptr;
            const double scale = mode == Mode::mirror ? zd / (zd * zd - 1.0) : zd / (zd - 1.0);
            anticausal_last(g, n1, P, n2, P, z, static_cast<float>(scale), init_anti, cs);
          }
        } else {
          // The next slab's causal state, before the anti-causal recursion overwrites it.
          SB_CUDA_CHECK(cudaMemcpyAsync(state, dev + (len - 1) * P, bytes_of(P), cudaMemcpyDeviceToDevice, cs));
        }
        anticausal_from_zero(g, dev, count, len, last ? init_anti : nullptr, z, cs);
      }
      r.computed[b]->record(cs);

      // Download; the slab's first plane stays in the caller's array until the host
      // corrections read it (correct_on_host).
      r.computed[b]->make_wait(ds);
      float* const dst = staged ? r.staging_out[b]->data() : host_slab;
      SB_CUDA_CHECK(cudaMemcpyAsync(dst, dev, bytes_of(count), cudaMemcpyDeviceToHost, ds));
      r.freed[b]->record(ds);
      report.bytes_to_host += static_cast<std::int64_t>(bytes_of(count));
      if (staged && s >= 1) retire(s - 1);
    }
    if (staged) retire(S - 1);
    r.h2d.synchronize();
    r.compute.synchronize();
    r.d2h.synchronize();
    report.sweep_seconds = seconds_since(t_sweep);
  }  // device buffers, streams and staging freed here

  report.unpin_seconds = pin.release();
  const auto t_host = Clock::now();
  report.corrected_planes = axis0 ? correct_on_host(host_volume, n, P, starts) : 0;
  report.host_correction_seconds = seconds_since(t_host);
  report.total_seconds = seconds_since(t_total);
}

}  // namespace splinebench::gpu::slabs
