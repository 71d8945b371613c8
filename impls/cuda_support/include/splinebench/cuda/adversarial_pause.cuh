// The adversarial-order tests' device-side pause: a pseudo-random pause of up to 20 us,
// and 200 us for one call in eight. Called before a block takes a ticket, claims work or
// publishes progress, it makes blocks start and finish in an order unrelated to their
// launch order, which a scheme that assumes an order (residency, block index) does not
// survive. The length of a pause is a function of (seed, salt, where) only.
#pragma once

#include <cstdint>

namespace splinebench::gpu {

__device__ inline void adversarial_pause(std::uint64_t seed, long long salt, int where) {
  std::uint64_t h = seed ^ (static_cast<std::uint64_t>(salt) * 0x9E3779B97F4A7C15ull) ^
                    (static_cast<std::uint64_t>(where + 1) * 0xBF58476D1CE4E5B9ull);
  h ^= h >> 31;
  h *= 0x94D049BB133111EBull;
  h ^= h >> 29;
  unsigned ns = static_cast<unsigned>(h % 20000u);
  if (((h >> 40) & 7u) == 0) ns = 200000u;
  for (unsigned slept = 0; slept < ns; slept += 1000u) __nanosleep(1000u);
}

}  // namespace splinebench::gpu
