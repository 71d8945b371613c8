// Enqueues the gpu_lines prefilter on a stream: the D passes of a plan (lines_plan.hpp),
// replayed from a CUDA graph captured once per problem.
//
// Why a graph, and programmatic dependent launch (PDL) between its passes: on the small
// fields this design is for, a pass is a few microseconds of work (128^3 on the H200: about
// 0.01 ms a pass) and the gaps between the passes (a launch, and the drain of one grid
// before the next starts) are a large share of the whole. A graph removes the host's
// launch overhead between the passes; PDL lets pass p + 1 launch while pass p drains, its
// blocks waiting in griddepcontrol.wait until pass p has finished and its writes are
// visible (the short_lines probe: 128^3 0.0351 ms as a graph, 0.0286 ms with PDL).
// Where the driver refuses PDL edges in a capture, the graph has plain edges; where no
// graph can be captured at all, the passes are launched one by one
// (launch_description() says which).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>

#include "gpu_lines/lines_plan.hpp"
#include "splinebench/cuda/captured_graph.hpp"
#include "splinebench/types.hpp"

namespace splinebench::gpu::lines {

class LinesRunner {
 public:
  LinesRunner() = default;
  ~LinesRunner();
  LinesRunner(const LinesRunner&) = delete;
  LinesRunner& operator=(const LinesRunner&) = delete;

  // Values of the temporary buffer run() needs for this problem (0 for one pass). Plans
  // the problem for the current device and keeps the plan.
  std::int64_t tmp_values(const GridShape& shape, std::int64_t fields);

  // Makes run() on exactly these arguments a replay: plans and captures the graph unless
  // the one kept is for the same problem (device, shape, fields, mode, buffers, stream).
  // Host work only (no device work is enqueued); call it before timing run().
  void ready(const GridShape& shape, std::int64_t fields, Mode mode, const float* d_in, float* d_out, float* d_tmp,
             cudaStream_t stream);

  // Prefilters `fields` fields of `shape` from d_in into d_out (device pointers, distinct,
  // 16-byte aligned); d_tmp holds tmp_values() floats, or is null when that is 0. Enqueued
  // on `stream` (ready() first when the problem changed) and checked at launch.
  void run(const GridShape& shape, std::int64_t fields, Mode mode, const float* d_in, float* d_out, float* d_tmp,
           cudaStream_t stream);

  // Drops the graph (its buffers are about to be freed).
  void forget();

  // describe() of the plan of the last ready(), and how its passes are enqueued: "graph
  // with PDL", "graph" or "launches" with the reason.
  const std::string& plan_description() const { return description_; }
  const std::string& launch_description() const { return launch_; }

 private:
  struct Problem {
    int device = -1;
    GridShape shape;
    std::int64_t fields = 0;
    Mode mode = Mode::mirror;
    const float* in = nullptr;
    float* out = nullptr;
    float* tmp = nullptr;
    cudaStream_t stream = nullptr;
    friend bool operator==(const Problem&, const Problem&) = default;
  };

  const Plan& plan_for(int device, const GridShape& shape, std::int64_t fields);
  void launch_passes(const Problem& p, bool pdl) const;

  // The plan of the last problem planned, with what it was made for.
  int plan_device_ = -1;
  GridShape plan_shape_;
  std::int64_t plan_fields_ = 0;
  Plan plan_;
  bool planned_ = false;

  Problem problem_;  // what graph_ (or the launches) were made for
  bool ready_ = false;
  std::unique_ptr<CapturedGraph> graph_;
  std::string description_, launch_;
};

}  // namespace splinebench::gpu::lines
