// Size limits of the GPU kernels, usable from host-only code.
#pragma once

#include <cstdint>

namespace splinebench::gpu {

// Longest axis the kernels index with int (the extension period 2N stays < 2^31).
inline constexpr std::int64_t kMaxAxisLength = std::int64_t{1} << 30;

}  // namespace splinebench::gpu
