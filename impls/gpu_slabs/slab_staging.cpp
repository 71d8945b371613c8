#include "gpu_slabs/slab_staging.hpp"

#include "gpu_slabs/host_copy.hpp"

#include <algorithm>
#include <cstring>

#include "splinebench/cuda/check.hpp"
#include "splinebench/error.hpp"

namespace splinebench::gpu::slabs {

namespace {

// One contiguous run of bytes between the host array and a slab's device buffer.
struct Piece {
  char* device = nullptr;
  char* host = nullptr;  // const for an upload; the download writes it
  std::size_t bytes = 0;
};

// The interior planes of every field of slab `sl`, cut into pieces of at most `chunk` bytes.
std::vector<Piece> pieces_of(const Slab& sl, const float* host, std::int64_t values, std::int64_t P,
                             std::size_t chunk) {
  std::vector<Piece> out;
  const std::size_t field_bytes = static_cast<std::size_t>(sl.len * P) * sizeof(float);
  for (std::int64_t f = 0; f < sl.fields; ++f) {
    char* dev = reinterpret_cast<char*>(sl.interior() + f * sl.pitch());
    char* h = reinterpret_cast<char*>(const_cast<float*>(host) + f * values + sl.start * P);
    for (std::size_t off = 0; off < field_bytes; off += chunk)
      out.push_back({dev + off, h + off, std::min(chunk, field_bytes - off)});
  }
  return out;
}

}  // namespace

// A slab's ring: its pinned buffers, an event per buffer (its last copy), and for a
// download the piece each buffer holds until the host copies it out.
struct SlabStaging::Lane {
  int device = 0;
  std::vector<PinnedBuffer<char>> buffers;
  std::vector<cudaEvent_t> done;
  std::vector<const Piece*> pending;  // download: the piece in flight in each buffer
  std::vector<Piece> pieces;
  std::size_t next = 0;  // the next piece to enqueue
  std::size_t issued = 0;

  Lane(int dev, int count, std::size_t chunk) : device(dev), buffers(static_cast<std::size_t>(count)) {
    DeviceGuard g(device);
    for (auto& b : buffers) b.resize(chunk);
    done.assign(buffers.size(), nullptr);
    pending.assign(buffers.size(), nullptr);
    for (cudaEvent_t& e : done) SB_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  }
  ~Lane() {
    DeviceGuard g(device);
    for (cudaEvent_t e : done)
      if (e) {
        cudaEventSynchronize(e);
        cudaEventDestroy(e);
      }
  }
  Lane(const Lane&) = delete;
  Lane& operator=(const Lane&) = delete;
};

SlabStaging::SlabStaging(std::size_t chunk_bytes, int buffers) : chunk_bytes_(chunk_bytes), buffers_(buffers) {
  if (chunk_bytes_ == 0 || buffers_ < 2) throw Error("SlabStaging: chunk_bytes > 0 and at least 2 buffers");
}

SlabStaging::~SlabStaging() { release(); }

void SlabStaging::release() noexcept { lanes_.clear(); }

void SlabStaging::ensure_lanes(SlabSet& set) {
  bool same = lanes_.size() == static_cast<std::size_t>(set.count());
  for (std::size_t s = 0; same && s < lanes_.size(); ++s) same = lanes_[s]->device == set.slab(static_cast<int>(s)).device;
  if (same) return;
  lanes_.clear();
  for (int s = 0; s < set.count(); ++s)
    lanes_.push_back(std::make_unique<Lane>(set.slab(s).device, buffers_, chunk_bytes_));
}

void SlabStaging::upload(SlabSet& set, const float* host, std::int64_t values, std::int64_t P) {
  ensure_lanes(set);
  for (int s = 0; s < set.count(); ++s) {
    Lane& lane = *lanes_[static_cast<std::size_t>(s)];
    lane.pieces = pieces_of(set.slab(s), host, values, P, chunk_bytes_);
    lane.next = lane.issued = 0;
  }
  // Round robin over the slabs, one piece each: while the host fills a chunk of one slab,
  // the others' copies are in flight.
  for (bool busy = true; busy;) {
    busy = false;
    for (int s = 0; s < set.count(); ++s) {
      Lane& lane = *lanes_[static_cast<std::size_t>(s)];
      if (lane.next == lane.pieces.size()) continue;
      busy = true;
      const Piece& p = lane.pieces[lane.next++];
      const std::size_t k = lane.issued++ % lane.buffers.size();
      Slab& sl = set.slab(s);
      DeviceGuard g(sl.device);
      SB_CUDA_CHECK(cudaEventSynchronize(lane.done[k]));  // the buffer's previous copy has left it
      parallel_copy(lane.buffers[k].data(), p.host, p.bytes);
      SB_CUDA_CHECK(cudaMemcpyAsync(p.device, lane.buffers[k].data(), p.bytes, cudaMemcpyHostToDevice, sl.stream));
      SB_CUDA_CHECK(cudaEventRecord(lane.done[k], sl.stream));
    }
  }
}

void SlabStaging::download(SlabSet& set, float* host, std::int64_t values, std::int64_t P) {
  ensure_lanes(set);
  for (int s = 0; s < set.count(); ++s) {
    Lane& lane = *lanes_[static_cast<std::size_t>(s)];
    lane.pieces = pieces_of(set.slab(s), host, values, P, chunk_bytes_);
    lane.next = lane.issued = 0;
    std::fill(lane.pending.begin(), lane.pending.end(), nullptr);
  }
  // Each buffer: enqueue a piece's copy into it; when it comes round again, wait for that
  // copy, copy the piece out on the host, enqueue the next. Every buffer of every slab is
  // in flight before the host waits for the first.
  auto drain = [](Lane& lane, std::size_t k) {
    if (!lane.pending[k]) return;
    SB_CUDA_CHECK(cudaEventSynchronize(lane.done[k]));
    parallel_copy(lane.pending[k]->host, lane.buffers[k].data(), lane.pending[k]->bytes);
    lane.pending[k] = nullptr;
  };
  for (bool busy = true; busy;) {
    busy = false;
    for (int s = 0; s < set.count(); ++s) {
      Lane& lane = *lanes_[static_cast<std::size_t>(s)];
      if (lane.next == lane.pieces.size()) continue;
      busy = true;
      const std::size_t k = lane.issued++ % lane.buffers.size();
      Slab& sl = set.slab(s);
      DeviceGuard g(sl.device);
      drain(lane, k);
      const Piece& p = lane.pieces[lane.next++];
      SB_CUDA_CHECK(cudaMemcpyAsync(lane.buffers[k].data(), p.device, p.bytes, cudaMemcpyDeviceToHost, sl.stream));
      SB_CUDA_CHECK(cudaEventRecord(lane.done[k], sl.stream));
      lane.pending[k] = &p;
    }
  }
  for (int s = 0; s < set.count(); ++s) {
    Lane& lane = *lanes_[static_cast<std::size_t>(s)];
    DeviceGuard g(lane.device);
    for (std::size_t k = 0; k < lane.buffers.size(); ++k) drain(lane, k);
  }
}

}  // namespace splinebench::gpu::slabs
