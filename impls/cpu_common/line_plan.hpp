// The 1-D recursion of the prefilter written so that SIMD kernels can run it on many
// lines at once: both initial values become short dot products over the line, with
// weights precomputed once per (length, mode) in double and rounded to float.
//
//   causal:      c+[0] = sum_i causal[i].weight * f[causal[i].index]   (gain 6 folded in)
//                c+[k] = 6 f[k] + z c+[k-1]
//   anti-causal: c[N-1] = sum_i anticausal[i].weight * c+[anticausal[i].index]
//                c[k]   = z (c[k+1] - c+[k])
//
// The weights are the exact closed forms of the oracle (splinebench/oracle.hpp)
// for every mode and every length N >= 1. Terms whose weight is below kDropBelow are
// left out; see line_plan.cpp for the bound on what that changes.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "splinebench/bspline_math.hpp"
#include "splinebench/types.hpp"

namespace splinebench::cpu {

struct InitTerm {
  std::int64_t index;
  float weight;
};

struct LinePlan {
  std::int64_t n = 0;
  Mode mode = Mode::mirror;
  float z = 0;       // the pole, rounded to float
  float gain = 6;    // lambda
  bool identity = false;  // mirror with N == 1: c = f, nothing to do
  std::vector<InitTerm> causal;
  std::vector<InitTerm> anticausal;
};

// Relative weight below which an initialisation term is dropped (2^-34).
inline constexpr double kDropBelow = 5.820766091346741e-11;

LinePlan make_line_plan(std::int64_t n, Mode mode);

// make_line_plan's plan, kept per thread for the lengths and modes it was asked for last:
// a call on a small array would otherwise spend a good part of its time on the weights'
// powers of z.
std::shared_ptr<const LinePlan> line_plan(std::int64_t n, Mode mode);

// Filters one line in place with plain scalar arithmetic (element k of the line at
// line[k * stride]), in float for leftovers the vector kernels do not cover, in double
// to test the plan itself.
template <typename Real>
void filter_line(Real* line, std::int64_t stride, const LinePlan& plan) {
  if (plan.identity) return;
  const std::int64_t n = plan.n;
  // The pole in the working precision (the plan keeps it rounded to float).
  const Real z = sizeof(Real) > sizeof(float) ? Real(bspline::kPole) : Real(plan.z);
  const Real gain = plan.gain;
  auto at = [&](std::int64_t k) -> Real& { return line[k * stride]; };
  Real init = 0;
  for (const InitTerm& t : plan.causal) init += Real(t.weight) * at(t.index);
  at(0) = init;
  for (std::int64_t k = 1; k < n; ++k) at(k) = gain * at(k) + z * at(k - 1);
  Real last = 0;
  for (const InitTerm& t : plan.anticausal) last += Real(t.weight) * at(t.index);
  at(n - 1) = last;
  for (std::int64_t k = n - 2; k >= 0; --k) at(k) = z * (at(k + 1) - at(k));
}

inline void filter_line_scalar(float* line, std::int64_t stride, const LinePlan& plan) {
  filter_line<float>(line, stride, plan);
}

}  // namespace splinebench::cpu
