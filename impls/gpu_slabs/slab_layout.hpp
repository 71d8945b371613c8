// How gpu_slabs splits a field along axis 0: how many slabs, where each starts and on
// which device it lives. Plain C++ (no CUDA), so the rule can be checked anywhere.
//
// Slab count: SPLINEBENCH_GPU_SLABS=K when set (K >= 1, so tests can reach any count on
// any machine), otherwise max(2, device count) (two slabs share a lone device, so the
// exchange path runs there too); never more than extent[0] (a slab holds at least one
// plane). Slabs are as equal as possible (lengths differ by at most one, the longer
// ones first); slab s lives on device s % device_count.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace splinebench::gpu::slabs {

// The environment variable that forces the slab count.
inline constexpr const char* kSlabsEnv = "SPLINEBENCH_GPU_SLABS";
// Largest forced count: each slab owns a stream, events and exchange buffers.
inline constexpr int kMaxSlabs = 256;

struct SlabLayout {
  std::int64_t n = 0;                // planes along axis 0
  std::vector<std::int64_t> starts;  // first plane of each slab, increasing from 0
  std::vector<int> devices;          // device of each slab

  int slabs() const { return static_cast<int>(starts.size()); }
  std::int64_t start(int s) const { return starts[static_cast<std::size_t>(s)]; }
  std::int64_t len(int s) const { return (s + 1 < slabs() ? start(s + 1) : n) - start(s); }
  int device(int s) const { return devices[static_cast<std::size_t>(s)]; }
};

// The forced slab count from the text of SPLINEBENCH_GPU_SLABS: 0 when `text` is null or
// empty (not forced); otherwise a decimal integer in [1, kMaxSlabs], or splinebench::Error
// saying what is wrong.
int parse_forced_slabs(const char* text);

// The slab count for a line of `n` planes on `device_count` devices, honouring
// SPLINEBENCH_GPU_SLABS (read on every call, so a process may change it between cases).
int slab_count(int device_count, std::int64_t n);

SlabLayout make_layout(std::int64_t n, int slabs, int device_count);

// "2 slabs of 64 planes on 1 device" style summary for messages and run facts.
std::string describe(const SlabLayout& layout);

}  // namespace splinebench::gpu::slabs
