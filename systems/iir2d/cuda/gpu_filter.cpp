// GpuFilter: device buffers, the schemes' state and their timing (CUDA events).
#include <algorithm>
#include <cstring>
#include <map>

#include <cuda_runtime_api.h>

#include "kernels.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/cuda/device_buffer.hpp"
#include "splinebench/iir2d/gpu.hpp"
#include "splinebench/iir2d/strip_order.hpp"

namespace splinebench::iir2d {

namespace {

// Wavefront order of the T x T tiles: anti-diagonal d = ti + tj, then ti.
std::vector<std::int64_t> wavefront_order(std::int64_t TH, std::int64_t TW) {
  std::vector<std::int64_t> order;
  order.reserve(static_cast<std::size_t>(TH * TW));
  for (std::int64_t d = 0; d < TH + TW - 1; ++d)
    for (std::int64_t ti = std::max<std::int64_t>(0, d - (TW - 1)); ti <= std::min(TH - 1, d); ++ti)
      order.push_back(ti * TW + (d - ti));
  return order;
}

constexpr int kLockBlocks = 512;  // the seed's 512 blocks per stage

}  // namespace

struct GpuFilter::Impl {
  Shape shape;
  Window window;
  cudaStream_t stream = nullptr;
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  gpu::DeviceBuffer<float> x, y, b;
  gpu::DeviceBuffer<int> progress, locks;  // locks scheme (progress with its guard word)
  gpu::DeviceBuffer<unsigned long long> ticket;
  gpu::DeviceBuffer<int> row_progress;
  gpu::DeviceBuffer<long long> strip_progress;  // flex_strips: steps done per strip
  gpu::DeviceBuffer<float> carry;               // flex_strips: 2 x (M - 1) x W (H > 32 only)
  std::map<int, gpu::DeviceBuffer<std::int64_t>> orders;  // T -> wavefront order
  gpu::DeviceBuffer<std::int64_t> custom_order;
  gpu::DeviceBuffer<std::uint32_t> counts;
  gpu::DeviceBuffer<unsigned long long> oob;
  gpu::DeviceBuffer<unsigned> abort;
  cudaGraphExec_t graph = nullptr, empty_graph = nullptr;
  bool instrumented = false;

  kern::Image image() const { return kern::Image{x.data(), y.data(), shape.rows, shape.cols, window.M, b.data()}; }
  ~Impl() {
    if (graph) cudaGraphExecDestroy(graph);
    if (empty_graph) cudaGraphExecDestroy(empty_graph);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    if (stream) cudaStreamDestroy(stream);
  }
  cudaGraphExec_t capture(bool empty) {
    cudaGraph_t g = nullptr;
    cudaGraphExec_t exec = nullptr;
    SB_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    if (empty) kern::launch_empty_steps(shape.rows, shape.cols, stream);
    else kern::launch_fixed_steps(image(), stream);
    SB_CUDA_CHECK(cudaStreamEndCapture(stream, &g));
    const cudaError_t instantiate = cudaGraphInstantiate(&exec, g, 0);
    cudaGraphDestroy(g);
    SB_CUDA_CHECK(instantiate);
    return exec;
  }
};

GpuFilter::GpuFilter(const Shape& shape, const Window& window) : impl_(std::make_unique<Impl>()) {
  validate(shape, window);
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) throw Unsupported("iir2d: " + why);
  Impl& s = *impl_;
  s.shape = shape;
  s.window = window;
  const std::size_t px = static_cast<std::size_t>(shape.pixels());
  std::size_t free_b = 0, total_b = 0;
  SB_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  // x, y, the tile order (8 B per 16 x 16 tile at most) and the strips' carries (2 (M - 1)
  // rows of W floats when there is more than one strip), with 5 % to spare.
  const std::size_t carry_floats =
      shape.rows > kStripRows ? 2 * static_cast<std::size_t>(window.M - 1) * static_cast<std::size_t>(shape.cols) : 0;
  const std::size_t need = px * 8 + px / 32 + carry_floats * 4 + (std::size_t{64} << 20);
  if (need > free_b * 0.95)
    throw Unsupported("iir2d: " + std::to_string(shape.rows) + " x " + std::to_string(shape.cols) + " needs about " +
                      std::to_string(need >> 20) + " MiB of device memory, " + std::to_string(free_b >> 20) +
                      " MiB free");
  SB_CUDA_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
  SB_CUDA_CHECK(cudaEventCreate(&s.e0));
  SB_CUDA_CHECK(cudaEventCreate(&s.e1));
  s.x.resize(px);
  s.y.resize(px);
  s.b.resize(window.b.size());
  SB_CUDA_CHECK(cudaMemcpyAsync(s.b.data(), window.b.data(), window.b.size() * sizeof(float),
                                cudaMemcpyHostToDevice, s.stream));
  SB_CUDA_CHECK(cudaStreamSynchronize(s.stream));
  s.progress.resize(static_cast<std::size_t>(shape.rows) + 1);
  s.locks.resize(static_cast<std::size_t>(shape.rows));
  s.ticket.resize(1);
  s.row_progress.resize(static_cast<std::size_t>((shape.rows + 15) / 16));
  s.strip_progress.resize(static_cast<std::size_t>((shape.rows + kStripRows - 1) / kStripRows));
  if (carry_floats) s.carry.resize(carry_floats);
  s.oob.resize(1);
  s.abort.resize(1);
}

GpuFilter::~GpuFilter() = default;

// Copies go on the scheme's stream (non-blocking: no implicit order with the legacy
// default stream) and are waited for.
void GpuFilter::upload(const float* x) {
  SB_CUDA_CHECK(
      cudaMemcpyAsync(impl_->x.data(), x, impl_->x.size() * sizeof(float), cudaMemcpyHostToDevice, impl_->stream));
  SB_CUDA_CHECK(cudaStreamSynchronize(impl_->stream));
}

void GpuFilter::poison_output() {
  SB_CUDA_CHECK(cudaMemsetAsync(impl_->y.data(), 0xFF, impl_->y.size() * sizeof(float), impl_->stream));
  SB_CUDA_CHECK(cudaStreamSynchronize(impl_->stream));
}

void GpuFilter::download(float* y) const {
  SB_CUDA_CHECK(
      cudaMemcpyAsync(y, impl_->y.data(), impl_->y.size() * sizeof(float), cudaMemcpyDeviceToHost, impl_->stream));
  SB_CUDA_CHECK(cudaStreamSynchronize(impl_->stream));
}

double GpuFilter::run(Scheme scheme, const TestHooks* hooks) {
  Impl& s = *impl_;
  const TestHooks none;
  const TestHooks& h = hooks ? *hooks : none;
  const SchemeInfo& info = scheme_info(scheme);
  if (h.lock_defects && (info.launch != Launch::locks || (h.lock_defects & (h.lock_defects - 1)) ||
                         h.lock_defects > kDefectNoBoundary))
    throw Error("iir2d: lock defects apply to the lock scheme only, one known defect at a time");
  kern::Watch w;
  w.abort = s.abort.data();
  w.watchdog_ns = static_cast<unsigned long long>(h.watchdog_s * 1e9);
  w.stalls = h.stalls;
  w.seed = h.stall_seed;
  s.instrumented = h.instrument;
  if (h.instrument) {
    if (!s.counts.data()) s.counts.resize(s.y.size());
    SB_CUDA_CHECK(cudaMemsetAsync(s.counts.data(), 0, s.counts.size() * sizeof(std::uint32_t), s.stream));
    SB_CUDA_CHECK(cudaMemsetAsync(s.oob.data(), 0, sizeof(unsigned long long), s.stream));
    w.write_counts = s.counts.data();
    w.out_of_array = s.oob.data();
  }
  SB_CUDA_CHECK(cudaMemsetAsync(s.abort.data(), 0, sizeof(unsigned), s.stream));

  const int T = info.launch == Launch::tiles ? info.tile : 32;
  const std::int64_t TH = (s.shape.rows + T - 1) / T, TW = (s.shape.cols + T - 1) / T;
  const std::int64_t* order = nullptr;
  if (info.launch == Launch::tiles) {
    if (!h.tile_order.empty()) {
      if (static_cast<std::int64_t>(h.tile_order.size()) != TH * TW)
        throw Error("iir2d: the tile order has the wrong length");
      s.custom_order.resize(h.tile_order.size());
      SB_CUDA_CHECK(cudaMemcpyAsync(s.custom_order.data(), h.tile_order.data(),
                                    h.tile_order.size() * sizeof(std::int64_t), cudaMemcpyHostToDevice, s.stream));
      SB_CUDA_CHECK(cudaStreamSynchronize(s.stream));
      order = s.custom_order.data();
    } else {
      auto& o = s.orders[T];
      if (!o.data()) {
        const auto host = wavefront_order(TH, TW);
        o.resize(host.size());
        SB_CUDA_CHECK(cudaMemcpyAsync(o.data(), host.data(), host.size() * sizeof(std::int64_t),
                                      cudaMemcpyHostToDevice, s.stream));
        SB_CUDA_CHECK(cudaStreamSynchronize(s.stream));
      }
      order = o.data();
    }
  }
  if (info.launch == Launch::graph && !s.graph) s.graph = s.capture(false);
  const int tile_grid = info.launch == Launch::tiles ? kern::prepare_tiles(T, s.window.M, TH * TW) : 0;
  const std::int64_t strips = (s.shape.rows + kStripRows - 1) / kStripRows;
  const int strip_grid = info.launch == Launch::strips ? kern::prepare_strips(s.window.M, strips) : 0;

  SB_CUDA_CHECK(cudaEventRecord(s.e0, s.stream));
  switch (info.launch) {
    case Launch::steps:
      kern::launch_fixed_steps(s.image(), s.stream);
      break;
    case Launch::graph:
      SB_CUDA_CHECK(cudaGraphLaunch(s.graph, s.stream));
      break;
    case Launch::locks:
      SB_CUDA_CHECK(cudaMemsetAsync(s.progress.data(), 0, s.progress.size() * sizeof(int), s.stream));
      SB_CUDA_CHECK(cudaMemsetAsync(s.locks.data(), 0, s.locks.size() * sizeof(int), s.stream));
      kern::launch_locks(s.image(), s.progress.data() + 1, s.locks.data(), kLockBlocks, h.lock_defects,
                         h.reverse_blocks, w, s.stream);
      break;
    case Launch::tiles:
      SB_CUDA_CHECK(cudaMemsetAsync(s.ticket.data(), 0, sizeof(unsigned long long), s.stream));
      SB_CUDA_CHECK(cudaMemsetAsync(s.row_progress.data(), 0, static_cast<std::size_t>(TH) * sizeof(int), s.stream));
      kern::launch_tiles(s.image(), T, tile_grid, order, s.ticket.data(), s.row_progress.data(), w, s.stream);
      break;
    case Launch::strips:
      SB_CUDA_CHECK(cudaMemsetAsync(s.ticket.data(), 0, sizeof(unsigned long long), s.stream));
      SB_CUDA_CHECK(cudaMemsetAsync(s.strip_progress.data(), 0, static_cast<std::size_t>(strips) * sizeof(long long),
                                    s.stream));
      kern::launch_strips(s.image(), s.window.b.data(), strip_grid, s.ticket.data(), s.strip_progress.data(),
                          s.carry.data(), w, s.stream);
      break;
  }
  SB_CUDA_CHECK(cudaGetLastError());
  SB_CUDA_CHECK(cudaEventRecord(s.e1, s.stream));
  SB_CUDA_CHECK(cudaEventSynchronize(s.e1));
  float ms = 0;
  SB_CUDA_CHECK(cudaEventElapsedTime(&ms, s.e0, s.e1));
  return ms * 1e-3;
}

Diagnostics GpuFilter::diagnostics() const {
  const Impl& s = *impl_;
  Diagnostics d;
  SB_CUDA_CHECK(cudaStreamSynchronize(s.stream));
  unsigned abort = 0;
  SB_CUDA_CHECK(cudaMemcpy(&abort, s.abort.data(), sizeof(unsigned), cudaMemcpyDeviceToHost));
  d.watchdog_fired = abort != 0;
  if (s.instrumented) {
    d.write_counts.resize(s.counts.size());
    SB_CUDA_CHECK(cudaMemcpy(d.write_counts.data(), s.counts.data(), s.counts.size() * sizeof(std::uint32_t),
                             cudaMemcpyDeviceToHost));
    unsigned long long oob = 0;
    SB_CUDA_CHECK(cudaMemcpy(&oob, s.oob.data(), sizeof(oob), cudaMemcpyDeviceToHost));
    d.out_of_array_reads = oob;
  }
  return d;
}

double GpuFilter::empty_chain(bool graph) {
  Impl& s = *impl_;
  if (graph && !s.empty_graph) s.empty_graph = s.capture(true);
  SB_CUDA_CHECK(cudaEventRecord(s.e0, s.stream));
  if (graph) SB_CUDA_CHECK(cudaGraphLaunch(s.empty_graph, s.stream));
  else kern::launch_empty_steps(s.shape.rows, s.shape.cols, s.stream);
  SB_CUDA_CHECK(cudaGetLastError());
  SB_CUDA_CHECK(cudaEventRecord(s.e1, s.stream));
  SB_CUDA_CHECK(cudaEventSynchronize(s.e1));
  float ms = 0;
  SB_CUDA_CHECK(cudaEventElapsedTime(&ms, s.e0, s.e1));
  return ms * 1e-3;
}

std::string gpu_unavailable_reason() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) return std::string("no CUDA device: ") + cudaGetErrorString(e);
  if (n == 0) return "no CUDA device: none found";
  return "";
}

}  // namespace splinebench::iir2d
