// The prefilter tolerance of every implementation whose outputs each come from a window of
// +-16 samples per axis with the float32 recursions of cpu_scalar (gpu_flex, gpu_lines):
// the float32 pass-by-pass bound of f32_accuracy.hpp, plus the halo's truncation, at most
// 5.4 |z|^17 max|input| = 1.0e-9 max|input| per axis (derivation in flex/flex_pass.hpp).
// Plain C++: gpu_lines' planner, which builds without CUDA too, uses it.
#pragma once

#include "splinebench/f32_accuracy.hpp"
#include "splinebench/implementation.hpp"
#include "splinebench/types.hpp"

namespace splinebench::gpu {

inline Tolerance halo_truncated_tolerance(const GridShape& shape) {
  Tolerance t = f32_accuracy::pass_by_pass_tolerance(shape);
  t.basis = "prefilter: float32 recursions plus halo truncation <= 1.0e-9 relative per axis; " + t.basis;
  return t;
}

}  // namespace splinebench::gpu
