// Shapes the gpu_flex tests run (host emulation and device): every tile kind, short
// lines (N = 1, 2, 3), odd sizes, tile edges that fall inside and outside the data,
// channels and field batches. Rows wider than a block has threads (3x1100 one channel,
// 3x300 two, 19x290 four) take the shared-memory ring of stream_x; chunks of 1024 columns
// (37x45x33, 20x50x40, 5x3x9x34) the bulk or the two-column register tile.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "common/printers.hpp"
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

// Printed by name in test lists and failure messages (common/printers.hpp does Mode).
inline void PrintTo(const FlexCase& c, std::ostream* os) { *os << c.name(); }

// Small enough for the host emulation and compute-sanitizer.
inline std::vector<FlexCase> flex_small_cases() {
  return {
      {{1}, 1, 1},         {{2}, 1, 1},          {{3}, 1, 1},          {{5}, 2, 3},
      {{33}, 4, 2},        {{1000}, 1, 1},       {{4099}, 1, 2},       {{1}, 1, 4},
      {{1, 7}, 1, 1},      {{3, 2}, 1, 1},       {{37, 45}, 1, 2},     {{70, 33}, 2, 1},
      {{19, 290}, 4, 1},   {{2, 2, 2}, 1, 1},    {{1, 1, 1}, 1, 1},    {{3, 5, 7}, 1, 2},
      {{37, 45, 33}, 1, 1}, {{20, 50, 40}, 2, 1}, {{17, 19, 21}, 4, 1}, {{3, 4, 5, 6}, 1, 1},
      {{5, 3, 9, 34}, 2, 2}, {{2, 3, 2, 3, 4}, 1, 1}, {{2, 2, 3, 2, 3, 2}, 4, 1}, {{3, 2, 2, 2, 2, 5}, 1, 2},
      {{3, 1100}, 1, 1},   {{3, 300}, 2, 1},
  };
}

// Stream axes of 224 samples or more: planned for one block (a range per axis), their
// register stream_x tiles have 16 sub-blocks or more and run in two teams: one slice per
// tile (2-D), slice groups with a short last group, and eight slices of 64 columns (more
// columns than the y team has threads).
inline std::vector<FlexCase> flex_long_cases() {
  return {{{240, 40}, 1, 1}, {{3, 230, 40}, 1, 1}, {{9, 230, 40}, 1, 1}, {{3, 230, 20}, 2, 1}, {{2, 250, 24}, 4, 2}};
}

}  // namespace splinebench::testing
