// What the GPU tests of the 2-D IIR system share: the skip without a device, fresh
// noise, poisoned runs and bitwise comparison.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "splinebench/iir2d/gpu.hpp"

// Skips with "no CUDA device: <reason>" (or "not built: ...") where the schemes cannot run.
#define IIR2D_REQUIRE_GPU()                                                             \
  do {                                                                                  \
    const std::string why_ = ::splinebench::iir2d::gpu_unavailable_reason();            \
    if (!why_.empty()) {                                                                \
      if (why_.rfind("no CUDA device", 0) == 0) GTEST_SKIP() << why_;                   \
      GTEST_SKIP() << "no CUDA device: " << why_;                                       \
    }                                                                                   \
  } while (0)

namespace splinebench::iir2d::testing {

inline std::vector<float> noise(const Shape& s, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::vector<float> x(static_cast<std::size_t>(s.pixels()));
  for (auto& v : x) v = u(rng);
  return x;
}

inline bool bitwise_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// y poisoned (NaN) first, so an element no block wrote cannot pass for a result.
inline std::vector<float> filtered(GpuFilter& f, const Shape& s, Scheme scheme, const TestHooks* hooks = nullptr) {
  f.poison_output();
  f.run(scheme, hooks);
  std::vector<float> y(static_cast<std::size_t>(s.pixels()));
  f.download(y.data());
  return y;
}

inline std::size_t not_written_once(const Diagnostics& d) {
  std::size_t n = 0;
  for (auto c : d.write_counts) n += c != 1;
  return n;
}

}  // namespace splinebench::iir2d::testing
