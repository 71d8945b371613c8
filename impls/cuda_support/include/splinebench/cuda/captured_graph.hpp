// A CUDA graph captured once from the work a callable enqueues on a stream, and replayed
// there: what a caller that repeats the same work (same buffers, same sizes) pays per
// call instead of each launch. Where the capture fails (an API call the capture mode
// does not take, the callable throwing) nothing of the attempt ran, `captured()` is false
// and `why()` says why, so that the caller can enqueue the work itself.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>

namespace splinebench::gpu {

class CapturedGraph {
 public:
  // ThreadLocal: this thread's unsafe calls (a synchronisation, a legacy allocation)
  // break the capture; Relaxed lets the callable make host calls that are not stream
  // work (a kernel's attributes, an allocation) while it is captured.
  CapturedGraph(cudaStream_t stream, const std::function<void()>& work,
                cudaStreamCaptureMode mode = cudaStreamCaptureModeThreadLocal);
  ~CapturedGraph();
  CapturedGraph(const CapturedGraph&) = delete;
  CapturedGraph& operator=(const CapturedGraph&) = delete;

  bool captured() const { return exec_ != nullptr; }
  const std::string& why() const { return why_; }
  // Enqueues the graph on the stream it was captured from (throws Error when not captured).
  void replay() const;

 private:
  cudaStream_t stream_;
  cudaGraphExec_t exec_ = nullptr;
  std::string why_;
};

}  // namespace splinebench::gpu
