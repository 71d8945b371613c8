// What the host side of every GPU solver does with its device output: a struct with
// `iterations`, `history`, `message` and a `status` of its own enum (converged,
// max_iterations, diverged, singular) becomes the system's SolveReport.
#pragma once

#include <cmath>
#include <utility>
#include <vector>

#include "splinebench/scattered/solvers.hpp"

namespace splinebench::scattered::gpu::detail {

template <typename DeviceOutput>
SolveReport report_from_device(DeviceOutput& dev) {
  SolveReport rep;
  rep.iterations = dev.iterations;
  rep.history = std::move(dev.history);
  rep.message = dev.message;
  switch (dev.status) {
    case DeviceOutput::converged: rep.status = SolveStatus::converged; break;
    case DeviceOutput::max_iterations: rep.status = SolveStatus::max_iterations; break;
    case DeviceOutput::diverged: rep.status = SolveStatus::diverged; break;
    case DeviceOutput::singular: rep.status = SolveStatus::singular; break;
  }
  if (rep.status == SolveStatus::max_iterations && rep.message.empty()) rep.message = "iteration budget used up";
  return rep;
}

// The relres a solver reports without the CPU's check (IterationControl::verify_relres
// off): its last recurrence residual, or NaN where it made no iteration.
inline double own_relres(const SolveReport& rep) {
  return rep.history.empty() ? std::nan("") : rep.history.back();
}

// A non-finite device iterate is a diverged solve with zero coefficients, never returned
// as a solution: marks rep (relres 1) and zeroes x. Returns whether x was finite.
inline bool keep_if_finite(SolveReport& rep, std::vector<float>& x) {
  for (float v : x)
    if (!std::isfinite(v)) {
      rep.status = SolveStatus::diverged;
      rep.message = "the device iterate is not finite";
      x.assign(x.size(), 0.f);
      rep.relres = 1;
      return false;
    }
  return true;
}

}  // namespace splinebench::scattered::gpu::detail
