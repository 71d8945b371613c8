// The device side of the GPU stationary solvers on plain arrays.
#pragma once

#include <string>
#include <vector>

namespace splinebench::scattered::gpu::detail {

struct StationaryInput {
  int n = 0;
  const int* outer = nullptr;
  const int* inner = nullptr;
  const float* value = nullptr;
  const float* diagonal = nullptr;
  const float* rhs = nullptr;
  double bnorm = 0;
  // Empty: Jacobi with omega. Otherwise the colours' members, colour c in
  // members[colour_offset[c] .. colour_offset[c+1]).
  std::vector<int> colour_offset, members;
  double omega = 1;
  bool symmetric = false;
  int max_iterations = 0;
  double tolerance = 0;
  double divergence_factor = 1e4;
};

struct StationaryOutput {
  std::vector<float> x;
  std::vector<double> history;
  int iterations = 0;
  enum Status { converged, max_iterations, diverged } status = max_iterations;
  std::string message;
  double upload_s = 0, solve_s = 0, readback_s = 0;
};

StationaryOutput run_stationary(const StationaryInput& in);

}  // namespace splinebench::scattered::gpu::detail
