// Enqueues the gpu_flex prefilter on a stream: the flexible variant as one launch of
// the ticket kernel, the fixed baseline as one launch per pass (tile = blockIdx).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gpu_common/flex/flex_plan.hpp"
#include "splinebench/cuda/device_buffer.hpp"
#include "splinebench/types.hpp"

namespace splinebench::gpu::flex {

// Plans as for a share of the device or a smaller one: values > 0 replace the blocks
// resident at once (the flexible launch then runs that many) and the shared memory per
// block (at most the device's). The plan's stream ranges, slice groups and fallbacks
// follow them; the tests reach every tile arrangement with it on any GPU.
struct DeviceShare {
  int blocks = 0;
  int smem_bytes = 0;
  friend bool operator==(const DeviceShare&, const DeviceShare&) = default;
};

struct LaunchOptions {
  // Debug mode of the tests: blocks sleep for random times (from `seed`) before taking a
  // ticket and before starting a tile, and the grid has more blocks than can be resident.
  bool adversarial = false;
  std::uint64_t seed = 1;
  // Non-empty: the flexible launch's tickets hand out tiles in this order (ticket ->
  // tile, numbered as in make_launch; every tile after the tiles it waits for, or the
  // launch may never finish). The tests give random such orders.
  std::vector<std::int64_t> order;
  DeviceShare share;
};

class FlexRunner {
 public:
  FlexRunner() = default;
  FlexRunner(const FlexRunner&) = delete;
  FlexRunner& operator=(const FlexRunner&) = delete;

  // The plan for this device (shared memory and resident blocks of its kernels), or for
  // the share of it that `share` describes.
  Plan plan(Variant variant, const GridShape& shape, std::int64_t fields, Mode mode,
            const DeviceShare& share = {}) const;

  // Values of the temporary buffer run() needs (0 when the plan has one pass), from the
  // plan run() will use for this problem (made here and kept, so the run that follows does
  // not plan again; needs the device, as run() does).
  std::int64_t tmp_values(Variant variant, const GridShape& shape, std::int64_t fields, Mode mode);

  // Prefilters `fields` fields of `shape` from d_in into d_out (device pointers,
  // distinct); d_tmp holds tmp_values() floats or is null when that is 0. Enqueued on
  // `stream` and checked at launch.
  void run(Variant variant, const GridShape& shape, std::int64_t fields, Mode mode, const float* d_in, float* d_out,
           float* d_tmp, cudaStream_t stream, const LaunchOptions& options = {});

  // describe() of the last plan run.
  const std::string& last_description() const { return description_; }

 private:
  // The plans run() made last (at most kPlansKept, the most recent first), with what each
  // was made for: repeated runs of the same problems reuse them (the planner and the
  // occupancy queries cost tens of microseconds of host time per run).
  struct Planned {
    int device = -1;
    Variant variant = Variant::flexible;
    GridShape shape;
    std::int64_t fields = 0;
    Mode mode = Mode::mirror;
    DeviceShare share;
    Plan plan;          // buffers not bound
    int resident = 0;   // blocks of the flexible kernel resident on the device
    std::string description;
  };
  const Planned& planned(Variant variant, const GridShape& shape, std::int64_t fields, Mode mode,
                         const DeviceShare& share);
  static constexpr std::size_t kPlansKept = 4;
  std::vector<Planned> planned_;
  DeviceBuffer<unsigned char> state_;  // ticket counter and per-field pass counters
  DeviceBuffer<std::int64_t> order_;   // LaunchOptions::order on the device
  std::string description_;
};

}  // namespace splinebench::gpu::flex
