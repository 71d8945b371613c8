// Built without CUDA: no runtime, no driver query, no GPU.
#include "splinebench/runner/run_context.hpp"

namespace splinebench::runner {

nlohmann::json cuda_context() {
  return {{"cuda_runtime", nullptr}, {"cuda_driver", nullptr}, {"gpu", nullptr}};
}

}  // namespace splinebench::runner
