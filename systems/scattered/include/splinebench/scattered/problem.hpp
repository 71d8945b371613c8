// The regularised least-squares problem of cubic B-spline reconstruction from scattered
// samples: find coefficients c on a grid (folded by a boundary mode, so they feed every
// evaluator of the suite) minimising
//     sum_i (s(x_i) - f_i)^2 + lambda * J(s),
// where s(x) = sum_k c_k prod_d B_{k_d}(x_d) and J is the thin-plate energy over the grid
// domain prod_d [0, N_d - 1] (thin_plate.hpp). The normal equations are
//     (F^T F + lambda R) c = F^T f   (assembly.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "splinebench/types.hpp"

namespace splinebench::scattered {

// Largest dimensionality of the reconstruction (1-D exists for tests).
inline constexpr int kMaxReconstructionDims = 3;

struct Problem {
  GridShape grid;               // dims 1..3, one channel
  Mode mode = Mode::mirror;
  std::vector<double> points;   // (D, n), axis-major as in map_coordinates: points[d*n + i]
  std::vector<double> values;   // n
  double lambda = 0;            // weight of the thin-plate energy, >= 0

  std::int64_t samples() const { return static_cast<std::int64_t>(values.size()); }
  double coordinate(int axis, std::int64_t i) const { return points[static_cast<std::size_t>(axis * samples() + i)]; }

  // Throws splinebench::Error naming the first problem: dims outside 1..3, channels != 1,
  // an extent < 1, no samples, a points/values size mismatch, a non-finite coordinate or
  // value, a coordinate outside [0, N_d - 1] (the sample and axis named), a negative or
  // non-finite lambda.
  void validate() const;
};

}  // namespace splinebench::scattered
