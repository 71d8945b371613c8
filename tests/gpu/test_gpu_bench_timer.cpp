// The GPU side of the benchmarks' shared mechanism (bench/gpu_bench_common/gpu_timer):
// a region of known GPU duration is timed as that duration, the host's enqueue hidden
// behind the blocking kernel, every L2 state can be set, and interleaved measurements
// cover every operation in every state. Skips without a device.
#include <gtest/gtest.h>

#include <chrono>

#include "gpu_bench_common/gpu_timer.hpp"
#include "gpu_case.hpp"
#include "splinebench/cuda/check.hpp"

namespace splinebench::bench {
namespace {

TEST(GpuBenchTimer, TimesTheGpuWorkOfARegion) {
  SB_REQUIRE_CUDA_DEVICE();
  cudaStream_t stream;
  SB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  {
    TimingSettings settings;
    settings.repetitions = 9;
    settings.hold_us = 500;
    GpuTimer timer(stream, settings);
    // 200 us of GPU work whose enqueue takes the host 5 ms: with a hold longer than
    // that ahead of the start event, the events see the GPU work, not the host's delay.
    const Region region = [&] {
      const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(5000);
      hold_stream(stream, 200);
      while (std::chrono::steady_clock::now() < until) {
      }
    };
    settings.hold_us = 20000;
    GpuTimer held(stream, settings);
    for (L2State state : {L2State::hot, L2State::cold, L2State::clean}) {
      const Measurement m = held.measure(region, state);
      EXPECT_EQ(m.gpu.samples.size(), 9u);
      EXPECT_GE(m.gpu.median, 190e-6) << to_string(state);
      EXPECT_LE(m.gpu.median, 1000e-6) << to_string(state);
      EXPECT_GE(m.enqueue.median, 5000e-6);
      EXPECT_EQ(m.enqueue_outlasted_hold, 0);
    }
    // With a hold shorter than the enqueue the host's delay shows (about 5 ms less the
    // 0.5 ms hold), and those runs are counted.
    const Measurement bare = timer.measure(region);
    EXPECT_GE(bare.gpu.median, 3000e-6);
    EXPECT_EQ(bare.enqueue_outlasted_hold, 9);

    const auto all = timer.measure_interleaved({{"a", [&] { hold_stream(stream, 50); }},
                                                {"b", [&] { hold_stream(stream, 100); }}},
                                               {L2State::hot, L2State::clean});
    ASSERT_EQ(all.size(), 2u);
    for (const auto& [op, by_state] : all) {
      ASSERT_EQ(by_state.size(), 2u) << op;
      for (const auto& [state, m] : by_state) EXPECT_EQ(m.gpu.samples.size(), 9u) << op << " " << to_string(state);
    }
    EXPECT_LT(all.at("a").at(L2State::hot).gpu.median, all.at("b").at(L2State::hot).gpu.median);
    EXPECT_GT(read_bandwidth(timer, std::size_t{64} << 20, 1), 1e9);
  }
  SB_CUDA_CHECK(cudaStreamDestroy(stream));
}

}  // namespace
}  // namespace splinebench::bench
