// The constants of the axis-0 steps (slab_steps.hpp) for one slab, computed on the host:
// pole powers in double, as oracle::pole_powers<double> forms them, combined in double and
// rounded once to float (as cpu_scalar rounds its powers), so the float recursion's
// initial values carry no accumulated power error. Plain C++.
#pragma once

#include <cstdint>
#include <vector>

#include "splinebench/types.hpp"

namespace splinebench::gpu::slabs {

// A list of (plane, weight) terms, planes increasing: the nonzero float weights of a
// slab's share of an initial value, or the z powers of a correction. A share has at most
// about 80 nonzero float weights at each end of the line (|z|^79 is below the smallest
// float), a correction correction_depth<float>() of them.
inline constexpr int kMaxTerms = 256;
struct PlaneTerms {
  int count = 0;
  int plane[kMaxTerms];  // local plane index (axes are shorter than 2^30)
  float weight[kMaxTerms];
};

// z^0 .. z^count in double; powers past the table are those that underflow to 0 in double.
class PolePowers {
 public:
  explicit PolePowers(std::int64_t count);
  double operator()(std::int64_t k) const { return k < size() ? table_[static_cast<std::size_t>(k)] : 0.0; }
  float as_float(std::int64_t k) const { return static_cast<float>((*this)(k)); }
  // Planes this far or farther from both ends of a line have zero weight in every share.
  std::int64_t reach() const { return size(); }

 private:
  std::int64_t size() const { return static_cast<std::int64_t>(table_.size()); }
  std::vector<double> table_;
};

// Step 1: slab [start, start + len) of a line of n planes; weight of plane k =
// slab::causal_weight(k) (before the norm). Only the nonzero float weights.
PlaneTerms causal_share_terms(Mode mode, std::int64_t n, std::int64_t start, std::int64_t len, const PolePowers& z);

// Step 5, periodic: weight of plane k = z^((k + 1) % n).
PlaneTerms periodic_share_terms(std::int64_t n, std::int64_t start, std::int64_t len, const PolePowers& z);

// Step 4: plane j gains z^(j+1) carry for j < min(len, depth).
PlaneTerms causal_correction_terms(std::int64_t len, std::int64_t depth, const PolePowers& z);

// Step 8: plane j gains z^(len-j) carry for j >= len - depth.
PlaneTerms anticausal_correction_terms(std::int64_t len, std::int64_t depth, const PolePowers& z);

}  // namespace splinebench::gpu::slabs
