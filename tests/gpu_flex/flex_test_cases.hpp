// Shapes the gpu_flex tests run (host emulation and device): every tile kind, short
// lines (N = 1, 2, 3), odd sizes, tile edges that fall inside and outside the data,
// channels and field batches.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "splinebench/types.hpp"

namespace splinebench::testing {

struct FlexCase {
  std::vector<std::int64_t> extents;
  int channels = 1;
  std::int64_t fields = 1;
  std::string name() const {
    std::string s;
    // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive inside
    // libstdc++) on `const char* + std::string&&` here.
    for (auto e : extents) {
      if (!s.empty()) s += 'x';
      s += std::to_string(e);
    }
    return s + "_C" + std::to_string(channels) + "_F" + std::to_string(fields);
  }
};

// Small enough for the host emulation and compute-sanitizer.
inline std::vector<FlexCase> flex_small_cases() {
  return {
      {{1}, 1, 1},         {{2}, 1, 1},          {{3}, 1, 1},          {{5}, 2, 3},
      {{33}, 4, 2},        {{1000}, 1, 1},       {{4099}, 1, 2},       {{1}, 1, 4},
      {{1, 7}, 1, 1},      {{3, 2}, 1, 1},       {{37, 45}, 1, 2},     {{70, 33}, 2, 1},
      {{19, 290}, 4, 1},   {{2, 2, 2}, 1, 1},    {{1, 1, 1}, 1, 1},    {{3, 5, 7}, 1, 2},
      {{37, 45, 33}, 1, 1}, {{20, 50, 40}, 2, 1}, {{17, 19, 21}, 4, 1}, {{3, 4, 5, 6}, 1, 1},
      {{5, 3, 9, 34}, 2, 2}, {{2, 3, 2, 3, 4}, 1, 1}, {{2, 2, 3, 2, 3, 2}, 4, 1}, {{3, 2, 2, 2, 2, 5}, 1, 2},
  };
}

}  // namespace splinebench::testing
