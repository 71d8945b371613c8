// The quadrant 2-D IIR filter of the flexible-allocation experiment:
//
//   y(i, j) = x(i, j) + sum_{0 <= k, l < M, (k, l) != (0, 0)} b(k, l) * y(i - k, j - l)
//
// x and y are H x W float32 C-order images (axis 0 = i, axis 1 = j contiguous); y is 0
// outside the image (zero initial conditions). b is M x M, row-major (b[k * M + l]),
// and b(0, 0) must be 0, otherwise the recursion would be implicit. The quadrant
// selects the direction of each axis: `minus` on an axis runs the recursion from the
// far end, i.e. the ++ filter of the image flipped along that axis.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace splinebench::iir2d {

inline constexpr int kMaxWindow = 64;

struct Shape {
  std::int64_t rows = 0;  // H, axis 0 (i)
  std::int64_t cols = 0;  // W, axis 1 (j), contiguous
  std::int64_t pixels() const { return rows * cols; }
  friend bool operator==(const Shape&, const Shape&) = default;
};

// The feedback window: M x M coefficients, b(0, 0) = 0.
struct Window {
  int M = 1;
  std::vector<float> b;  // M * M, row-major: b[k * M + l] weighs y(i - k, j - l)
  float at(int k, int l) const { return b[static_cast<std::size_t>(k) * M + l]; }
  double abs_sum() const;  // sum |b|: the loop gain; < 1 is sufficient for stability (BIBO)
};

enum class Quadrant { pp, pm, mp, mm };  // (axis 0, axis 1): p = forward, m = backward
Quadrant parse_quadrant(const std::string& name);
const char* quadrant_name(Quadrant q);

// What validate() found beside hard errors.
struct Validation {
  double gain = 0;            // sum |b|
  bool possibly_unstable = false;  // gain >= 1: allowed, the record says so
  std::string warning;        // empty unless possibly_unstable
};

// Throws splinebench::Error with a message naming the problem for: M < 1 or M > 64,
// b.size() != M * M, b(0, 0) != 0, a non-finite coefficient, an empty image (H or W
// zero or negative). M > min(H, W), 1 x N and N x 1 are valid.
Validation validate(const Shape& shape, const Window& window);

// The result status of one filtering: `unstable` when the output holds a non-finite
// value (possible only when sum |b| >= 1 or for non-finite input).
enum class Status { ok, unstable };
const char* status_name(Status s);
Status output_status(const float* y, std::int64_t count);
Status output_status(const double* y, std::int64_t count);

}  // namespace splinebench::iir2d
