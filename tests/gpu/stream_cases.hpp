// The cases both streamed-prefilter tests run (test_stream_plan.cpp on the host,
// test_gpu_stream.cpp on a device): shapes, their names, and the slab thicknesses that
// give 1 to 8 slabs, a last slab one plane thick and every slab one plane.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "splinebench/types.hpp"

namespace splinebench::stream_tests {

struct StreamCase {
  std::vector<std::int64_t> extents;
  int channels;
  Mode mode;
};

// Printed by name in failure messages, not as bytes.
inline void PrintTo(const StreamCase& c, std::ostream* os) {
  *os << to_string(c.mode) << " C" << c.channels;
  for (auto e : c.extents) *os << ' ' << e;
}

inline std::string stream_case_name(const ::testing::TestParamInfo<StreamCase>& info) {
  std::string name = std::string(to_string(info.param.mode)) + "_D" + std::to_string(info.param.extents.size());
  for (auto e : info.param.extents) {
    name += '_';
    name += std::to_string(e);
  }
  name += "_C";
  name += std::to_string(info.param.channels);
  return name;
}

// Planes per slab giving 1 to 8 slabs (as many as the line allows), plus n - 1 (the
// last slab one plane thick) and 1 (every slab one plane).
inline std::vector<std::int64_t> thicknesses(std::int64_t n) {
  std::vector<std::int64_t> t;
  for (std::int64_t slabs = 1; slabs <= std::min<std::int64_t>(8, n); ++slabs) t.push_back((n + slabs - 1) / slabs);
  if (n > 2) t.push_back(n - 1);
  t.push_back(1);
  std::sort(t.begin(), t.end());
  t.erase(std::unique(t.begin(), t.end()), t.end());
  return t;
}

}  // namespace splinebench::stream_tests
