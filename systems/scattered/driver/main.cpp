// splinebench_scattered: reconstruction from scattered samples, one record per
// (fraction, lambda, solver), written as a results file (results/README.md schema, with
// "operation": "scattered_reconstruction" and the fields below in each record).
//
//   splinebench_scattered --data image.npy --fraction 0.2 --fraction 0.3 --lambda 2.1
//       --solver cg --solver mg_pcg --out results/<machine>/<run-id>/results.json
//
// Samples are the top fraction of nodes by |Laplacian| (or random), at their nodes;
// RMS_g compares the spline at every node with the full data (metrics.hpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include <CLI/CLI.hpp>
#include <Eigen/SparseCholesky>
#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "splinebench/datasets.hpp"
#include "splinebench/error.hpp"
#include "splinebench/io/atomic_file.hpp"
#include "splinebench/io/npy.hpp"
#include "splinebench/runner/run_context.hpp"
#include "splinebench/runner/stats.hpp"
#include "splinebench/scattered/assembly.hpp"
#include "splinebench/scattered/blocks.hpp"
#include "splinebench/scattered/condition.hpp"
#include "splinebench/scattered/metrics.hpp"
#include "splinebench/scattered/named_solvers.hpp"
#include "splinebench/scattered/reference.hpp"

namespace sb = splinebench;
namespace sc = splinebench::scattered;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  std::string data;
  std::string synthetic;
  std::string mode = "mirror";
  std::string selection = "laplace";
  std::vector<double> fractions{0.2};
  std::vector<double> lambdas{2.1};
  std::vector<std::string> solvers;
  int seed_iterations = 100;
  double tolerance = 1e-8;
  int max_iterations = 20000;
  int stationary_max_iterations = 0;  // > 0: the budget of Jacobi and Gauss-Seidel runs instead
  int repetitions = 3;
  int warmups = 1;
  int threads = 1;
  std::string out;
  std::string machine;
  std::string blocks;            // "2x2x2": every solver also runs block by block
  int block_padding = 3;
  double memory_budget_mb = 0;   // > 0: blocks chosen so each block's system fits
  std::vector<int> mg;           // the seed's multigrid parameters N N0 N1 N2 M M0 M1 M2 P
  std::int64_t oracle_direct_max = 0;  // > 0: the oracle's LDL^T up to this many unknowns, CG beyond
  bool no_cpu_system = false;    // no CPU assembly and oracle: the matrix-free GPU solvers only
  std::string save_dir;          // non-empty: coefficients, node values and sample masks as .npy
  std::string points;            // scattered samples from files: (D, n) coordinates ...
  std::string values;            // ... and n values
  std::string shape;             // the grid when samples come from files without --data
  int condition_steps = 30;      // Lanczos steps of the condition estimate (0: none)
};

struct Field {
  std::string name;
  sb::GridShape grid;
  std::vector<double> values;
};

std::vector<std::int64_t> parse_shape(const std::string& shape, const std::string& option) {
  std::vector<std::int64_t> extents;
  for (std::size_t at = 0; at <= shape.size();) {
    const auto x = std::min(shape.find('x', at), shape.size());
    const std::string part = shape.substr(at, x - at);
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos)
      sb::fail(option + ": '" + shape + "' is not a shape like 64x64");
    extents.push_back(std::stoll(part));
    at = x + 1;
  }
  return extents;
}

// Every value finite, or an error naming the first that is not (the selection's
// Laplacian and RMS_g read every node).
void require_finite(const std::vector<double>& values, const std::string& what) {
  for (std::size_t k = 0; k < values.size(); ++k)
    if (!std::isfinite(values[k])) {
      std::ostringstream msg;
      msg << what << ": value " << values[k] << " at flat index " << k << " is not finite";
      sb::fail(msg.str());
    }
}

Field load_field(const Options& o) {
  Field f;
  const bool from_files = !o.points.empty() || !o.values.empty();
  if (from_files && (o.points.empty() || o.values.empty())) sb::fail("--points and --values go together");
  if (from_files && !o.synthetic.empty()) sb::fail("--points/--values take --data (for RMS_g) or --shape, not --synthetic");
  if (from_files && o.data.empty()) {
    if (o.shape.empty()) sb::fail("samples from --points/--values need the grid: --shape AxB or --data FILE.npy");
    f.grid = sb::GridShape::make(parse_shape(o.shape, "--shape"));
    f.name = std::filesystem::path(o.values).stem().string();
    return f;  // no full data: RMS_g is not defined, RMS at the samples is
  }
  if (!from_files && !o.data.empty() == !o.synthetic.empty())
    sb::fail("give exactly one of --data FILE.npy and --synthetic KIND:SHAPE");
  if (!o.data.empty()) {
    const sb::npy::Array a = sb::npy::read(o.data);
    f.name = std::filesystem::path(o.data).stem().string();
    f.grid = sb::GridShape::make(a.shape);
    f.values = a.is_float32 ? std::vector<double>(a.f32.begin(), a.f32.end()) : a.f64;
    require_finite(f.values, o.data);
    return f;
  }
  const auto colon = o.synthetic.find(':');
  if (colon == std::string::npos) sb::fail("--synthetic wants KIND:SHAPE, e.g. smooth:64x64");
  const auto kind = sb::datasets::parse_field_kind(o.synthetic.substr(0, colon));
  f.grid = sb::GridShape::make(parse_shape(o.synthetic.substr(colon + 1), "--synthetic"));
  const std::vector<float> v = sb::datasets::make_field(kind, f.grid, 1, 2024);
  f.values.assign(v.begin(), v.end());
  f.name = std::string(sb::datasets::to_string(kind));
  return f;
}

json stats_json(const std::vector<double>& samples) {
  const sb::runner::SampleStats s = sb::runner::summarize(samples);
  return {{"samples", s.samples}, {"median", s.median}, {"min", s.min}, {"max", s.max},
          {"q1", s.q1},           {"q3", s.q3},         {"iqr", s.iqr}};
}

json finite_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

std::vector<double> to_std(const sc::Vector& v) { return std::vector<double>(v.data(), v.data() + v.size()); }

// Iterations at which RMS_g is recorded along the way: 1, 2, 5 x powers of ten and the
// seed's count.
bool checkpoint(int it, int seed_count) {
  if (it == seed_count) return true;
  for (int p = 1; p <= it; p *= 10)
    if (it == p || it == 2 * p || it == 5 * p) return true;
  return false;
}

sc::SeedMultigrid seed_multigrid(const Options& o) {
  sc::SeedMultigrid m;
  if (o.mg.empty()) return m;
  if (o.mg.size() != 9) sb::fail("--mg wants 9 numbers: N N0 N1 N2 M M0 M1 M2 P");
  for (int v : o.mg)
    if (v < 0) sb::fail("--mg parameters must be >= 0");
  m.n = o.mg[0], m.n0 = o.mg[1], m.n1 = o.mg[2], m.n2 = o.mg[3];
  m.m = o.mg[4], m.m0 = o.mg[5], m.m1 = o.mg[6], m.m2 = o.mg[7], m.p = o.mg[8];
  return m;
}

json mg_json(const sc::SeedMultigrid& m) {
  return {{"N", m.n}, {"N0", m.n0}, {"N1", m.n1}, {"N2", m.n2}, {"M", m.m},
          {"M0", m.m0}, {"M1", m.m1}, {"M2", m.m2}, {"P", m.p}};
}

// --save-coefficients DIR: per (fraction, lambda) case, tag "f<fraction>_lambda<lambda>":
//   mask_<tag>.npy              f32, the grid's shape: 1 at sampled nodes, 0 elsewhere
//   coeffs_<tag>_<solver>.npy   f64 coefficients (solver "reference": the oracle)
//   values_<tag>_<solver>.npy   f32 spline at the nodes (the reconstructed image)
//   original.npy                f32, the full data the samples were taken from (once per run,
//                               when there is one; not for samples from files without --data)
// each written atomically; the record names its files in "saved".
struct Saver {
  std::filesystem::path dir;
  std::vector<std::int64_t> shape;
  bool on() const { return !dir.empty(); }
  std::string write_mask(const std::string& tag, std::int64_t points, const std::vector<std::int64_t>& nodes) const {
    std::vector<float> mask(static_cast<std::size_t>(points), 0.f);
    for (std::int64_t k : nodes) mask[static_cast<std::size_t>(k)] = 1.f;
    const std::string name = "mask_" + tag + ".npy";
    sb::npy::write(dir / name, shape, mask.data());
    return name;
  }
  std::string write_original(const std::vector<double>& values) const {
    const std::vector<float> v32(values.begin(), values.end());
    sb::npy::write(dir / "original.npy", shape, v32.data());
    return "original.npy";
  }
  json write_solution(const std::string& tag, const std::string& solver, const std::vector<double>& coeffs,
                      const std::vector<double>& values) const {
    const std::string c = "coeffs_" + tag + "_" + solver + ".npy";
    const std::string v = "values_" + tag + "_" + solver + ".npy";
    sb::npy::write(dir / c, shape, coeffs.data());
    const std::vector<float> v32(values.begin(), values.end());
    sb::npy::write(dir / v, shape, v32.data());
    return {{"coefficients", c}, {"values", v}};
  }
};

struct Case {
  double fraction = 0;
  std::vector<std::int64_t> nodes;  // the selected nodes (empty for samples from files)
  sc::Problem problem;
};

std::vector<double> read_doubles(const std::string& path) {
  const sb::npy::Array a = sb::npy::read(path);
  return a.is_float32 ? std::vector<double>(a.f32.begin(), a.f32.end()) : a.f64;
}

bool is_stationary(const std::string& name) {
  const std::string base = name.rfind("gpu_", 0) == 0 ? name.substr(4) : name;
  return base.rfind("jacobi", 0) == 0 || base.rfind("gs", 0) == 0 || base == "sgs_mc";
}

int iteration_budget(const Options& o, const std::string& name) {
  return o.stationary_max_iterations > 0 && is_stationary(name) ? o.stationary_max_iterations : o.max_iterations;
}

// The device's time of a solve from the samples: assembly (or the matrix-free set-up of
// the samples and F^T f), the multigrid hierarchy where there is one, and the iterations.
double device_assemble_solve(const sb::PhaseTimes& p) { return p.get("assemble") + p.get("setup") + p.get("solve"); }

// One record of the solver on the whole grid; its coefficients (of the instrumented run)
// in *coeffs when given.
json run_solver(const Options& o, const std::string& name, const Field& field, sb::Mode mode,
                const sc::NormalEquations& eq, const sc::Problem& problem, const sc::ReferenceSolution& ref,
                double max_value, const Saver& saver, const std::string& tag, sc::Vector* coeffs = nullptr) {
  const sc::SeedMultigrid mg = seed_multigrid(o);
  json rec;
  rec["solver"] = name;
  auto rms_of = [&](const sc::Vector& x) {
    if (field.values.empty()) return std::numeric_limits<double>::quiet_NaN();  // samples from files without the full data
    return sc::rms_g(sc::grid_values(field.grid, mode, to_std(x)), field.values, max_value);
  };
  // Instrumented run to the tolerance: relres history, RMS_g at checkpoints and at the
  // seed's count.
  sc::IterationControl control;
  control.tolerance = o.tolerance;
  control.max_iterations = iteration_budget(o, name);
  json rms_at = json::object();
  json at_seed = nullptr;
  control.observer = [&](int it, const sc::Vector& x) {
    if (!checkpoint(it, o.seed_iterations)) return;
    const double r = rms_of(x);
    rms_at[std::to_string(it)] = finite_or_null(r);
    if (it == o.seed_iterations)
      at_seed = {{"iterations", it}, {"rms_g", finite_or_null(r)},
                 {"relres", finite_or_null(sc::relative_residual(eq.matrix, eq.rhs, x))}};
  };
  sc::NamedSolve run = sc::solve_named(name, problem, eq, control, mg);
  rec["assembly"] = run.assembly;
  // Which residual relres is: b - A x in f64 on the CPU's matrix, or the operator's own.
  rec["relres_basis"] = eq.matrix.rows() > 0 || run.assembly == "cpu" ? "cpu_f64" : "operator_f32_f64_norms";
  if (name == "mg_seed" || name == "gpu_mg_seed") rec["mg"] = mg_json(mg);
  rec["solve_status"] = std::string(sc::to_string(run.report.status));
  rec["message"] = run.report.message;
  rec["iterations"] = run.report.iterations;
  rec["max_iterations"] = control.max_iterations;
  rec["relres"] = finite_or_null(run.report.relres);
  rec["relres_history"] = run.report.history;
  rec["rms_g"] = finite_or_null(rms_of(run.x));
  if (saver.on() && run.x.allFinite())
    rec["saved"] = saver.write_solution(tag, name, to_std(run.x), sc::grid_values(field.grid, mode, to_std(run.x)));
  rec["rms_g_at_iteration"] = rms_at;
  rec["rms_samples"] = finite_or_null(sc::rms_at_samples(problem, to_std(run.x)));
  if (ref.coeffs.size())
    rec["coeff_rel_err"] = finite_or_null((run.x - ref.coeffs).norm() / ref.coeffs.norm());
  // Timed runs without observers: the seed's fixed count, then to the tolerance.
  // Device phases (GPU solvers): each phase of the run to the tolerance, and of the
  // seed's fixed count "assemble" plus "setup" (a multigrid's levels and smoother
  // estimates) plus "solve" as "device_seed_iterations" (the seed's Table 2 times include
  // the assembly).
  std::vector<double> fixed, converge, setup, device_seed, device_total;
  std::map<std::string, std::vector<double>> device;
  sc::IterationControl fixed_control;
  fixed_control.max_iterations = o.seed_iterations;
  sc::IterationControl tol_control;
  tol_control.tolerance = o.tolerance;
  tol_control.max_iterations = iteration_budget(o, name);
  // The multigrid-preconditioned CGs are not the seed's: their iteration is a V-cycle,
  // converged within a few tens, so a run of the seed's count (100 V-cycles) would time
  // nothing a table shows; they are timed to the tolerance only.
  const bool seed_count = name != "mg_pcg" && name != "gpu_mg_pcg";
  for (int r = 0; r < o.warmups + o.repetitions; ++r) {
    auto t0 = Clock::now();
    std::optional<sc::NamedSolve> a;
    if (seed_count) a = sc::solve_named(name, problem, eq, fixed_control, mg);
    const double t_fixed = std::chrono::duration<double>(Clock::now() - t0).count();
    // Solvers without an observer: RMS_g at the seed's count from the fixed run.
    if (a && at_seed.is_null() && a->report.iterations == o.seed_iterations)
      at_seed = {{"iterations", o.seed_iterations}, {"rms_g", finite_or_null(rms_of(a->x))},
                 {"relres", finite_or_null(a->report.relres)}};
    t0 = Clock::now();
    const sc::NamedSolve c = sc::solve_named(name, problem, eq, tol_control, mg);
    const double t_conv = std::chrono::duration<double>(Clock::now() - t0).count();
    if (r < o.warmups) continue;
    if (a) fixed.push_back(t_fixed);
    converge.push_back(t_conv);
    setup.push_back(a ? a->setup_seconds : c.setup_seconds);
    if (!c.phases.entries().empty()) {
      for (const auto& [k, v] : c.phases.entries()) device[k].push_back(v);
      if (a) device_seed.push_back(device_assemble_solve(a->phases));
      device_total.push_back(device_assemble_solve(c.phases));
    }
  }
  rec["at_seed_iterations"] = at_seed;
  rec["phases"] = {{"solve_wall", stats_json(converge)}, {"solver_setup", stats_json(setup)}};
  if (!fixed.empty()) rec["phases"]["solve_seed_iterations"] = stats_json(fixed);
  // "solve": the device's own time where there is one, the wall time of the solve otherwise.
  rec["phases"]["solve"] = stats_json(converge);
  for (const auto& [k, v] : device) rec["phases"][k] = stats_json(v);
  if (!device_seed.empty()) rec["phases"]["device_seed_iterations"] = stats_json(device_seed);
  if (!device_total.empty()) rec["phases"]["device_assemble_solve"] = stats_json(device_total);
  if (coeffs) *coeffs = std::move(run.x);
  return rec;
}

double median_phase(const json& rec, const std::string& phase) {
  const json& p = rec.value("phases", json::object());
  return p.contains(phase) && p[phase].contains("median") ? p[phase]["median"].get<double>() : NAN;
}

// What a blocked record is measured against. The CPU solvers: the oracle's RMS_g and
// coefficients and their own unblocked wall time (CPU assembly + solve). The matrix-free
// GPU solvers: their own unblocked run (RMS_g, coefficients, device assembly + setup +
// solve), which exists where the oracle does not (--no-cpu-system).
struct Unblocked {
  double rms_g = NAN;
  std::string rms_basis;
  sc::Vector coeffs;  // empty: no max_abs_ds
  double seconds = NAN;
  std::string time_basis;
};

// The solver block by block (blocks.hpp), each block to the tolerance: the CPU solvers
// on each block's CPU assembly, the matrix-free GPU solvers from each block's samples
// (no CPU system needed). Timed: the wall time of the whole (block extraction, assembly,
// solves, stitching) and, for the GPU solvers, the device phases summed over the blocks.
// RMS_g of the stitched solution, its change and the largest change of s at the nodes
// (it sits at the seams) against `unblocked`; the coefficients against the oracle.
json run_blocked(const Options& o, const std::string& name, const sc::BlockSpec& spec, const Field& field,
                 sb::Mode mode, const sc::Problem& problem, const sc::ReferenceSolution& ref, double max_value,
                 const Unblocked& unblocked) {
  const sc::SeedMultigrid mg = seed_multigrid(o);
  const bool on_device = sc::needs_no_matrix(name);
  json rec;
  rec["solver"] = name;
  rec["blocks"] = spec.counts;
  rec["block_padding"] = spec.padding;
  sc::IterationControl control;
  control.tolerance = o.tolerance;
  control.max_iterations = o.max_iterations;
  sb::PhaseTimes block_phases;  // the device phases of one repetition, summed over its blocks
  std::string assembly = "cpu";
  const sc::BlockSolver cpu_solver = [&](const sc::NormalEquations& eq, const sb::GridShape& box,
                                         sc::SolveReport& report) {
    sc::NamedSolve s = sc::solve_named(name, box, mode, eq, control, mg);
    report = std::move(s.report);
    return s.x;
  };
  // No CPU system for a block either: its relres is the operator's (in its report).
  const sc::ProblemBlockSolver device_solver = [&](const sc::Problem& block, sc::SolveReport& report) {
    sc::NamedSolve s = sc::solve_named(name, block, sc::NormalEquations{}, control, mg);
    for (const auto& [k, v] : s.phases.entries()) block_phases.add(k, v);
    assembly = s.assembly;
    report = std::move(s.report);
    return s.x;
  };
  std::vector<double> wall, device_total;
  std::map<std::string, std::vector<double>> device;
  sc::BlockedSolution sol;
  for (int r = 0; r < o.warmups + o.repetitions; ++r) {
    block_phases.clear();
    const auto t0 = Clock::now();
    sol = on_device ? sc::solve_blocked(problem, spec, device_solver) : sc::solve_blocked(problem, spec, cpu_solver);
    const double t = std::chrono::duration<double>(Clock::now() - t0).count();
    if (r < o.warmups) continue;
    wall.push_back(t);
    if (!on_device) continue;
    for (const auto& [k, v] : block_phases.entries()) device["blocked_" + k].push_back(v);
    device_total.push_back(device_assemble_solve(block_phases));
  }
  rec["assembly"] = assembly;
  rec["solve_status"] = std::string(sc::to_string(sol.status));
  rec["message"] = sol.message;
  rec["iterations"] = sol.max_iterations;
  json block_iterations = json::array();
  for (const sc::SolveReport& b : sol.reports) block_iterations.push_back(b.iterations);
  rec["block_iterations"] = block_iterations;
  rec["largest_block_points"] = sol.max_box_points;
  const std::vector<double> s_b = sc::grid_values(field.grid, mode, to_std(sol.coeffs));
  const double r = field.values.empty() ? NAN : sc::rms_g(s_b, field.values, max_value);
  rec["rms_g"] = finite_or_null(r);
  rec["unblocked_rms_g"] = finite_or_null(unblocked.rms_g);
  rec["rms_g_change"] = finite_or_null(unblocked.rms_g > 0 ? (r - unblocked.rms_g) / unblocked.rms_g : NAN);
  rec["rms_g_change_basis"] = unblocked.rms_basis;
  rec["rms_samples"] = finite_or_null(sc::rms_at_samples(problem, to_std(sol.coeffs)));
  if (ref.coeffs.size()) rec["coeff_rel_err"] = finite_or_null((sol.coeffs - ref.coeffs).norm() / ref.coeffs.norm());
  if (unblocked.coeffs.size() == sol.coeffs.size()) {
    const std::vector<double> s_u = sc::grid_values(field.grid, mode, to_std(unblocked.coeffs));
    double seam = 0;
    for (std::size_t k = 0; k < s_b.size(); ++k) seam = std::max(seam, std::abs(s_b[k] - s_u[k]));
    rec["max_abs_ds"] = finite_or_null(seam / max_value);
  }
  // "blocked_assemble_solve" is the time set beside the unblocked one (time_basis says which).
  rec["phases"] = {{"blocked_assemble_solve", stats_json(on_device ? device_total : wall)}};
  if (on_device) {
    rec["phases"]["blocked_wall"] = stats_json(wall);
    for (const auto& [k, v] : device) rec["phases"][k] = stats_json(v);
  }
  const double blocked_seconds = median_phase(rec, "blocked_assemble_solve");
  rec["unblocked_time"] = finite_or_null(unblocked.seconds);
  rec["time_ratio"] = finite_or_null(unblocked.seconds > 0 ? blocked_seconds / unblocked.seconds : NAN);
  rec["time_basis"] = unblocked.time_basis;
  return rec;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"Cubic B-spline reconstruction from scattered samples (systems/scattered/README.md)"};
  app.add_option("--data", o.data, "2-D or 3-D .npy array: the full regular data set");
  app.add_option("--synthetic", o.synthetic, "KIND:SHAPE instead of --data, KIND smooth or noise, e.g. smooth:64x64");
  app.add_option("--mode", o.mode, "boundary mode: mirror, half, periodic");
  app.add_option("--selection", o.selection, "laplace (top |Laplacian|) or random");
  app.add_option("--fraction", o.fractions, "fraction of nodes sampled (repeatable)");
  app.add_option("--lambda", o.lambdas, "thin-plate weight (repeatable)");
  std::string names;
  for (const auto& n : sc::solver_names()) names += " " + n;
  app.add_option("--solver", o.solvers, "solver (repeatable; default all):" + names);
  app.add_option("--seed-iterations", o.seed_iterations, "the seed's fixed iteration count (RMS_g and time recorded there)");
  app.add_option("--tolerance", o.tolerance, "relres at which a solver counts as converged");
  app.add_option("--max-iterations", o.max_iterations, "iteration budget of a run to the tolerance");
  app.add_option("--stationary-max-iterations", o.stationary_max_iterations,
                 "iteration budget of the Jacobi and Gauss-Seidel runs to the tolerance (default --max-iterations)");
  app.add_option("--repetitions", o.repetitions, "timed repetitions");
  app.add_option("--warmups", o.warmups, "untimed repetitions first");
  app.add_option("--threads", o.threads, "threads of Eigen's products (eigen_cg) and OpenMP");
  app.add_option("--out", o.out, "results file (default results/<machine>/<UTC time>-scattered/results.json)");
  app.add_option("--machine", o.machine, "machine label (default: host name)");
  app.add_option("--blocks", o.blocks, "also solve block by block, e.g. 2x2x2 (blocks.hpp)");
  app.add_option("--block-padding", o.block_padding, "nodes of padding on each inner side of a block (seed: 3)");
  app.add_option("--memory-budget-mb", o.memory_budget_mb,
                 "also solve block by block with the fewest blocks whose system fits this budget");
  app.add_option("--mg", o.mg, "the seed's multigrid parameters N N0 N1 N2 M M0 M1 M2 P (default Table 4's)")
      ->expected(9);
  app.add_option("--points", o.points, "scattered samples instead of a selection: (D, n) .npy coordinates");
  app.add_option("--values", o.values, "the samples' n values (.npy), with --points");
  app.add_option("--shape", o.shape, "the grid, e.g. 64x64, for --points/--values without --data");
  app.add_option("--save-coefficients", o.save_dir,
                 "write the oracle's and each solver's coefficients, node values and the sample masks as .npy here");
  app.add_flag("--no-cpu-system", o.no_cpu_system,
               "no CPU assembly or oracle (grids whose CSR does not fit, e.g. 256^3): only the matrix-free GPU "
               "solvers run, relres is the operator's, RMS_g from their coefficients");
  app.add_option("--condition-steps", o.condition_steps,
                 "Lanczos steps of the condition estimate behind each record's coeff_err_bound (0: none; "
                 "only where the oracle factorises)");
  app.add_option("--oracle-direct-max", o.oracle_direct_max,
                 "the oracle factorises up to this many unknowns and runs f64 PCG beyond (default by dimension, reference.hpp)");
  CLI11_PARSE(app, argc, argv);
  try {
    const auto mode = sb::parse_mode(o.mode);
    if (!mode) sb::fail("unknown mode '" + o.mode + "'");
    if (o.selection != "laplace" && o.selection != "random") sb::fail("--selection must be laplace or random");
    if (o.repetitions < 1 || o.warmups < 0 || o.seed_iterations < 1 || o.threads < 1)
      sb::fail("--repetitions, --seed-iterations and --threads must be >= 1, --warmups >= 0");
    if (o.solvers.empty()) o.solvers = sc::solver_names();
    const auto known = sc::solver_names();
    for (const auto& name : o.solvers)
      if (std::find(known.begin(), known.end(), name) == known.end())
        sb::fail("unknown solver '" + name + "' (known:" + names + ")");
    Eigen::setNbThreads(o.threads);
    const Field field = load_field(o);
    if (field.grid.dims > sc::kMaxReconstructionDims) sb::fail("the data must be 1-, 2- or 3-D");
    seed_multigrid(o);  // refuses bad --mg before any work
    if (!o.blocks.empty() && o.memory_budget_mb > 0) sb::fail("give --blocks or --memory-budget-mb, not both");
    std::optional<sc::BlockSpec> blocks;
    if (!o.blocks.empty()) blocks = sc::parse_block_spec(o.blocks, field.grid, o.block_padding);
    if (o.memory_budget_mb > 0)
      blocks = sc::blocks_for_budget(field.grid, *mode, static_cast<std::int64_t>(o.memory_budget_mb * 1048576.0),
                                     o.block_padding);
    if (blocks) sc::make_blocks(field.grid, *mode, *blocks);  // refuses a cut periodic axis up front
    if (blocks && o.no_cpu_system)
      for (const auto& name : o.solvers)
        if (!sc::needs_no_matrix(name))
          sb::fail("--blocks with --no-cpu-system: '" + name +
                   "' solves the CPU's system, which this run does not form; block by block without it only the "
                   "matrix-free GPU solvers run (--solver gpu_cg_matrix_free, gpu_mg_seed or gpu_mg_pcg)");

    // Every case built and validated before any work or output: bad fractions, lambdas,
    // samples (NaN/inf, outside the grid, none) end here with the reason and exit 1.
    for (double lambda : o.lambdas)
      if (!std::isfinite(lambda) || lambda < 0) sb::fail("--lambda must be finite and >= 0, got " + std::to_string(lambda));
    std::vector<Case> cases;
    if (!o.points.empty()) {
      sc::Problem file_problem;
      file_problem.grid = field.grid;
      file_problem.mode = *mode;
      file_problem.points = read_doubles(o.points);
      file_problem.values = read_doubles(o.values);
      if (file_problem.points.size() != field.grid.dims * file_problem.values.size())
        sb::fail("--points holds " + std::to_string(file_problem.points.size()) + " coordinates for " +
                 std::to_string(file_problem.values.size()) + " values of --values in " +
                 std::to_string(field.grid.dims) + "-D (a (D, n) array is expected)");
      o.selection = "file";
      for (double lambda : o.lambdas) {
        Case c;
        c.problem = file_problem;
        c.problem.lambda = lambda;
        c.fraction = static_cast<double>(file_problem.values.size()) / static_cast<double>(field.grid.points());
        c.problem.validate();
        cases.push_back(std::move(c));
      }
    } else {
      for (double fraction : o.fractions) {
        const auto nodes = o.selection == "laplace" ? sc::select_top_laplacian(field.grid, *mode, field.values, fraction)
                                                    : sc::select_random(field.grid, fraction, 2024);
        for (double lambda : o.lambdas) {
          Case c{fraction, nodes, sc::problem_from_nodes(field.grid, *mode, field.values, nodes, lambda)};
          c.problem.validate();
          cases.push_back(std::move(c));
        }
      }
    }

    const auto start = sb::runner::Clock::now();
    if (o.machine.empty()) o.machine = sb::runner::host_name();
    sb::runner::validate_machine_label(o.machine);
    const std::string run_id = sb::runner::utc_compact(start) + "-scattered";
    std::filesystem::path out = o.out.empty() ? std::filesystem::path("results") / o.machine / run_id / "results.json"
                                              : std::filesystem::path(o.out);
    if (o.out.empty()) std::filesystem::create_directories(out.parent_path());
    sb::io::check_output(out);
    sb::io::install_interrupt_guard();
    Saver saver;
    if (!o.save_dir.empty()) {
      saver.dir = o.save_dir;
      saver.shape = field.grid.extents();
      std::filesystem::create_directories(saver.dir);
      sb::io::check_output(saver.dir / "mask.npy");
    }
    const std::string original = saver.on() && !field.values.empty() ? saver.write_original(field.values) : "";

    // The file is rewritten (atomically) after every record, so a run cut short (a device
    // time limit, a slow solver) keeps what it finished; "finished" says whether it ran out.
    json records = json::array();
    const json context = sb::runner::collect_context(o.machine, run_id, "scattered", start, json::object());
    const auto write_results = [&](bool finished) {
      const json doc = {{"schema", "splinebench-results"},
                        {"schema_version", 1},
                        {"finished", finished},
                        {"context", context},
                        {"records", records}};
      sb::io::write_file_atomically(out, doc.dump(1) + "\n");
    };
    for (const Case& c : cases) {
      const double fraction = c.fraction;
      const double lambda = c.problem.lambda;
      const std::vector<std::int64_t>& nodes = c.nodes;
      const sc::Problem& problem = c.problem;
      // Max_value: the largest sample value (the seed's appendix); the data's own
      // maximum when the samples have no positive value.
      double max_value = *std::max_element(problem.values.begin(), problem.values.end());
      std::string max_basis = "max of the sample values";
      if (!(max_value > 0)) {
        max_value = 0;
        for (double v : field.values) max_value = std::max(max_value, std::abs(v));
        max_basis = "max |f| over the data (the samples have no positive value)";
      }
      if (!(max_value > 0)) {
        for (double v : problem.values) max_value = std::max(max_value, std::abs(v));
        max_basis = "max |f| over the samples (no positive value)";
      }
      if (!(max_value > 0)) {
        max_value = 1;
        max_basis = "1 (every value is 0)";
      }
      // Assembly, timed per phase.
      std::vector<double> t_pattern, t_samples, t_r;
      sc::NormalEquations eq;
      for (int r = 0; !o.no_cpu_system && r < o.warmups + o.repetitions; ++r) {
        auto t0 = Clock::now();
        eq.matrix = sc::pattern_matrix(field.grid, *mode);
        eq.rhs = sc::Vector::Zero(eq.matrix.rows());
        auto t1 = Clock::now();
        sc::add_samples(problem, eq.matrix, eq.rhs);
        auto t2 = Clock::now();
        if (lambda > 0) sc::add_thin_plate(field.grid, *mode, lambda, eq.matrix);
        auto t3 = Clock::now();
        if (r < o.warmups) continue;
        t_pattern.push_back(std::chrono::duration<double>(t1 - t0).count());
        t_samples.push_back(std::chrono::duration<double>(t2 - t1).count());
        t_r.push_back(std::chrono::duration<double>(t3 - t2).count());
      }
      const auto t0 = Clock::now();
      sc::ReferenceOptions ref_options;
      ref_options.direct_max_unknowns = o.oracle_direct_max;
      sc::ReferenceSolution ref;
      if (!o.no_cpu_system) ref = sc::solve_reference(eq, field.grid, *mode, ref_options);
      const double t_ref = std::chrono::duration<double>(Clock::now() - t0).count();

      json base = {{"operation", "scattered_reconstruction"},
                   {"device", "cpu"},
                   {"dims", field.grid.dims},
                   {"shape", field.grid.extents()},
                   {"mode", o.mode},
                   {"data", field.name},
                   {"selection", o.selection},
                   {"fraction", fraction},
                   {"samples", problem.samples()},
                   {"lambda", lambda},
                   {"threads", o.threads},
                   {"threads_used", Eigen::nbThreads()},
                   {"seed_iterations", o.seed_iterations},
                   {"tolerance", o.tolerance},
                   {"max_value", max_value},
                   {"max_value_basis", max_basis},
                   {"repetitions", o.repetitions},
                   {"warmups", o.warmups}};
      json assembly = json::object();
      if (!o.no_cpu_system)
        assembly = {{"assemble_pattern", stats_json(t_pattern)},
                    {"assemble_FtF_Ftf", stats_json(t_samples)},
                    {"add_R", stats_json(t_r)}};
      json oracle = base;
      oracle["impl"] = "reference";
      oracle["solver"] = ref.method;
      oracle["solve_status"] = std::string(sc::to_string(ref.report.status));
      oracle["status"] = ref.report.status == sc::SolveStatus::converged ? "ok" : "error";
      oracle["message"] = ref.report.message;
      oracle["relres"] = finite_or_null(ref.report.relres);
      oracle["pivot_ratio"] = ref.pivot_ratio;
      oracle["iterations"] = ref.report.iterations;
      oracle["phases"] = assembly;
      oracle["phases"]["solve"] = stats_json({t_ref});
      if (o.no_cpu_system) {
        oracle["solver"] = "none";
        oracle["status"] = "skipped";
        oracle["message"] = "--no-cpu-system: no CPU assembly or oracle; the solvers' relres is their operator's";
        oracle["phases"] = json::object();
      }
      if (ref.coeffs.size()) {
        if (!field.values.empty())
          oracle["rms_g"] = finite_or_null(
              sc::rms_g(sc::grid_values(field.grid, *mode, to_std(ref.coeffs)), field.values, max_value));
        oracle["rms_samples"] = finite_or_null(sc::rms_at_samples(problem, to_std(ref.coeffs)));
      }
      std::ostringstream tag_stream;
      tag_stream << "f" << fraction << "_lambda" << lambda;
      const std::string tag = tag_stream.str();
      if (saver.on()) {
        oracle["saved"] = json::object();
        if (!original.empty()) oracle["saved"]["original"] = original;
        if (!nodes.empty()) oracle["saved"]["mask"] = saver.write_mask(tag, field.grid.points(), nodes);
        if (ref.coeffs.size())
          oracle["saved"].update(saver.write_solution(tag, "reference", to_std(ref.coeffs),
                                                      sc::grid_values(field.grid, *mode, to_std(ref.coeffs))));
      }
      std::ostringstream id;
      id << "scattered/" << field.name << "/" << field.grid.to_string() << "/" << o.mode << "/" << o.selection
         << fraction << "/lambda" << lambda;
      oracle["case_id"] = id.str() + "/reference";
      // kappa for the bound ||c - c*|| / ||c*|| <= kappa relres (condition.hpp): A^-1 through
      // the same factorisation the oracle uses, so only where it factorises.
      double kappa = 0;
      if (o.condition_steps > 0 && ref.method == "ldlt" && ref.coeffs.size()) {
        Eigen::SimplicialLDLT<sc::SparseMatrix> ldlt(eq.matrix);
        if (ldlt.info() == Eigen::Success) {
          const sc::ConditionEstimate ce = sc::estimate_condition(
              eq.matrix, [&](const sc::Vector& b, sc::Vector& x) { x = ldlt.solve(b); }, o.condition_steps);
          kappa = ce.kappa();
          oracle["condition_estimate"] = {{"lambda_max", ce.lambda_max}, {"lambda_min", ce.lambda_min},
                                          {"kappa", finite_or_null(kappa)}, {"lanczos_steps", o.condition_steps},
                                          {"basis", "Lanczos Ritz values (inside the spectrum: kappa not over-estimated)"}};
        }
      }
      records.push_back(oracle);
      write_results(false);
      std::cerr << id.str() << ": reference " << oracle.value("rms_g", json(nullptr)) << " ("
                << oracle["solve_status"].get<std::string>() << ")\n";
      for (const std::string& name : o.solvers) {
        json rec = base;
        rec["impl"] = name;
        rec["case_id"] = id.str() + "/" + name;
        if (name.rfind("gpu_", 0) == 0) rec["device"] = "gpu";
        // Block by block after the whole grid: the CPU solvers and the matrix-free GPU ones
        // (whose blocked records compare with this run's coefficients).
        const bool blocked_after = blocks && name != "gpu_cg" && (!sc::needs_problem(name) || sc::needs_no_matrix(name));
        sc::Vector unblocked_coeffs;
        try {
          if (o.no_cpu_system && !sc::needs_no_matrix(name))
            throw sb::Unsupported("--no-cpu-system: '" + name + "' needs the CPU's system");
          rec.update(run_solver(o, name, field, *mode, eq, problem, ref, max_value, saver, tag,
                                blocked_after && sc::needs_no_matrix(name) ? &unblocked_coeffs : nullptr));
          rec["status"] = "ok";
          if (ref.report.status == sc::SolveStatus::singular) {
            // A consistent singular system: CG may still reach a small residual, at one of many solutions.
            rec["system_singular"] = true;
            const std::string m = rec.value("message", std::string());
            rec["message"] = (m.empty() ? "" : m + "; ") +
                             "the oracle found the system singular: the solution is not unique";
          }
          if (rec.value("assembly", std::string("cpu")) == "cpu")
            for (auto& [k, v] : assembly.items()) rec["phases"][k] = v;
        } catch (const sb::Unsupported& e) {
          rec["status"] = "skipped";
          rec["message"] = e.what();
        } catch (const sb::Error& e) {
          rec["status"] = "error";
          rec["message"] = e.what();
        }
        if (kappa > 0 && rec.contains("relres") && rec["relres"].is_number()) {
          rec["coeff_err_bound"] = finite_or_null(kappa * rec["relres"].get<double>());
          rec["coeff_err_bound_basis"] = "kappa estimate of the oracle record x relres (f64, the CPU's matrix)";
        }
        std::cerr << "  " << name << ": " << rec["status"].get<std::string>() << " "
                  << rec.value("solve_status", std::string()) << " it " << rec.value("iterations", 0) << " rms_g "
                  << rec.value("rms_g", json(nullptr)) << "\n";
        records.push_back(std::move(rec));
        write_results(false);
        if (!blocked_after) continue;
        json brec = base;
        brec["impl"] = name;
        if (name.rfind("gpu_", 0) == 0) brec["device"] = "gpu";
        brec["case_id"] = id.str() + "/" + name + "/blocks" + blocks->to_string();
        // Named as blocked also when skipped or failed (reports tell blocked records by these).
        brec["solver"] = name;
        brec["blocks"] = blocks->counts;
        brec["block_padding"] = blocks->padding;
        try {
          const json& unblocked_rec = records.back();
          const bool ok = unblocked_rec.value("status", std::string()) == "ok";
          Unblocked u;
          if (sc::needs_no_matrix(name)) {
            if (ok && unblocked_rec.contains("rms_g") && unblocked_rec["rms_g"].is_number())
              u.rms_g = unblocked_rec["rms_g"].get<double>();
            u.rms_basis = std::string("the same solver's unblocked RMS_g") +
                          (ref.coeffs.size() ? "" : " (no oracle: --no-cpu-system)") +
                          "; max_abs_ds against its coefficients";
            u.coeffs = std::move(unblocked_coeffs);
            if (ok) u.seconds = median_phase(unblocked_rec, "device_assemble_solve");
            u.time_basis = "device assemble + setup + solve summed over the blocks, against the same solver's "
                           "unblocked phases.device_assemble_solve; phases.blocked_wall is the host's time of it all";
          } else {
            if (oracle.contains("rms_g") && oracle["rms_g"].is_number()) u.rms_g = oracle["rms_g"].get<double>();
            u.rms_basis = "the oracle's unblocked RMS_g (f64); max_abs_ds against its coefficients";
            u.coeffs = ref.coeffs;
            if (ok)
              u.seconds = median_phase(unblocked_rec, "assemble_pattern") +
                          median_phase(unblocked_rec, "assemble_FtF_Ftf") + median_phase(unblocked_rec, "add_R") +
                          median_phase(unblocked_rec, "solve_wall");
            u.time_basis = "wall time of the blocks' extraction, CPU assembly and solve, against the same solver's "
                           "unblocked CPU assembly + solve_wall";
          }
          brec.update(run_blocked(o, name, *blocks, field, *mode, problem, ref, max_value, u));
          brec["status"] = "ok";
        } catch (const sb::Unsupported& e) {
          brec["status"] = "skipped";
          brec["message"] = e.what();
        } catch (const sb::Error& e) {
          brec["status"] = "error";
          brec["message"] = e.what();
        }
        std::cerr << "  " << name << " blocks " << blocks->to_string() << ": "
                  << brec.value("solve_status", std::string()) << " rms_g " << brec.value("rms_g", json(nullptr))
                  << " change " << brec.value("rms_g_change", json(nullptr)) << "\n";
        records.push_back(std::move(brec));
        write_results(false);
      }
    }
    write_results(true);
    std::cout << out.string() << "\n";
    return 0;
  } catch (const sb::Error& e) {
    std::cerr << "splinebench_scattered: " << e.what() << "\n";
    return 1;
  }
}
