// The start vector of GPU MG-PCG's Lanczos estimates (one per level, in its setup): value
// i of level l, uniform in [-1, 1), from a counter-based hash of (l, i), so that the
// device writes it in place, one thread per value, and the tests' host model of the
// V-cycle forms the same values. (A host generator and an upload cost the setup a few
// milliseconds at 512^2 and a few hundred at 256^3.)
#pragma once

#include <cstdint>

#include "splinebench/bspline_math.hpp"  // SPLINEBENCH_HD

namespace splinebench::scattered {

SPLINEBENCH_HD float lanczos_start_value(int level, long long i) {
  // splitmix64 (Steele, Lea, Flood 2014) of the level in the high bits and the index.
  std::uint64_t z = (static_cast<std::uint64_t>(2024 + level) << 40) ^ static_cast<std::uint64_t>(i);
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  // The top 24 bits: k / 2^23 - 1 for k in [0, 2^24), exact in float.
  return static_cast<float>(static_cast<std::int32_t>(z >> 40) - (1 << 23)) * (1.0f / (1 << 23));
}

}  // namespace splinebench::scattered
