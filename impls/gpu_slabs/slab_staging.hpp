// Copies between the caller's (pageable) array and the slabs' devices through a few
// small page-locked buffers per slab instead of one page-locked copy of the whole field:
// the field's own size of pinned memory beside the caller's array would halve the largest
// field a host can hold (a 2048^3 f32 field is 32 GiB; 3456^3, 165 GB, fits a 256 GiB host
// only once). Each slab has its own ring of chunks, so the copies of all devices run at
// once while the host fills (or empties) the next chunk of each slab in turn. The host's
// copy into or out of a chunk is split over the cores (OpenMP): on one thread it is far
// slower than the link.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "gpu_slabs/slab_devices.hpp"
#include "splinebench/cuda/device_buffer.hpp"

namespace splinebench::gpu::slabs {

class SlabStaging {
 public:
  // `chunk_bytes` per buffer, `buffers` (>= 2) buffers per slab, allocated on first use
  // and kept while the slab count stays the same.
  explicit SlabStaging(std::size_t chunk_bytes = std::size_t{64} << 20, int buffers = 2);
  ~SlabStaging();
  SlabStaging(const SlabStaging&) = delete;
  SlabStaging& operator=(const SlabStaging&) = delete;

  // host: fields x values floats ([field][plane][P], the caller's layout). Copies every
  // slab's interior planes of every field to its device (upload) or back (download),
  // enqueued on the slabs' streams; returns when the host side is done (for a download,
  // when every value is in `host`).
  void upload(SlabSet& set, const float* host, std::int64_t values, std::int64_t P);
  void download(SlabSet& set, float* host, std::int64_t values, std::int64_t P);

  // Frees the pinned buffers (after waiting for their copies).
  void release() noexcept;

 private:
  struct Lane;
  void ensure_lanes(SlabSet& set);

  std::size_t chunk_bytes_;
  int buffers_;
  std::vector<std::unique_ptr<Lane>> lanes_;
};

}  // namespace splinebench::gpu::slabs
