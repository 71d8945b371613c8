// The device side of the GPU stationary solvers on plain arrays.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace splinebench::scattered::gpu::detail {

// What the layout is built from; the pointed-to arrays are read in the constructor only.
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
};

struct StationaryOutput {
  std::vector<float> x;
  std::vector<double> history;
  int iterations = 0;
  enum Status { converged, max_iterations, diverged } status = max_iterations;
  std::string message;
  double solve_s = 0, readback_s = 0;
};

// The ELL layout built and uploaded with the diagonal and b once (upload_s); each run()
// iterates from x = 0 on those buffers.
class DeviceStationary {
 public:
  explicit DeviceStationary(const StationaryInput& in);
  ~DeviceStationary();
  DeviceStationary(const DeviceStationary&) = delete;
  DeviceStationary& operator=(const DeviceStationary&) = delete;
  StationaryOutput run(int max_iterations, double tolerance, double divergence_factor);
  double upload_s = 0;

  struct State;

 private:
  std::unique_ptr<State> s_;
};

}  // namespace splinebench::scattered::gpu::detail
