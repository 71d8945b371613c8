// A scattered suite parsed and expanded into cases: per sweep the product of data,
// shapes, modes, selections, fractions and lambdas (one problem each), then per problem
// the oracle's record and each solver's, and each solver again block by block where the
// sweep asks. Parsing is strict: an unknown key, a bad value or an unknown solver is a
// splinebench::Error naming the suite's file and the key.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "splinebench/runner/system.hpp"
#include "splinebench/types.hpp"

namespace splinebench::scattered {

// Everything of a case beyond its problem: iteration budgets, the oracle's options,
// the seed multigrid's parameters, blocks.
struct CaseParameters {
  double tolerance = 1e-8;
  int max_iterations = 20000;
  int stationary_max_iterations = 0;  // > 0: the budget of the stationary solvers instead
  int seed_iterations = 100;          // the seed's fixed count (RMS_g and time recorded there)
  std::vector<int> mg;                // the seed multigrid's N N0 N1 N2 M M0 M1 M2 P (empty: Table 4's)
  bool cpu_system = true;             // false: no CPU assembly or oracle (matrix-free GPU solvers only)
  std::int64_t oracle_direct_max = 0; // > 0: the oracle factorises up to this many unknowns, PCG beyond
  int condition_steps = 30;           // Lanczos steps of the condition estimate (0: none)
  int block_padding = 3;
  bool save_coefficients = false;     // coefficients, node values and masks as .npy in the run folder
  int threads = 1;
};

struct ScatteredCase {
  std::string sweep;
  std::string solver;   // a registered solver, or "reference" (the oracle's record)
  std::string data;     // as the suite names it: a synthetic kind, a real dataset, file:<path>
  std::string data_label;  // in ids and records: the kind, the dataset or the file's stem
  std::string data_path;   // file data: the resolved path
  GridShape grid;
  Mode mode = Mode::mirror;
  std::string selection = "laplace";  // laplace (top |Laplacian|) | random
  double fraction = 0.2;
  double lambda = 2.1;
  std::vector<int> blocks;  // empty: the whole grid; else block counts per axis
  CaseParameters params;

  // "scattered/<data>/<shape>/<mode>/<selection><fraction>/lambda<l>[/mg<params>]"
  std::string problem_id() const;
  // problem_id()/<solver>[/blocks<AxB>]
  std::string case_id() const;
  // What the problem's cached inputs depend on (problem_id plus the oracle's options).
  std::string problem_key() const;
};

struct ScatteredPlan {
  std::string suite;
  int repetitions = 3;
  int warmups = 1;
  std::vector<ScatteredCase> cases;
  std::vector<runner::PlannedSweep> sweeps;
  std::vector<std::string> notes;
};

// `suite_dir` resolves file:<path> data relative to the suite's file.
ScatteredPlan plan_scattered_suite(const nlohmann::json& suite, const std::string& origin,
                                   const runner::RunRequest& request);

}  // namespace splinebench::scattered
