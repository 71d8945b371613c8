// The cases of the experiment: built-in plans and suite files
// (harness/suites/iir2d.json; format in systems/iir2d/README.md).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "splinebench/iir2d/filter.hpp"

namespace splinebench::iir2d {

struct ExperimentCase {
  std::string sweep;  // e.g. "fig3", "sizes", "shapes", "accuracy"
  Shape shape;
  int M = 1;
  std::string family;  // coefficient family (coefficients.hpp)
  friend bool operator==(const ExperimentCase&, const ExperimentCase&) = default;
};

struct ExperimentPlan {
  std::string name;
  int repetitions = 9;
  int warmups = 2;
  std::vector<ExperimentCase> cases;
};

// The seed's experiment: 2048^2 at M = 1..31 (gauss, sum|b| = 0.9); 512^2, 4096^2, 8192^2
// at M = 3 and 31; non-square and degenerate shapes at M = 3 and 31 (1 x 2048,
// 2048 x 1, 3 x 5000, 640 x 480) and 7 x 5 at M = 31 > min(H, W); the `random` family
// (sum|b| = 0.95) at 2048^2, M = 3 and 31, for accuracy.
ExperimentPlan seed_plan();
// 256^2 at M = 1, 3, 5, 9, 31 and the degenerate shapes.
ExperimentPlan quick_plan();

// A suite file: {"name", "operation": "iir2d", "description"?, "repetitions"?,
// "warmups"?, "sweeps": [{"name", "note"?, "shapes": [[H, W], ...],
// "M": [..] | {"from": a, "to": b}, "families": [..]}]}; the cases are the product of
// each sweep's axes. Unknown keys, bad values and an empty plan throw
// splinebench::Error naming the key.
ExperimentPlan parse_suite(const nlohmann::json& suite);
ExperimentPlan load_suite_file(const std::string& path);

}  // namespace splinebench::iir2d
