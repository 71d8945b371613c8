// Timing helpers of the standalone GPU benchmark: repeated CUDA-event measurements of
// one region of work on a stream (after warm-up), summarised as median and quartiles.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpu_common/cuda_check.hpp"

namespace splinebench::bench {

struct Stats {
  std::vector<double> samples;  // seconds
  double median = 0, min = 0, max = 0, q1 = 0, q3 = 0;
};

inline double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

inline Stats summarise(std::vector<double> samples) {
  Stats s;
  s.samples = samples;
  s.median = quantile(samples, 0.5);
  s.q1 = quantile(samples, 0.25);
  s.q3 = quantile(samples, 0.75);
  s.min = *std::min_element(samples.begin(), samples.end());
  s.max = *std::max_element(samples.begin(), samples.end());
  return s;
}

inline nlohmann::json to_json(const Stats& s) {
  return {{"samples", s.samples}, {"median", s.median}, {"min", s.min}, {"max", s.max},
          {"q1", s.q1},           {"q3", s.q3}};
}

// Times `region` (enqueued on `stream`) with events placed right around it.
// `before` runs untimed before every repetition (e.g. restore inputs, flush L2).
inline Stats time_region(cudaStream_t stream, int warmups, int reps, const std::function<void()>& region,
                         const std::function<void()>& before = {}) {
  cudaEvent_t start, stop;
  SB_CUDA_CHECK(cudaEventCreate(&start));
  SB_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> samples;
  for (int i = 0; i < warmups + reps; ++i) {
    if (before) before();
    SB_CUDA_CHECK(cudaEventRecord(start, stream));
    region();
    SB_CUDA_CHECK(cudaEventRecord(stop, stream));
    SB_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    SB_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (i >= warmups) samples.push_back(ms * 1e-3);
  }
  SB_CUDA_CHECK(cudaEventDestroy(start));
  SB_CUDA_CHECK(cudaEventDestroy(stop));
  return summarise(samples);
}

}  // namespace splinebench::bench
