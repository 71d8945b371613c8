// Entry points of the cpu_simd kernels. Each dispatches at run time (Highway) to the
// widest instruction set this CPU offers among those compiled in.
#pragma once

#include <string>

#include "cpu_common/eval_grid.hpp"
#include "cpu_common/prefilter_driver.hpp"

namespace splinebench::cpu::simd {

PrefilterKernels prefilter_kernels();
EvalRangeFn eval_kernel();
EvalRecordsFn eval_records_kernel();  // bin-sorted query records (query_bins.hpp)

// Name of the Highway target the dispatch picks now (e.g. "AVX3", "AVX2", "SSE4").
std::string dispatched_target();

}  // namespace splinebench::cpu::simd
