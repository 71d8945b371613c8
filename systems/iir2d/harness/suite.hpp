// An iir2d suite (harness/suites/iir2d.json; format in systems/iir2d/README.md), parsed
// strictly: an unknown key, a bad value, an unknown scheme or family is a
// splinebench::Error naming the suite's origin and the key.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "splinebench/iir2d/filter.hpp"
#include "splinebench/iir2d/gpu.hpp"

namespace splinebench::iir2d::harness {

struct SweepSpec {
  std::string name;
  std::string note;
  std::vector<Shape> shapes;
  std::vector<int> Ms;
  std::vector<std::string> families;
  std::vector<Scheme> schemes;  // "schemes" less "exclude", in registry order
  bool empty_chains = true;     // the launch floor once per shape (its first sweep)
};

struct SuiteSpec {
  std::string name;
  int repetitions = 9;
  int warmups = 2;
  std::vector<SweepSpec> sweeps;
};

// The largest image a suite may name: beyond it no machine holds the image (2^56
// pixels, 1 EiB for x, y and the oracle). Smaller images too large for this machine
// are refused by the memory pre-check of `splinebench run`, before any allocation.
inline constexpr std::int64_t kMaxPixels = std::int64_t{1} << 56;

// The seed of the input noise and of the random coefficient family.
inline constexpr std::uint64_t kDefaultSeed = 2012;

SuiteSpec parse_suite(const nlohmann::json& suite, const std::string& origin);

}  // namespace splinebench::iir2d::harness
