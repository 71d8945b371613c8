// Included first by every Highway source of cpu_simd. The kernels keep vectors in
// small arrays (weights and offsets per axis and tap), which sizeless vector types
// (Arm SVE, RISC-V V) do not allow; those targets are left out, so Arm builds use
// NEON and x86 builds are unaffected.
#pragma once

#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128 | HWY_RVV)
#endif
