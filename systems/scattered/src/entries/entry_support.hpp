// What the registry's entries (src/entries/*.cpp) share: a prepared solver made of the
// state its preparation built and a solve function over it, with the preparation timed.
#pragma once

#include <chrono>
#include <memory>
#include <utility>

#include <Eigen/Core>

#include "splinebench/scattered/prepared_solver.hpp"

namespace splinebench::scattered::entries {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <typename Solve>
class FunctionSolver final : public PreparedSolver {
 public:
  explicit FunctionSolver(Solve solve) : solve_(std::move(solve)) {}
  NamedSolve solve(const IterationControl& control) override { return solve_(control); }

 private:
  Solve solve_;
};

// make() builds the prepared state and returns the solve function (NamedSolve(const
// IterationControl&)) holding it; its wall time is the setup.
template <typename Make>
std::unique_ptr<PreparedSolver> prepared(Make make) {
  const auto t0 = std::chrono::steady_clock::now();
  auto solve = make();
  auto out = std::make_unique<FunctionSolver<decltype(solve)>>(std::move(solve));
  out->setup_seconds = seconds_since(t0);
  return out;
}

inline Vector widen(const std::vector<float>& v) {
  return Eigen::Map<const Eigen::VectorXf>(v.data(), static_cast<Eigen::Index>(v.size())).cast<double>();
}

}  // namespace splinebench::scattered::entries
