// Entry points of the cpu_sse kernels (hand-written SSE4.1 intrinsics, 4 lanes).
#pragma once

#include "cpu_common/eval_grid.hpp"
#include "cpu_common/prefilter_driver.hpp"

namespace splinebench::cpu::sse {

// False when this build has no SSE4.1 kernels (not an x86 compiler).
bool kernels_built();

PrefilterKernels prefilter_kernels();
EvalRangeFn eval_kernel();

}  // namespace splinebench::cpu::sse
