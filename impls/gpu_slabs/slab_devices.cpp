#include "gpu_slabs/slab_devices.hpp"

#include <string>

#include "gpu_common/flex/flex_launch.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/error.hpp"
#include "splinebench/slab_route.hpp"

namespace splinebench::gpu::slabs {

SyncEvent::SyncEvent() { SB_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming)); }

SyncEvent::~SyncEvent() {
  if (event_) (void)cudaEventDestroy(event_);
}

void SyncEvent::record(cudaStream_t stream) { SB_CUDA_CHECK(cudaEventRecord(event_, stream)); }

void SyncEvent::make_wait(cudaStream_t stream) const { SB_CUDA_CHECK(cudaStreamWaitEvent(stream, event_, 0)); }

void HaloLink::place_send(int device, std::size_t count) {
  if (send_device != device) {
    if (send_device >= 0) {
      DeviceGuard g(send_device);
      send.reset();
      packed.reset();
    }
    send_device = -1;
    DeviceGuard g(device);
    packed = std::make_unique<SyncEvent>();
    send_device = device;
  }
  DeviceGuard g(device);
  send.resize(count);
}

void HaloLink::free_all() noexcept {
  if (send_device < 0) return;
  int previous = -1;
  if (cudaGetDevice(&previous) != cudaSuccess) return;
  (void)cudaSetDevice(send_device);
  send.reset();
  packed.reset();
  (void)cudaSetDevice(previous);
  send_device = -1;
}

Slab::Slab(int device_index) : device(device_index) {
  DeviceGuard g(device);
  int pitch = 0;
  SB_CUDA_CHECK(cudaDeviceGetAttribute(&pitch, cudaDevAttrMaxPitch, device));
  max_pitch = static_cast<std::size_t>(pitch);
  SB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  share_ready = std::make_unique<SyncEvent>();
  carry_ready = std::make_unique<SyncEvent>();
  anti_share_ready = std::make_unique<SyncEvent>();
  anti_carry_ready = std::make_unique<SyncEvent>();
  done = std::make_unique<SyncEvent>();
}

void Slab::free_buffers() noexcept {
  // Links first: their send buffers may live on other devices.
  for (HaloLink& link : halo) link.free_all();
  int previous = -1;
  if (cudaGetDevice(&previous) != cudaSuccess) return;
  (void)cudaSetDevice(device);
  for (HaloLink& link : halo) link.recv.reset();
  data.reset();
  scratch.reset();
  gather.reset();
  inner_out.reset();
  inner_tmp.reset();
  inner_sized_for = 0;
  inner_runner.reset();
  coords.reset();
  values.reset();
  (void)cudaSetDevice(previous);
}

Slab::~Slab() {
  if (stream) (void)cudaStreamSynchronize(stream);
  free_buffers();
  int previous = -1;
  if (cudaGetDevice(&previous) != cudaSuccess) return;
  (void)cudaSetDevice(device);
  share_ready.reset();
  carry_ready.reset();
  anti_share_ready.reset();
  anti_carry_ready.reset();
  done.reset();
  if (stream) (void)cudaStreamDestroy(stream);
  (void)cudaSetDevice(previous);
}

SlabSet::SlabSet() {
  const std::string reason = cuda_unavailable_reason();
  if (!reason.empty()) throw Unsupported("gpu_slabs: " + reason);
  SB_CUDA_CHECK(cudaGetDeviceCount(&device_count_));
  // Peer access where the hardware has it; cudaMemcpyPeerAsync stages through the host
  // where it does not, so the exchanges work either way.
  for (int a = 0; a < device_count_; ++a)
    for (int b = 0; b < device_count_; ++b) {
      if (a == b) continue;
      int can = 0;
      SB_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, a, b));
      if (!can) continue;
      DeviceGuard g(a);
      const cudaError_t err = cudaDeviceEnablePeerAccess(b, 0);
      if (err == cudaErrorPeerAccessAlreadyEnabled || err == cudaErrorTooManyPeers)
        (void)cudaGetLastError();  // already on, or out of peer slots: copies still work
      else
        SB_CUDA_CHECK(err);
    }
  DeviceGuard g(master_device());
  SB_CUDA_CHECK(cudaStreamCreateWithFlags(&master_, cudaStreamNonBlocking));
  fork_ = std::make_unique<SyncEvent>();
  timer_ = std::make_unique<EventTimer>();
  chain_ = std::make_unique<EventChain>(kMaxDims + 1);
}

SlabSet::~SlabSet() {
  slabs_.clear();
  int previous = -1;
  if (cudaGetDevice(&previous) != cudaSuccess) return;
  (void)cudaSetDevice(master_device());
  if (master_) (void)cudaStreamSynchronize(master_);
  fork_.reset();
  timer_.reset();
  chain_.reset();
  if (master_) (void)cudaStreamDestroy(master_);
  (void)cudaSetDevice(previous);
}

void SlabSet::configure(const SlabLayout& layout, std::int64_t P, std::int64_t fields, Mode mode) {
  const int S = layout.slabs();
  while (count() > S) slabs_.pop_back();
  while (count() < S) slabs_.push_back(std::make_unique<Slab>(layout.device(count())));
  const std::int64_t set = fields * P;
  const bool periodic = mode == Mode::periodic;
  for (int s = 0; s < S; ++s) {
    Slab& sl = slab(s);
    if (sl.device != layout.device(s)) throw Error("gpu_slabs: slab " + std::to_string(s) + " moved device");
    sl.start = layout.start(s);
    sl.len = layout.len(s);
    sl.P = P;
    sl.fields = fields;
    DeviceGuard g(sl.device);
    const std::size_t data_count = static_cast<std::size_t>(fields * sl.pitch());
    if (sl.data.size() != data_count) {
      sl.data.resize(data_count);
      // The halo planes are written only when the extended planes are built, but the
      // inner axes' prefilter runs over them (its lines lie inside a plane): start them
      // at zero so nothing reads uninitialised memory.
      SB_CUDA_CHECK(cudaMemsetAsync(sl.data.data(), 0, sl.data.bytes(), sl.stream));
    }
    sl.scratch.resize(static_cast<std::size_t>(kScratchSets * set));
    const bool gathers = s == 0 || (periodic && s == S - 1);
    if (gathers)
      sl.gather.resize(static_cast<std::size_t>(S * set));
    else
      sl.gather.reset();
  }
  // Halo links: extended planes 0, len + 1 and len + 2 come from the planes the mode's
  // extension puts there (slab_route.hpp's extended_plane()).
  for (int s = 0; s < S; ++s) {
    Slab& sl = slab(s);
    const std::int64_t ext_planes[3] = {0, sl.len + 1, sl.len + 2};
    for (int k = 0; k < 3; ++k) {
      HaloLink& link = sl.halo[static_cast<std::size_t>(k)];
      const std::int64_t g = slab::extended_plane(static_cast<int>(mode), sl.start, ext_planes[k], layout.n);
      link.owner = slab::slab_of(layout.starts.data(), S, g);
      link.owner_plane = g - layout.start(link.owner);
      link.ext_plane = ext_planes[k];
      link.place_send(layout.device(link.owner), static_cast<std::size_t>(set));
      DeviceGuard g2(sl.device);
      link.recv.resize(static_cast<std::size_t>(set));
    }
  }
}

void SlabSet::fork() {
  {
    DeviceGuard g(master_device());
    fork_->record(master_);
  }
  for (auto& sl : slabs_) {
    DeviceGuard g(sl->device);
    fork_->make_wait(sl->stream);
  }
}

void SlabSet::join() {
  for (auto& sl : slabs_) {
    DeviceGuard g(sl->device);
    sl->done->record(sl->stream);
  }
  DeviceGuard g(master_device());
  for (auto& sl : slabs_) sl->done->make_wait(master_);
}

void SlabSet::begin_phase() {
  {
    DeviceGuard g(master_device());
    timer_->start(master_);
  }
  fork();
}

double SlabSet::end_phase() {
  join();
  DeviceGuard g(master_device());
  return timer_->stop(master_);
}

void SlabSet::mark(int i) {
  DeviceGuard g(master_device());
  chain_->record(i, master_);
}

double SlabSet::seconds(int from, int to) {
  DeviceGuard g(master_device());
  return chain_->seconds(from, to);
}

void SlabSet::release() noexcept {
  for (auto& sl : slabs_) {
    if (sl->stream) (void)cudaStreamSynchronize(sl->stream);
    sl->free_buffers();
  }
}

void peer_copy(float* dst, int dst_device, const float* src, int src_device, std::int64_t count,
               cudaStream_t stream) {
  if (count <= 0) return;
  const std::size_t bytes = static_cast<std::size_t>(count) * sizeof(float);
  if (dst_device == src_device)
    SB_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
  else
    SB_CUDA_CHECK(cudaMemcpyPeerAsync(dst, dst_device, src, src_device, bytes, stream));
}

void copy_rows(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
               std::size_t rows, cudaMemcpyKind kind, std::size_t max_pitch, cudaStream_t stream) {
  if (rows == 0 || width == 0) return;
  if (rows == 1) {
    SB_CUDA_CHECK(cudaMemcpyAsync(dst, src, width, kind, stream));
  } else if (dpitch <= max_pitch && spitch <= max_pitch) {
    SB_CUDA_CHECK(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows, kind, stream));
  } else {
    for (std::size_t r = 0; r < rows; ++r)
      SB_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(src) + r * spitch,
                                    width, kind, stream));
  }
}

}  // namespace splinebench::gpu::slabs
