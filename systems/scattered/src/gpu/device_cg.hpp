// The device side of the GPU CG on plain arrays, so that the CUDA translation unit
// includes no Eigen (gpu_cg.cpp converts and checks in f64).
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace splinebench::scattered::gpu::detail {

struct DeviceCgOutput {
  std::vector<float> x;
  std::vector<double> history;  // recurrence relres per iteration
  int iterations = 0;
  enum Status { converged, max_iterations, diverged, singular } status = max_iterations;
  std::string message;
  double upload_s = 0, solve_s = 0, readback_s = 0;
};

std::string unavailable_reason();
// The current device's peak memory bandwidth, bytes per second (gpu_cg.hpp).
double peak_bandwidth();

class DeviceSystem;  // device_assembly.hpp

// The CSR and b uploaded once (upload_s), or taken from a system assembled on the device
// (its pattern used in place, which must outlive this; its values and F^T f narrowed to
// f32 there); each solve() runs CG from x = 0.
class DeviceCg {
 public:
  DeviceCg(int n, const int* outer, const int* inner, const float* values, const float* rhs);
  explicit DeviceCg(const DeviceSystem& system);
  ~DeviceCg();
  DeviceCg(const DeviceCg&) = delete;
  DeviceCg& operator=(const DeviceCg&) = delete;
  DeviceCgOutput solve(double bnorm, int max_iterations, double tolerance);
  double upload_s = 0;

  struct State;

 private:
  std::unique_ptr<State> s_;
};
}  // namespace splinebench::scattered::gpu::detail
