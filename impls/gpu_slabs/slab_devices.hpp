// The devices of gpu_slabs and what each slab keeps on its device: a stream, the slab's
// extended planes, the scratch planes of the axis-0 exchanges, the halo links and the
// evaluation buffers; and the master stream (on slab 0's device) that every multi-device
// phase forks from and joins into, so one pair of CUDA events times a phase over all
// devices.
//
// Every CUDA call is checked; every call that needs a current device makes it current
// for its scope (DeviceGuard) and restores the caller's.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "gpu_common/event_chain.hpp"
#include "gpu_common/event_timer.hpp"
#include "gpu_common/scoped_device.hpp"
#include "gpu_slabs/slab_layout.hpp"
#include "splinebench/cuda/device_buffer.hpp"
#include "splinebench/types.hpp"

namespace splinebench::gpu::flex {
class FlexRunner;
}

namespace splinebench::gpu::slabs {

// Makes `device` current for the scope and restores the previous device after it.
using DeviceGuard = ::splinebench::gpu::ScopedDevice;

// An event that only orders work between streams (no timing), on the current device.
class SyncEvent {
 public:
  SyncEvent();
  ~SyncEvent();
  SyncEvent(const SyncEvent&) = delete;
  SyncEvent& operator=(const SyncEvent&) = delete;
  void record(cudaStream_t stream);
  // Work enqueued on `stream` after this call waits for the last record.
  void make_wait(cudaStream_t stream) const;

 private:
  cudaEvent_t event_ = nullptr;
};

// Scratch plane sets of a slab, each fields x P floats, contiguous.
enum Scratch : int {
  kShareCausal,      // step 1: this slab's share of the causal initial value
  kShareAnticausal,  // step 5, periodic: its share of the anti-causal initial value
  kInitCausal,       // slab 0: the causal initial value (summed shares / norm)
  kInitAnticausal,   // last slab: the anti-causal initial value
  kCarryCausalIn,    // from the previous slab
  kCarryCausalOut,   // to the next slab
  kCarryAntiIn,      // from the next slab
  kCarryAntiOut,     // to the previous slab
  kScratchSets
};

// One halo plane of a slab: its extended plane `ext_plane` holds interior plane
// `owner_plane` of slab `owner`. Packed into `send` on the owner's device, copied to
// `recv` on the slab's device, unpacked into the extended plane.
struct HaloLink {
  int owner = 0;
  std::int64_t owner_plane = 0;
  std::int64_t ext_plane = 0;
  int send_device = -1;
  gpu::DeviceBuffer<float> send;       // on send_device
  std::unique_ptr<SyncEvent> packed;  // on send_device
  gpu::DeviceBuffer<float> recv;       // on the slab's device

  // Puts `send` (count floats) and `packed` on `device`, moving them if they were elsewhere.
  void place_send(int device, std::size_t count);
  void free_all() noexcept;
};

struct Slab {
  explicit Slab(int device_index);
  ~Slab();
  Slab(const Slab&) = delete;
  Slab& operator=(const Slab&) = delete;

  int device = 0;
  std::int64_t start = 0;
  std::int64_t len = 0;
  std::int64_t P = 0;       // floats per plane
  std::int64_t fields = 0;
  std::size_t max_pitch = 0;  // cudaDevAttrMaxPitch of the device
  cudaStream_t stream = nullptr;

  gpu::DeviceBuffer<float> data;     // [fields][len + 3][P]: the extended planes
  gpu::DeviceBuffer<float> scratch;  // kScratchSets plane sets
  gpu::DeviceBuffer<float> gather;   // one plane set per slab: the reductions' shares (slab 0, last)
  // The inner axes' out-of-place gpu_flex launch (slab_inner.hpp): its output and
  // temporary planes, and its runner (a ticket counter per slab, as slabs sharing a
  // device run at once).
  gpu::DeviceBuffer<float> inner_out, inner_tmp;
  std::size_t inner_sized_for = 0;  // data.size() the chunk-sized inner buffers were made for
  std::unique_ptr<flex::FlexRunner> inner_runner;
  gpu::DeviceBuffer<float> coords;   // evaluation: this slab's queries
  gpu::DeviceBuffer<float> values;
  std::unique_ptr<SyncEvent> share_ready, carry_ready, anti_share_ready, anti_carry_ready, done;
  std::array<HaloLink, 3> halo;

  std::int64_t pitch() const { return (len + 3) * P; }  // floats between fields
  std::int64_t set_values() const { return fields * P; }
  float* ext() const { return data.data(); }
  float* interior() const { return data.data() + P; }
  float* set(Scratch k) const { return scratch.data() + static_cast<std::int64_t>(k) * set_values(); }

  void free_buffers() noexcept;
};

class SlabSet {
 public:
  // Needs a CUDA device; enables peer access between every pair of devices that can.
  SlabSet();
  ~SlabSet();
  SlabSet(const SlabSet&) = delete;
  SlabSet& operator=(const SlabSet&) = delete;

  int device_count() const { return device_count_; }

  // Slabs for `layout`, each with buffers for `fields` fields of planes of P floats (the
  // data zeroed when newly allocated), the reductions' gathers (slab 0; the last slab
  // too for periodic) and the halo links of `mode`. Moves no data.
  void configure(const SlabLayout& layout, std::int64_t P, std::int64_t fields, Mode mode);

  int count() const { return static_cast<int>(slabs_.size()); }
  Slab& slab(int s) { return *slabs_[static_cast<std::size_t>(s)]; }
  int master_device() const { return 0; }

  // fork: every slab stream waits for the master's work so far; join: the master waits
  // for every slab stream's work so far.
  void fork();
  void join();
  // A timed phase over all devices: begin_phase() records the start on the master stream
  // and forks; end_phase() joins and returns the seconds from the start to the join
  // (waiting for it).
  void begin_phase();
  double end_phase();
  // Event `i` of a row on the master stream (after a join), and the seconds between two.
  void mark(int i);
  double seconds(int from, int to);
  // Frees every slab's device memory (streams and events stay).
  void release() noexcept;

 private:
  int device_count_ = 0;
  cudaStream_t master_ = nullptr;
  std::unique_ptr<SyncEvent> fork_;
  std::unique_ptr<EventTimer> timer_;
  std::unique_ptr<EventChain> chain_;
  std::vector<std::unique_ptr<Slab>> slabs_;
};

// `count` floats from `src` on src_device to `dst` on dst_device, enqueued on `stream` (the
// current device's): cudaMemcpyPeerAsync between devices (with or without peer access),
// a device-to-device copy when both are on one device (slabs sharing a device).
void peer_copy(float* dst, int dst_device, const float* src, int src_device, std::int64_t count,
               cudaStream_t stream);

// `rows` rows of `width` bytes between host and device with pitches in bytes: one copy
// when rows == 1, one 2-D copy when the pitches are within the device's limit, a copy per
// row otherwise.
void copy_rows(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
               std::size_t rows, cudaMemcpyKind kind, std::size_t max_pitch, cudaStream_t stream);

}  // namespace splinebench::gpu::slabs
