// Timing GPU work for the standalone benchmarks: CUDA events right around the region,
// a blocking kernel ahead of each start event (TimingSettings::hold_us), warm-ups,
// repetitions, and the L2 state set before every run (measurement.hpp).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "measurement.hpp"
#include "splinebench/cuda/device_buffer.hpp"

namespace splinebench::bench {

// Work enqueued on the timer's stream (kernels, async copies); it must not synchronise.
using Region = std::function<void()>;

// Enqueues a one-thread kernel that spins on the GPU's global timer for `microseconds`
// and touches no memory (the L2 cache is left as it was).
void hold_stream(cudaStream_t stream, double microseconds);

// Enqueues one kernel of one warp that does nothing: the floor of any launched work.
void launch_empty(cudaStream_t stream);

class GpuTimer {
 public:
  GpuTimer(cudaStream_t stream, TimingSettings settings);
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

  cudaStream_t stream() const { return stream_; }
  const TimingSettings& settings() const { return settings_; }

  // Enqueues what leaves L2 in `state` (nothing for hot). The buffers for cold and
  // clean (max(256 MiB, 4 x L2) each) are allocated on first use.
  void condition(L2State state);
  // Enqueues the blocking kernel (for regions timed with events of their own).
  void hold() { hold_stream(stream_, settings_.hold_us); }

  // One run: hold, start event, region, stop event, wait. GPU seconds; the host's
  // enqueue seconds in *enqueue_s.
  double time_once(const Region& region, double* enqueue_s = nullptr);

  // warmups + repetitions runs of `region`, each after condition(state).
  Measurement measure(const Region& region, L2State state = L2State::hot);
  Measurement measure(const Region& region, L2State state, int warmups, int repetitions);

  // Interleaved: every repetition runs each operation once in each state, in order
  // (operation-major), so slow drifts of the GPU (clocks, temperature) hit all alike;
  // "hot" then means right after the previous operation's run. Result [op][state].
  std::map<std::string, std::map<L2State, Measurement>> measure_interleaved(
      const std::vector<std::pair<std::string, Region>>& ops, const std::vector<L2State>& states);

 private:
  void ensure_conditioning_buffers();

  cudaStream_t stream_;
  TimingSettings settings_;
  cudaEvent_t start_{}, stop_{};
  gpu::DeviceBuffer<float> dirty_, clean_, sink_;
};

// Bytes per second of coalesced 16-byte loads (L1 bypassed) over a `bytes` buffer read
// `passes` times per launch: the L2-resident (bytes well under L2) or DRAM read
// bandwidth that gather kernels are compared with. Median of the timer's repetitions.
double read_bandwidth(GpuTimer& timer, std::size_t bytes, int passes);

}  // namespace splinebench::bench
