// How a GPU benchmark times a region, and what one measurement holds (plain C++; the
// timing itself is GpuTimer, gpu_timer.hpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "splinebench/runner/stats.hpp"

namespace splinebench::bench {

// The state of the L2 cache when a timed region starts.
//   hot    right after the previous timed run (its data and dirty lines still in L2)
//   cold   after a memset of a buffer larger than L2: the cache holds only dirty lines
//          of zeros, which are written back while the region runs
//   clean  after reading a buffer larger than L2 that nothing ever writes: the cache
//          holds only clean lines, so no write-back of anybody's data falls in the run
enum class L2State { hot, cold, clean };
std::string_view to_string(L2State state);
std::optional<L2State> parse_l2_state(std::string_view text);

struct TimingSettings {
  int warmups = 3;       // runs before the kept ones, discarded
  int repetitions = 15;  // kept runs: median, quartiles, min, max (>= 9 for the U-test)
  // A blocking kernel spins this long on the stream ahead of every start event, so the
  // GPU reaches the event only after the host has enqueued the region: the events time
  // the GPU's work, not the host's launch latency (nvbench's blocking kernel). 0: none.
  double hold_us = 1000;
};

// The context entry "timing": the settings and what they mean.
nlohmann::json to_json(const TimingSettings& settings);

// `repetitions` runs of one region in one L2 state.
struct Measurement {
  runner::SampleStats gpu;      // seconds between the events around the region
  runner::SampleStats enqueue;  // host seconds the region took to enqueue
  long enqueue_outlasted_hold = 0;  // runs whose enqueue took longer than the hold: their
                                    // time may include GPU idle time
};

// stats_json(gpu) plus "host_enqueue_median" and "enqueue_outlasted_hold", so that
// readers of a timing object find the harness's keys at its top level.
nlohmann::json to_json(const Measurement& m);

}  // namespace splinebench::bench
