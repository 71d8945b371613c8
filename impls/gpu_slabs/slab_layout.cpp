#include "gpu_slabs/slab_layout.hpp"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>

#include "splinebench/error.hpp"

namespace splinebench::gpu::slabs {

int parse_forced_slabs(const char* text) {
  if (!text || !*text) return 0;
  const std::string s(text);
  const std::string bad = std::string(kSlabsEnv) + "='" + s + "': ";
  if (s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
    throw Error(bad + "expected a whole number of slabs from 1 to " + std::to_string(kMaxSlabs));
  const long k = std::strtol(s.c_str(), nullptr, 10);
  if (k < 1 || k > kMaxSlabs)
    throw Error(bad + "the slab count must be from 1 to " + std::to_string(kMaxSlabs));
  return static_cast<int>(k);
}

int slab_count(int device_count, std::int64_t n) {
  if (device_count < 1) throw Error("gpu_slabs: no CUDA device to put slabs on");
  if (n < 1) throw Error("gpu_slabs: axis 0 has no planes");
  const int forced = parse_forced_slabs(std::getenv(kSlabsEnv));
  const int wanted = forced > 0 ? forced : std::max(2, device_count);
  return static_cast<int>(std::min<std::int64_t>(wanted, n));
}

SlabLayout make_layout(std::int64_t n, int slabs, int device_count) {
  if (slabs < 1 || slabs > n) throw Error("gpu_slabs: cannot split " + std::to_string(n) + " planes into " +
                                          std::to_string(slabs) + " slabs");
  SlabLayout layout;
  layout.n = n;
  const std::int64_t base = n / slabs, extra = n % slabs;
  std::int64_t start = 0;
  for (int s = 0; s < slabs; ++s) {
    layout.starts.push_back(start);
    layout.devices.push_back(s % device_count);
    start += base + (s < extra ? 1 : 0);
  }
  return layout;
}

std::string describe(const SlabLayout& layout) {
  std::int64_t lo = layout.n, hi = 0;
  for (int s = 0; s < layout.slabs(); ++s) lo = std::min(lo, layout.len(s)), hi = std::max(hi, layout.len(s));
  const std::set<int> devices(layout.devices.begin(), layout.devices.end());
  std::string planes = lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
  return std::to_string(layout.slabs()) + " slabs of " + planes + " planes on " + std::to_string(devices.size()) +
         (devices.size() == 1 ? " device" : " devices");
}

}  // namespace splinebench::gpu::slabs
