#include "gpu_slabs/host_copy.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace splinebench::gpu::slabs {

void parallel_copy(void* dst, const void* src, std::size_t bytes) {
  constexpr std::size_t kPart = std::size_t{1} << 20;
  const auto parts = static_cast<std::int64_t>((bytes + kPart - 1) / kPart);
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
#pragma omp parallel for schedule(static) if (parts > 1)
  for (std::int64_t i = 0; i < parts; ++i) {
    const std::size_t off = static_cast<std::size_t>(i) * kPart;
    std::memcpy(d + off, s + off, std::min(kPart, bytes - off));
  }
}

}  // namespace splinebench::gpu::slabs
