// Orders in which the tickets of a flexible launch may hand out tiles, and the host
// simulation of the completion counters that checks them. The plain order is pass
// after pass, tiles in numbering order. The pipelined order (a pipelined plan's normal
// order) interleaves pass 0 and pass 1 so that each stream tile comes a little after
// the plane tiles it reads. The adversarial order (the debug mode of the tests) is a
// random order that still respects every dependency of flex_deps.hpp. Any order in
// which every tile comes after the tiles it waits for keeps the progress guarantee of
// flex_kernels.cu; the tests check that results do not change with the order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpu_flex/flex_pass.hpp"

namespace splinebench::gpu::flex {

// The pass of global tile `tile` (pass_begin[k] <= tile < pass_begin[k + 1]).
int pass_of(const LaunchDesc& launch, std::int64_t tile);

// The counters of flex_deps.hpp on the host, as if every tile handed out had finished.
class CounterSim {
 public:
  explicit CounterSim(const LaunchDesc& launch);
  bool ready(std::int64_t tile) const;  // every dependency of the tile met
  void finish(std::int64_t tile);       // its releases
 private:
  const LaunchDesc* launch_;
  std::vector<std::uint32_t> counters_;
};

// ticket -> tile (a global tile number: pass_begin[k] + tile of pass k).
std::vector<std::int64_t> adversarial_order(const LaunchDesc& launch, std::uint64_t seed);

// A pipelined launch's order: for each pass-1 slice, pass-0 y range by y range ("slab"),
// the plane tiles of the slab plane after plane, and each pass-1 tile of the slab as
// soon as the plane tiles it reads were handed out `lag_planes` planes earlier (so a
// stream tile rarely waits for a plane tile still running); then the later passes.
std::vector<std::int64_t> pipelined_order(const LaunchDesc& launch, int lag_planes);

// Whether `order` is a permutation of all tiles in which each tile's dependencies
// come first (what the kernel's progress argument needs); "" if so, else why not.
std::string check_order(const LaunchDesc& launch, const std::vector<std::int64_t>& order);

}  // namespace splinebench::gpu::flex
