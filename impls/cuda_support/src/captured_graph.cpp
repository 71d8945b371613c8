#include "splinebench/cuda/captured_graph.hpp"

#include <exception>

#include "splinebench/cuda/check.hpp"
#include "splinebench/error.hpp"

namespace splinebench::gpu {

CapturedGraph::CapturedGraph(cudaStream_t stream, const std::function<void()>& work, cudaStreamCaptureMode mode)
    : stream_(stream) {
  if (const cudaError_t begun = cudaStreamBeginCapture(stream, mode); begun != cudaSuccess) {
    (void)cudaGetLastError();
    why_ = std::string("begin of capture: ") + cudaGetErrorString(begun);
    return;
  }
  try {
    work();
  } catch (const std::exception& e) {
    why_ = e.what();
  }
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  if (why_.empty() && ended != cudaSuccess) why_ = std::string("end of capture: ") + cudaGetErrorString(ended);
  if (why_.empty()) {
    if (const cudaError_t made = cudaGraphInstantiate(&exec_, graph, 0); made != cudaSuccess) {
      why_ = std::string("instantiation: ") + cudaGetErrorString(made);
      exec_ = nullptr;
    }
  }
  if (graph) cudaGraphDestroy(graph);
  if (!why_.empty()) (void)cudaGetLastError();  // the failed capture's error is why(), not the caller's
}

CapturedGraph::~CapturedGraph() {
  if (exec_) cudaGraphExecDestroy(exec_);
}

void CapturedGraph::replay() const {
  if (!exec_) throw Error("a CUDA graph that could not be captured was replayed: " + why_);
  SB_CUDA_CHECK(cudaGraphLaunch(exec_, stream_));
}

}  // namespace splinebench::gpu
