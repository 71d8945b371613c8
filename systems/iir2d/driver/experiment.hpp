// The fixed-vs-flexible allocation experiment: which cases, how each is timed and
// checked, and the record each gives (systems/iir2d/README.md, results/README.md).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "splinebench/iir2d/filter.hpp"
#include "splinebench/iir2d/gpu.hpp"

namespace splinebench::iir2d {

struct ExperimentCase {
  std::string sweep;  // "fig3", "sizes", "shapes", "accuracy"
  Shape shape;
  int M = 1;
  std::string family;  // coefficient family (coefficients.hpp)
};

struct ExperimentOptions {
  std::vector<Scheme> schemes;  // empty: all
  int repetitions = 9;
  int warmups = 2;
  bool empty_chains = true;     // time the empty launch chain (launches and graph) per shape
  std::uint64_t seed = 2012;    // input noise and random coefficients
};

// The seed's experiment: 2048^2 at M = 1..31 (gauss, sum|b| = 0.9); 512^2, 4096^2, 8192^2
// at M = 3 and 31; non-square and degenerate shapes at M = 3 and 31 (1 x 2048,
// 2048 x 1, 3 x 5000, 640 x 480, and 7 x 5 at M = 31 > min(H, W)); the `random` family
// (sum|b| = 0.95) at 2048^2, M = 3 and 31, for accuracy.
std::vector<ExperimentCase> seed_plan();
// A few minutes less: 256^2 at M = 1, 3, 5, 9, 31 and the degenerate shapes.
std::vector<ExperimentCase> quick_plan();

std::string case_id(const ExperimentCase& c, const std::string& scheme);

// Runs every scheme on every case; calls `save` with each record as it is made.
// Records of schemes that cannot run here are "skipped" with the reason.
void run_experiment(const std::vector<ExperimentCase>& cases, const ExperimentOptions& options,
                    const std::function<void(const nlohmann::json&)>& save);

}  // namespace splinebench::iir2d
