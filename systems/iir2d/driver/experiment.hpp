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
#include "splinebench/iir2d/plan.hpp"

namespace splinebench::iir2d {

struct ExperimentOptions {
  std::vector<Scheme> schemes;  // empty: all
  int repetitions = 9;
  int warmups = 2;
  bool empty_chains = true;     // time the empty launch chain (launches and graph) per shape
  std::uint64_t seed = 2012;    // input noise and random coefficients
};

std::string case_id(const ExperimentCase& c, const std::string& scheme);

// One line per record, so a log alone carries the numbers:
//   "case flex_tiles 2048x2048 M=31 gauss: median 1.234 ms (IQR 0.010), pass, max_rel 1.6e-06"
//   "case empty_chain 2048x2048 launches=4095: median 9.876 ms (IQR 0.020)"
//   "case fixed 64x64 M=3 gauss: skipped (no CUDA device: ...)"
std::string summary_line(const nlohmann::json& record);

// Runs every scheme on every case; calls `save` with each record as it is made.
// Records of schemes that cannot run here are "skipped" with the reason.
void run_experiment(const std::vector<ExperimentCase>& cases, const ExperimentOptions& options,
                    const std::function<void(const nlohmann::json&)>& save);

}  // namespace splinebench::iir2d
