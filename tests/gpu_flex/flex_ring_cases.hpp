// Shapes and ring settings of the gpu_flex ring tests (RingDesc in flex_pass.hpp), shared
// by the host emulation tests and the device tests.
#pragma once

#include <string>
#include <vector>

#include "flex_test_cases.hpp"
#include "gpu_flex/flex_plan.hpp"

namespace splinebench::testing {

struct RingCase {
  FlexCase shape;
  int planes = 16, rows = 16, lag = 2, group = 1, chunk = 1024;
  std::string name() const {
    return shape.name() + "_Z" + std::to_string(planes) + "_Y" + std::to_string(rows) + "_L" + std::to_string(lag) +
           "_G" + std::to_string(group) + "_W" + std::to_string(chunk);
  }
};

// Several bands and fields, channels, slice groups, chunks that are not bulk-copied
// (chunk width other than 1024: the per-thread register tile reads the ring), lags 1 to 3.
inline std::vector<RingCase> ring_cases() {
  return {
      {{{64, 16, 64}, 1, 1}},                          // one band, bulk chunks
      {{{48, 32, 32}, 2, 2}},                          // two bands, two fields, two channels
      {{{80, 48, 40}, 1, 1}, 16, 16, 1, 1, 320},       // three bands, register chunks, lag 1
      {{{64, 32, 64}, 1, 1}, 16, 16, 3, 2, 1024},      // slice groups of two, lag 3
      {{{128, 32, 16}, 4, 1}, 32, 32, 2, 1, 512},      // slabs of 32, four channels
  };
}

inline gpu::flex::Tuning ring_tuning(const RingCase& c) {
  gpu::flex::Tuning t;
  t.ring_planes = c.planes;
  t.ring_rows = c.rows;
  t.ring_lag = c.lag;
  t.x_group = c.group;
  t.chunk_width = c.chunk;
  return t;
}

}  // namespace splinebench::testing
