// The device side of the matrix-free operator and its CG on plain arrays.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "grid_layout.hpp"

namespace splinebench::scattered::gpu::detail {

std::vector<float> apply_operator(const GridLayout& layout, const SampleArrays& samples, const std::vector<float>& p);
std::vector<float> operator_diagonal(const GridLayout& layout, const SampleArrays& samples);

struct KernelSeconds {
  const char* name;
  double seconds;
};
// chunk > 0: apply_rows marches that many planes per block instead of its own choice
// ("march_chunk", the first entry, says which ran; its seconds field holds the count).
std::vector<KernelSeconds> profile_operator(const GridLayout& layout, const SampleArrays& samples, int repeats,
                                            int chunk = 0);

struct OperatorCgOutput {
  std::vector<float> x;
  std::vector<double> history;
  int iterations = 0;
  enum Status { converged, max_iterations, diverged, singular } status = max_iterations;
  std::string message;
  double true_relres = 0;  // ||b - A x|| / ||b|| with the f32 operator, f64 norms
  double upload_s = 0, sort_s = 0, rhs_s = 0, solve_s = 0, readback_s = 0;
};

// The operator built (samples uploaded and sorted: upload_s, sort_s) and F^T f formed
// (rhs_s) once; each solve() runs CG from x = 0 and measures the true residual.
class OperatorCg {
 public:
  OperatorCg(const GridLayout& layout, const SampleArrays& samples);
  ~OperatorCg();
  OperatorCg(const OperatorCg&) = delete;
  OperatorCg& operator=(const OperatorCg&) = delete;
  OperatorCgOutput solve(int max_iterations, double tolerance);
  double upload_s = 0, sort_s = 0, rhs_s = 0;

  struct State;

 private:
  std::unique_ptr<State> s_;
};
}  // namespace splinebench::scattered::gpu::detail
