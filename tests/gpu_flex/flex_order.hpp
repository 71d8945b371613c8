// Orders in which the tickets of a flexible launch may hand out tiles, for the tests
// (LaunchOptions::order on the device, emulate() on the host). The normal order is pass
// after pass, tiles in numbering order. The adversarial order is a random order that
// still respects every dependency: a tile of pass k > 0 comes after every tile of pass
// k - 1 of the same field, the only tiles it waits for. Any such order keeps the
// progress guarantee of flex_kernels.cu; the tests check that results do not change
// with it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpu_common/flex/flex_pass.hpp"

namespace splinebench::gpu::flex {

// ticket -> tile (a global tile number: pass_begin[k] + tile of pass k).
std::vector<std::int64_t> adversarial_order(const LaunchDesc& launch, std::uint64_t seed);

// Whether `order` is a permutation of all tiles in which each tile's dependencies
// come first (what the kernel's progress argument needs); "" if so, else why not.
std::string check_order(const LaunchDesc& launch, const std::vector<std::int64_t>& order);

}  // namespace splinebench::gpu::flex
