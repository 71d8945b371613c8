// Host runs of the gpu_flex tile code (flex_emulate.hpp) for the emulation tests: one
// case on fresh random data against the double oracle, and bitwise comparison.
#pragma once

#include <cmath>
#include <cstring>
#include <vector>

#include "common/accuracy.hpp"
#include "flex_test_cases.hpp"
#include "gpu_flex/flex_emulate.hpp"
#include "gpu_flex/flex_plan.hpp"
#include "reference/oracle_batch.hpp"

namespace splinebench::testing {

// Tolerance, as for cpu_scalar: the same float32 recursions (about one ulp of RMS
// rounding error per axis pass: 2e-7 covers D <= 3, 5e-7 D <= 6); the halo truncation
// adds at most 1e-9 relative per axis (flex_pass.hpp).
inline double flex_tolerance(int dims) { return dims <= 3 ? 2e-7 : 5e-7; }

struct FlexResult {
  std::vector<float> out;
  double rel_l2 = 0;
};

// Emulates the plan for `c` on random data (outputs and the temporary poisoned with NaN).
inline FlexResult run_flex_case(const FlexCase& c, Mode mode, gpu::flex::Variant variant,
                                const gpu::flex::DeviceLimits& lim, const gpu::flex::Tuning& tun,
                                const std::vector<std::int64_t>* order = nullptr, std::uint64_t seed = 7) {
  const GridShape shape = GridShape::make(c.extents, c.channels);
  const std::int64_t n = shape.values() * c.fields;
  const std::vector<float> in = random_values<float>(n, seed);
  std::vector<double> ref(in.begin(), in.end());
  oracle::prefilter_f64(shape, c.fields, ref.data(), mode);
  FlexResult r;
  r.out.assign(static_cast<std::size_t>(n), std::nanf(""));
  std::vector<float> tmp(static_cast<std::size_t>(n), std::nanf(""));
  gpu::flex::Plan plan = gpu::flex::make_plan(shape, c.fields, mode, variant, lim, tun);
  gpu::flex::bind_buffers(plan, in.data(), r.out.data(), tmp.data());
  gpu::flex::emulate(plan, variant, order);
  r.rel_l2 = rel_l2(r.out, ref);
  return r;
}

// Values whose bits differ between two outputs of the same length.
inline std::size_t count_bit_differences(const std::vector<float>& a, const std::vector<float>& b) {
  std::size_t differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0) ++differ;
  return differ;
}

}  // namespace splinebench::testing
