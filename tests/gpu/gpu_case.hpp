// Shared by the GPU tests: the skip rule for machines without a CUDA device, and one
// accuracy case run end to end through the Implementation interface against the
// double oracle (fresh noise, NaN-poisoned outputs, every element checked).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "splinebench/cuda/check.hpp"
#include "splinebench/implementation.hpp"
#include "splinebench/types.hpp"

// Skips the current test with "no CUDA device: <reason>" when no device is usable.
#define SB_REQUIRE_CUDA_DEVICE()                                                        \
  do {                                                                                  \
    const std::string sb_reason_ = ::splinebench::gpu::cuda_unavailable_reason();      \
    if (!sb_reason_.empty()) GTEST_SKIP() << "no CUDA device: " << sb_reason_;          \
  } while (0)

namespace splinebench::gpu_tests {

struct CaseSpec {
  std::string impl;
  std::vector<std::int64_t> extents;
  int channels = 1;
  std::int64_t fields = 1;
  Mode mode = Mode::mirror;
  std::int64_t queries = 1500;  // half uniform in range, half outside, plus specials
  std::uint64_t seed = 1;
  std::vector<float> coords;    // when not empty: these (D, n) queries instead (n = size / D)
};

struct CaseResult {
  double prefilter_rel_l2 = 0;      // read-back coefficients vs oracle
  double interp_max_rel_to_maxf = 0;
  double max_f = 0;
  double max_coeff_diff = 0;        // oracle max|c[k+1]-c[k]| along the last min(D,3) axes
  double max_coeff = 0;             // oracle max|c|
  std::int64_t nan_mismatches = 0;  // NaN where the oracle is finite or the reverse
  std::int64_t unwritten = 0;       // outputs still NaN at finite coordinates
  Tolerance tolerance;              // the implementation's, asked after prepare
};

// Coordinates (D, n): the first half uniform in range, the rest outside the grid,
// then a few specials (NaN, +-Inf, huge, exact borders) replacing early entries.
std::vector<float> make_test_queries(const GridShape& shape, std::int64_t n, std::uint64_t seed);

CaseResult run_case(const CaseSpec& spec);

std::string case_name(const CaseSpec& spec);

// Printed by name in test lists and failure messages, not as bytes.
inline void PrintTo(const CaseSpec& spec, std::ostream* os) { *os << case_name(spec); }

// max |c[k+1] - c[k]| (for periodic also (N-1, 0)) along the last min(D, 3) axes.
double max_neighbour_difference(const GridShape& shape, std::int64_t fields, Mode mode,
                                const std::vector<double>& coeffs);

}  // namespace splinebench::gpu_tests
