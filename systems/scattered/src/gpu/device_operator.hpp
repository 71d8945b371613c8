// The device side of the matrix-free operator and its CG on plain arrays.
#pragma once

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

OperatorCgOutput run_operator_cg(const GridLayout& layout, const SampleArrays& samples, int max_iterations,
                                 double tolerance);

}  // namespace splinebench::scattered::gpu::detail
