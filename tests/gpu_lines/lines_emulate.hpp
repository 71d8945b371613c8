// Host emulation of the gpu_lines kernels: the kernels' own bodies (impls/gpu_lines/
// lines_body.hpp) run on the CPU, lane by lane, and for a staged pass phase by phase
// between the block's barriers, with the plan's index type. Shared memory is filled with
// NaN before every block, so that a value read before it is written poisons the result.
// Only the tests need it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "gpu_lines/lines_body.hpp"
#include "gpu_lines/lines_plan.hpp"
#include "splinebench/types.hpp"

namespace splinebench::gpu::lines {

template <int S, typename Index>
void emulate_pass(const Pass& P, const float* src, float* dst, int mode) {
  if (!P.staged) {
    for (std::int64_t t = 0; t < P.tasks; ++t) strided_task<S, false>(src, dst, P, mode, static_cast<Index>(t));
    return;
  }
  std::vector<float> sm(P.smem_bytes / 4);
  std::vector<float> c(static_cast<std::size_t>(kThreads) * S);
  std::vector<char> active(kThreads);
  for (std::int64_t block = 0; block < P.blocks; ++block) {
    const Index b = static_cast<Index>(block);
    std::fill(sm.begin(), sm.end(), std::numeric_limits<float>::quiet_NaN());
    for (int tid = 0; tid < kThreads; ++tid) staged_load<false>(src, P, b, tid, sm.data());
    for (int tid = 0; tid < kThreads; ++tid)
      active[tid] = staged_lane<S>(P, b, tid, sm.data(), mode, c.data() + static_cast<std::size_t>(tid) * S);
    for (int tid = 0; tid < kThreads; ++tid)
      if (active[tid]) staged_put<S>(P, b, tid, c.data() + static_cast<std::size_t>(tid) * S, sm.data());
    for (int tid = 0; tid < kThreads; ++tid) staged_store(P, b, tid, sm.data(), dst);
  }
}

// Every pass of `plan` from `in` to `out` through `tmp` (plan.values floats each; tmp
// unused for one pass), as LinesRunner enqueues them.
inline void emulate_plan(const Plan& plan, const float* in, float* out, float* tmp, Mode mode) {
  const float* bufs[3] = {in, out, tmp};
  for (int p = 0; p < plan.count; ++p) {
    const float* src = bufs[src_buffer(plan.count, p)];
    float* dst = dst_buffer(plan.count, p) == 1 ? out : tmp;
    with_index(plan, [&](auto index) {
      using Index = decltype(index);
      with_segment(plan.pass[p].S, [&](auto Sc) {
        emulate_pass<decltype(Sc)::value, Index>(plan.pass[p], src, dst, static_cast<int>(mode));
      });
    });
  }
}

}  // namespace splinebench::gpu::lines
