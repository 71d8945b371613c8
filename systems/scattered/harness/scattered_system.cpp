// The scattered system's run: the planned cases (scattered_suite.cpp) through the
// solvers, each record checked against the f64 oracle within the solver's stated
// tolerance (solvers.def). The problem of consecutive cases (data, samples, the CPU's
// assembly, the oracle and its condition estimate) is built once and reused, as the
// grid harness reuses its oracle across implementations.
#include <Eigen/Core>
#include <Eigen/SparseCholesky>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>

#include "scattered_suite.hpp"
#include "splinebench/datasets.hpp"
#include "splinebench/datasets/real.hpp"
#include "splinebench/error.hpp"
#include "splinebench/io/npy.hpp"
#include "splinebench/runner/stats.hpp"
#include "splinebench/scattered/assembly.hpp"
#include "splinebench/scattered/blocks.hpp"
#include "splinebench/scattered/condition.hpp"
#include "splinebench/scattered/harness.hpp"
#include "splinebench/scattered/metrics.hpp"
#include "splinebench/scattered/named_solvers.hpp"
#include "splinebench/scattered/prepared_solver.hpp"
#include "splinebench/scattered/reference.hpp"
#include "splinebench/scattered/solver_registry.hpp"

namespace splinebench::scattered {
namespace {

// Blocks of a GPU solver in flight at once, one host thread each: the seed's 2x2x2 split
// of a volume all at once.
constexpr std::int64_t kDeviceBlocksAtOnce = 8;

using nlohmann::json;
using Clock = std::chrono::steady_clock;
using runner::stats_json;
namespace fs = std::filesystem;

json finite_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
std::vector<double> to_std(const Vector& v) { return std::vector<double>(v.data(), v.data() + v.size()); }
double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// Iterations at which RMS_g is recorded along the way: 1, 2, 5 x powers of ten and the
// seed's count.
bool checkpoint(int it, int seed_count) {
  if (it == seed_count) return true;
  for (int p = 1; p <= it; p *= 10)
    if (it == p || it == 2 * p || it == 5 * p) return true;
  return false;
}

SeedMultigrid seed_multigrid(const CaseParameters& p) {
  SeedMultigrid m;
  if (p.mg.empty()) return m;
  m.n = p.mg[0], m.n0 = p.mg[1], m.n1 = p.mg[2], m.n2 = p.mg[3];
  m.m = p.mg[4], m.m0 = p.mg[5], m.m1 = p.mg[6], m.m2 = p.mg[7], m.p = p.mg[8];
  return m;
}

json mg_json(const SeedMultigrid& m) {
  return {{"N", m.n}, {"N0", m.n0}, {"N1", m.n1}, {"N2", m.n2}, {"M", m.m},
          {"M0", m.m0}, {"M1", m.m1}, {"M2", m.m2}, {"P", m.p}};
}

int iteration_budget(const CaseParameters& p, const SolverInfo& info) {
  return p.stationary_max_iterations > 0 && info.stationary() ? p.stationary_max_iterations : p.max_iterations;
}

// The device's time of a solve from the samples: assembly (or the matrix-free set-up),
// the multigrid hierarchy where there is one, and the iterations.
double device_assemble_solve(const PhaseTimes& p) { return p.get("assemble") + p.get("setup") + p.get("solve"); }

double median_phase(const json& rec, const std::string& phase) {
  const json& p = rec.value("phases", json::object());
  return p.contains(phase) && p[phase].contains("median") ? p[phase]["median"].get<double>() : NAN;
}

// Peak host bytes of a case: the data and the spline at every node, a few vectors, the
// samples, and where there is a CPU system its CSR (7^D entries per row for the cubic
// B-spline's products, value and column index) twice (the matrix and the oracle's factor
// or its preconditioner's copy).
std::uint64_t host_bytes(const ScatteredCase& c) {
  const double points = static_cast<double>(c.grid.points());
  double bytes = points * 8.0 * 8 + points * c.fraction * (c.grid.dims + 1) * 8.0;
  if (c.params.cpu_system) bytes += 2.0 * points * std::pow(7.0, c.grid.dims) * 12.0;
  return bytes >= 1.8e19 ? std::numeric_limits<std::uint64_t>::max() : static_cast<std::uint64_t>(bytes);
}

// Writes the arrays a case asked for into <run>/arrays/<data>-<shape>/ (tag
// "f<fraction>_lambda<lambda>"): mask_<tag>.npy, coeffs_<tag>_<solver>.npy,
// values_<tag>_<solver>.npy and original.npy; records name them relative to <run>/arrays.
struct Saver {
  fs::path root;       // <run>/arrays; empty: nothing is saved
  std::string folder;  // <data>-<shape>: one problem's arrays (names in records are relative to root)
  std::vector<std::int64_t> shape;
  fs::path file(const std::string& name) const { return root / folder / name; }
  std::string named(const std::string& name) const { return folder + "/" + name; }
  std::string write_mask(const std::string& tag, std::int64_t points, const std::vector<std::int64_t>& nodes) const {
    std::vector<float> mask(static_cast<std::size_t>(points), 0.f);
    for (std::int64_t k : nodes) mask[static_cast<std::size_t>(k)] = 1.f;
    const std::string name = "mask_" + tag + ".npy";
    npy::write(file(name), shape, mask.data());
    return named(name);
  }
  std::string write_original(const std::vector<double>& values) const {
    const std::vector<float> v32(values.begin(), values.end());
    npy::write(file("original.npy"), shape, v32.data());
    return named("original.npy");
  }
  json write_solution(const std::string& tag, const std::string& solver, const std::vector<double>& coeffs,
                      const std::vector<double>& values) const {
    const std::string c = "coeffs_" + tag + "_" + solver + ".npy";
    const std::string v = "values_" + tag + "_" + solver + ".npy";
    npy::write(file(c), shape, coeffs.data());
    const std::vector<float> v32(values.begin(), values.end());
    npy::write(file(v), shape, v32.data());
    return {{"coefficients", named(c)}, {"values", named(v)}};
  }
};

// Everything the cases of one problem share.
struct ProblemState {
  std::string key;
  std::vector<double> data;  // the full data at the nodes
  std::vector<std::int64_t> nodes;
  Problem problem;
  double max_value = 1;
  std::string max_basis;
  NormalEquations eq;
  json assembly_phases = json::object();
  ReferenceSolution ref;
  double ref_seconds = 0;
  double ref_rms_g = NAN;
  double kappa = 0;
  json condition = nullptr;
  std::string tag;
  json saved_inputs = json::object();
  // The last unblocked run of each solver (the blocked records compare with it).
  struct Unblocked {
    bool ok = false;
    double rms_g = NAN;
    Vector coeffs;
    double seconds = NAN;
  };
  std::map<std::string, Unblocked> unblocked;
};

std::vector<double> load_data(const ScatteredCase& c) {
  if (!c.data_path.empty()) {
    const npy::Array a = npy::read(c.data_path);
    return a.is_float32 ? std::vector<double>(a.f32.begin(), a.f32.end()) : a.f64;
  }
  if (datasets::find_real_dataset(c.data)) {
    const datasets::RealDataset d = datasets::load_real_dataset(c.data);
    return std::vector<double>(d.values.begin(), d.values.end());
  }
  const std::vector<float> v = datasets::make_field(datasets::parse_field_kind(c.data), c.grid, 1, 2024);
  return std::vector<double>(v.begin(), v.end());
}

class ScatteredRun final : public runner::SystemRun {
 public:
  explicit ScatteredRun(ScatteredPlan plan) : plan_(std::move(plan)) {
    for (const auto& c : plan_.cases) {
      runner::PlannedCase pc;
      pc.id = c.case_id();
      pc.impl = c.solver;
      pc.sweep = c.sweep;
      const double points = static_cast<double>(c.grid.points());
      pc.work = points * (c.solver == "reference" ? 50.0 : 20.0) * (plan_.warmups + plan_.repetitions) *
                (c.blocks.empty() ? 1.0 : 1.5);
      pc.host_bytes = host_bytes(c);
      const SolverInfo* info = find_solver(c.solver);
      pc.will_run = !info || solver_unavailable_reason(*info).empty();
      cases_.push_back(std::move(pc));
    }
    // The oracle record of a problem whose planned solvers all cannot run here (the GPU
    // solvers' problems on a machine without a GPU) judges nothing; its f64 solve is left
    // out. An oracle planned alone (--impl reference) runs.
    std::set<std::string> solved, judged;
    for (std::size_t i = 0; i < plan_.cases.size(); ++i)
      if (find_solver(plan_.cases[i].solver)) {
        solved.insert(plan_.cases[i].problem_key());
        if (cases_[i].will_run) judged.insert(plan_.cases[i].problem_key());
      }
    for (std::size_t i = 0; i < plan_.cases.size(); ++i)
      if (!find_solver(plan_.cases[i].solver) && solved.count(plan_.cases[i].problem_key()) &&
          !judged.count(plan_.cases[i].problem_key())) {
        cases_[i].will_run = false;
        unjudged_.insert(i);
      }
  }

  const std::string& suite() const override { return plan_.suite; }
  const std::vector<runner::PlannedCase>& cases() const override { return cases_; }
  const std::vector<runner::PlannedSweep>& sweeps() const override { return plan_.sweeps; }
  const std::vector<std::string>& notes() const override { return plan_.notes; }
  json options() const override { return options_; }
  void set_options(json o) { options_ = std::move(o); }
  void set_output_dir(const fs::path& dir) override { run_dir_ = dir; }

  json entry_facts() const override {
    json facts = json::object();
    for (const auto& c : plan_.cases) {
      if (facts.contains(c.solver)) continue;
      const SolverInfo* info = find_solver(c.solver);
      if (!info) {
        facts[c.solver] = {"oracle=f64 LDL^T (Eigen SimplicialLDLT) or f64 PCG beyond its size"};
        continue;
      }
      facts[c.solver] = {"device=" + info->device, "family=" + info->family, "arithmetic=" + info->arithmetic,
                         "eigen_threads=" + std::to_string(Eigen::nbThreads())};
      if (c.solver == kTestSlowedSolver) {
        const char* factor = std::getenv("SPLINEBENCH_TEST_SLOWED_FACTOR");
        const char* wrapped = std::getenv("SPLINEBENCH_TEST_SLOWED_SOLVER");
        facts[c.solver].push_back(std::string("slowdown_factor=") + (factor && *factor ? factor : "1"));
        facts[c.solver].push_back(std::string("wraps=") + (wrapped && *wrapped ? wrapped : "cg"));
      }
    }
    return facts;
  }

  json run_case(std::size_t index, runner::SkipKind* kind) override {
    const ScatteredCase& c = plan_.cases.at(index);
    json rec = envelope(c);
    const SolverInfo* info = find_solver(c.solver);
    if (unjudged_.count(index)) {
      rec["status"] = "skipped";
      rec["message"] = "not needed: no solver of this run can run on this problem here, so the oracle judges nothing";
      if (kind) *kind = runner::SkipKind::unavailable;
      return rec;
    }
    if (info) {
      if (const std::string why = solver_unavailable_reason(*info); !why.empty()) {
        rec["status"] = "skipped";
        rec["message"] = "not available: " + why;
        if (kind) *kind = runner::SkipKind::unavailable;
        return rec;
      }
    }
    try {
      Eigen::setNbThreads(c.params.threads);
      rec["threads_used"] = Eigen::nbThreads();
      ProblemState& s = problem_for(c);
      if (!info) {
        oracle_record(c, s, rec);
      } else if (c.blocks.empty()) {
        solver_record(c, *info, s, rec);
      } else {
        blocked_record(c, *info, s, rec);
      }
    } catch (const Unsupported& e) {
      rec["status"] = "skipped";
      rec["message"] = e.what();
      rec["verdict"] = "n/a";
      if (kind) *kind = runner::SkipKind::thrown;
    } catch (const std::bad_alloc&) {
      rec["status"] = "error";
      rec["message"] = "out of host memory (std::bad_alloc)";
      rec["verdict"] = "n/a";
    } catch (const Error& e) {
      rec["status"] = "error";
      rec["message"] = e.what();
      rec["verdict"] = "n/a";
    }
    return rec;
  }

  std::string summary_table(const std::vector<json>& records) const override {
    struct Row {
      std::size_t pass = 0, fail = 0, skipped = 0, error = 0;
      double worst_rms_change = -1;
      int most_iterations = 0;
    };
    std::vector<std::string> order;
    std::map<std::string, Row> rows;
    for (const auto& r : records) {
      std::string name = r.value("impl", "?");
      if (r.contains("blocks")) name += " (blocks)";
      if (!rows.count(name)) order.push_back(name);
      Row& row = rows[name];
      const std::string status = r.value("status", "");
      if (status == "skipped") ++row.skipped;
      else if (status == "error") ++row.error;
      else (r.value("verdict", "") == "pass" ? row.pass : row.fail) += 1;
      const json d = r.value("rms_g_rel_diff", json(nullptr));
      if (d.is_number()) row.worst_rms_change = std::max(row.worst_rms_change, d.get<double>());
      if (r.value("iterations", json(0)).is_number_integer())
        row.most_iterations = std::max(row.most_iterations, r.value("iterations", 0));
    }
    std::ostringstream out;
    int width = 22;
    for (const auto& n : order) width = std::max(width, static_cast<int>(n.size()) + 2);
    out << std::left << std::setw(width) << "solver" << std::setw(20) << "|dRMS_g|/RMS_g*" << std::setw(12)
        << "max it" << std::setw(8) << "pass" << std::setw(6) << "fail" << std::setw(6) << "skip" << std::setw(7)
        << "error" << "verdict\n";
    for (const auto& n : order) {
      const Row& r = rows[n];
      std::ostringstream d;
      if (r.worst_rms_change >= 0) d << std::scientific << std::setprecision(2) << r.worst_rms_change;
      else d << "-";
      const std::string verdict = r.fail || r.error ? "FAIL" : r.pass ? "pass" : "skipped";
      out << std::left << std::setw(width) << n << std::setw(20) << d.str() << std::setw(12) << r.most_iterations
          << std::setw(8) << r.pass << std::setw(6) << r.fail << std::setw(6) << r.skipped << std::setw(7) << r.error
          << verdict << '\n';
    }
    return out.str();
  }

 private:
  json envelope(const ScatteredCase& c) const {
    const SolverInfo* info = find_solver(c.solver);
    json rec = {{"system", "scattered"},
                {"operation", "scattered_reconstruction"},
                {"case_id", c.case_id()},
                {"impl", c.solver},
                {"solver", c.solver},
                {"device", info ? info->device : "cpu"},
                {"sweep", c.sweep},
                {"dims", c.grid.dims},
                {"shape", c.grid.extents()},
                {"mode", std::string(to_string(c.mode))},
                {"data", c.data_label},
                {"selection", c.selection},
                {"fraction", c.fraction},
                {"lambda", c.lambda},
                {"threads", c.params.threads},
                {"seed_iterations", c.params.seed_iterations},
                {"tolerance", c.params.tolerance},
                {"repetitions", plan_.repetitions},
                {"warmups", plan_.warmups},
                {"status", "ok"},
                {"message", ""},
                {"phases", json::object()},
                {"verdict", "n/a"}};
    if (!c.blocks.empty()) {
      rec["blocks"] = c.blocks;
      rec["block_padding"] = c.params.block_padding;
    }
    if (info)
      rec["stated_tolerance"] = {{"rms_g_rel_diff", info->rms_g_tolerance}, {"basis", info->tolerance_basis}};
    return rec;
  }

  Saver saver_for(const ScatteredCase& c) const {
    Saver s;
    if (!c.params.save_coefficients || run_dir_.empty()) return s;
    s.root = run_dir_ / "arrays";
    s.folder = c.data_label + "-" + c.grid.to_string();
    s.shape = c.grid.extents();
    fs::create_directories(s.root / s.folder);
    return s;
  }

  ProblemState& problem_for(const ScatteredCase& c) {
    if (state_ && state_->key == c.problem_key()) return *state_;
    state_.reset();
    auto s = std::make_unique<ProblemState>();
    s->key = c.problem_key();
    s->data = load_data(c);
    if (static_cast<std::int64_t>(s->data.size()) != c.grid.points())
      fail(c.data + ": " + std::to_string(s->data.size()) + " values for the grid " + c.grid.to_string());
    for (std::size_t k = 0; k < s->data.size(); ++k)
      if (!std::isfinite(s->data[k])) {
        std::ostringstream m;
        m << c.data << ": value " << s->data[k] << " at flat index " << k << " is not finite";
        fail(m.str());
      }
    s->nodes = c.selection == "laplace" ? select_top_laplacian(c.grid, c.mode, s->data, c.fraction)
                                        : select_random(c.grid, c.fraction, 2024);
    s->problem = problem_from_nodes(c.grid, c.mode, s->data, s->nodes, c.lambda);
    s->problem.validate();
    // Max_value: the largest sample value (the seed's appendix); the data's own maximum
    // when the samples have no positive value.
    s->max_value = *std::max_element(s->problem.values.begin(), s->problem.values.end());
    s->max_basis = "max of the sample values";
    if (!(s->max_value > 0)) {
      s->max_value = 0;
      for (double v : s->data) s->max_value = std::max(s->max_value, std::abs(v));
      s->max_basis = "max |f| over the data (the samples have no positive value)";
    }
    if (!(s->max_value > 0)) {
      s->max_value = 1;
      s->max_basis = "1 (every value is 0)";
    }
    std::ostringstream tag;
    tag << "f" << c.fraction << "_lambda" << c.lambda;
    s->tag = tag.str();
    if (c.params.cpu_system) {
      // The CPU's assembly, timed per phase.
      std::vector<double> t_pattern, t_samples, t_r;
      for (int r = 0; r < plan_.warmups + plan_.repetitions; ++r) {
        const auto t0 = Clock::now();
        s->eq.matrix = pattern_matrix(c.grid, c.mode);
        s->eq.rhs = Vector::Zero(s->eq.matrix.rows());
        const auto t1 = Clock::now();
        add_samples(s->problem, s->eq.matrix, s->eq.rhs);
        const auto t2 = Clock::now();
        if (c.lambda > 0) add_thin_plate(c.grid, c.mode, c.lambda, s->eq.matrix);
        const auto t3 = Clock::now();
        if (r < plan_.warmups) continue;
        t_pattern.push_back(seconds(t0, t1));
        t_samples.push_back(seconds(t1, t2));
        t_r.push_back(seconds(t2, t3));
      }
      s->assembly_phases = {{"assemble_pattern", stats_json(t_pattern)},
                            {"assemble_FtF_Ftf", stats_json(t_samples)},
                            {"add_R", stats_json(t_r)}};
      ReferenceOptions ro;
      ro.direct_max_unknowns = c.params.oracle_direct_max;
      const auto t0 = Clock::now();
      s->ref = solve_reference(s->eq, c.grid, c.mode, ro);
      s->ref_seconds = seconds(t0, Clock::now());
      if (s->ref.coeffs.size())
        s->ref_rms_g = rms_g(grid_values(c.grid, c.mode, to_std(s->ref.coeffs)), s->data, s->max_value);
      // kappa for the bound ||c - c*|| / ||c*|| <= kappa relres (condition.hpp): A^-1 through
      // the same factorisation the oracle uses, so only where it factorises.
      if (c.params.condition_steps > 0 && s->ref.method == "ldlt" && s->ref.coeffs.size()) {
        Eigen::SimplicialLDLT<SparseMatrix> ldlt(s->eq.matrix);
        if (ldlt.info() == Eigen::Success) {
          const ConditionEstimate ce = estimate_condition(
              s->eq.matrix, [&](const Vector& b, Vector& x) { x = ldlt.solve(b); }, c.params.condition_steps);
          s->kappa = ce.kappa();
          s->condition = {{"lambda_max", ce.lambda_max}, {"lambda_min", ce.lambda_min},
                          {"kappa", finite_or_null(s->kappa)}, {"lanczos_steps", c.params.condition_steps},
                          {"basis", "Lanczos Ritz values (inside the spectrum: kappa not over-estimated)"}};
        }
      }
    }
    const Saver saver = saver_for(c);
    if (!saver.root.empty()) {
      s->saved_inputs["original"] = saver.write_original(s->data);
      s->saved_inputs["mask"] = saver.write_mask(s->tag, c.grid.points(), s->nodes);
    }
    state_ = std::move(s);
    return *state_;
  }

  void add_problem_fields(const ProblemState& s, json& rec) const {
    rec["samples"] = s.problem.samples();
    rec["max_value"] = s.max_value;
    rec["max_value_basis"] = s.max_basis;
  }

  void oracle_record(const ScatteredCase& c, ProblemState& s, json& rec) {
    add_problem_fields(s, rec);
    rec["solver"] = s.ref.method;
    rec["solve_status"] = std::string(to_string(s.ref.report.status));
    rec["relres"] = finite_or_null(s.ref.report.relres);
    rec["pivot_ratio"] = s.ref.pivot_ratio;
    rec["iterations"] = s.ref.report.iterations;
    rec["phases"] = s.assembly_phases;
    rec["phases"]["solve"] = stats_json(std::vector<double>{s.ref_seconds});
    rec["tolerance"] = {{"relres", 1e-10},
                        {"basis", "the oracle: f64 LDL^T (relres at rounding) or f64 PCG to relres 1e-12"}};
    if (s.ref.coeffs.size()) {
      rec["rms_g"] = finite_or_null(s.ref_rms_g);
      rec["rms_samples"] = finite_or_null(rms_at_samples(s.problem, to_std(s.ref.coeffs)));
    }
    if (!s.condition.is_null()) rec["condition_estimate"] = s.condition;
    const Saver saver = saver_for(c);
    if (!saver.root.empty()) {
      rec["saved"] = s.saved_inputs;
      if (s.ref.coeffs.size())
        rec["saved"].update(saver.write_solution(s.tag, "reference", to_std(s.ref.coeffs),
                                                 grid_values(c.grid, c.mode, to_std(s.ref.coeffs))));
    }
    const bool ok = s.ref.report.status == SolveStatus::converged && std::isfinite(s.ref.report.relres) &&
                    s.ref.report.relres <= 1e-10;
    rec["message"] = s.ref.report.message;
    if (s.ref.report.status == SolveStatus::singular) {
      rec["status"] = "error";
      rec["message"] = "the oracle found the system singular: " + s.ref.report.message;
      return;
    }
    rec["verdict"] = ok ? "pass" : "fail";
    if (!ok) {
      std::ostringstream m;
      m << "oracle " << to_string(s.ref.report.status) << " at relres " << s.ref.report.relres << " (> 1e-10)";
      rec["message"] = m.str();
    }
  }

  // The verdict of a whole-grid solve against the oracle (or, without one, its own
  // residual) within the solver's stated tolerance.
  void judge(const ScatteredCase& c, const SolverInfo& info, const ProblemState& s, json& rec) const {
    const std::string status = rec.value("solve_status", "");
    const double relres = rec["relres"].is_number() ? rec["relres"].get<double>() : NAN;
    const double r = rec["rms_g"].is_number() ? rec["rms_g"].get<double>() : NAN;
    std::ostringstream why;
    bool pass = false;
    if (std::isfinite(s.ref_rms_g) && s.ref_rms_g > 0 && std::isfinite(r))
      rec["rms_g_rel_diff"] = std::abs(r - s.ref_rms_g) / s.ref_rms_g;  // recorded however the run stopped
    if (status == "converged") {
      if (std::isfinite(s.ref_rms_g) && s.ref_rms_g > 0) {
        // The stated tolerance holds at relres 1e-8; the distance to the solution, and so to
        // the oracle's RMS_g, grows with the relres a suite stops at.
        const double tol = info.rms_g_tolerance * std::max(1.0, c.params.tolerance / 1e-8);
        const double d = std::abs(r - s.ref_rms_g) / s.ref_rms_g;
        rec["rms_g_rel_diff"] = finite_or_null(d);
        pass = std::isfinite(d) && d <= tol;
        if (!pass) why << "RMS_g " << r << " vs the oracle's " << s.ref_rms_g << ": relative difference " << d
                       << " > " << tol;
        rec["tolerance"] = {{"rms_g_rel_diff", tol},
                            {"basis", info.tolerance_basis + " (stated at relres 1e-8, scaled by tolerance / 1e-8 "
                                                             "above it)"}};
      } else {
        // Without an oracle the relres is the true residual measured with the solver's own
        // operator. An f32 operator evaluates each row's 7^d products with rounding of about
        // sqrt(7^d) u32 relative to ||b|| (independent roundings add in quadrature), so a
        // relres below that floor cannot be told from zero: the verdict takes the larger.
        const bool f32_operator = rec.value("relres_basis", "") == "operator_f32_f64_norms";
        const double floor = f32_operator ? std::sqrt(std::pow(7.0, c.grid.dims)) * 0x1p-24 : 0.0;
        const double tol = std::max(c.params.tolerance, floor);
        pass = std::isfinite(relres) && relres <= tol * 1.0001;
        if (!pass) why << "converged but relres " << relres << " > " << tol;
        std::string basis = "no oracle (cpu_system false): the solver's own relres against the tolerance";
        if (f32_operator)
          basis += ", or the f32 operator's evaluation floor sqrt(7^d) x 2^-24 where that is larger";
        rec["tolerance"] = {{"relres", tol}, {"basis", basis}};
        if (f32_operator) rec["relres_floor"] = floor;
      }
    } else if (status == "max_iterations" && info.judged_at_budget()) {
      // A stationary solver that stops at its budget, or the seed's fixed-schedule
      // multigrid, is judged for progress, not accuracy.
      pass = std::isfinite(relres) && relres < 1 && std::isfinite(r);
      rec["tolerance"] = {{"relres_below", 1},
                          {"basis", "a stationary solver at its budget or a fixed-schedule multigrid: checked for "
                                    "progress only"}};
      if (!pass) why << "stopped at its budget without progress (relres " << relres << ")";
      else why << "stopped at its budget (" << rec.value("iterations", 0) << " iterations) at relres " << relres
               << ": checked for progress, not accuracy";
    } else {
      why << "did not converge: " << status << " after " << rec.value("iterations", 0) << " iterations, relres "
          << relres;
      rec["tolerance"] = {{"rms_g_rel_diff", info.rms_g_tolerance}, {"basis", info.tolerance_basis}};
    }
    rec["verdict"] = pass ? "pass" : "fail";
    const std::string m = rec.value("message", std::string());
    if (!why.str().empty()) rec["message"] = m.empty() ? why.str() : why.str() + "; " + m;
  }

  void solver_record(const ScatteredCase& c, const SolverInfo& info, ProblemState& s, json& rec) {
    add_problem_fields(s, rec);
    const SeedMultigrid mg = seed_multigrid(c.params);
    const Field field{c.grid, c.mode, &s.data, s.max_value};
    IterationControl control;
    control.tolerance = c.params.tolerance;
    control.max_iterations = iteration_budget(c.params, info);
    json rms_at = json::object();
    json at_seed = nullptr;
    control.observer = [&](int it, const Vector& x) {
      if (!checkpoint(it, c.params.seed_iterations)) return;
      const double r = field.rms(x);
      rms_at[std::to_string(it)] = finite_or_null(r);
      if (it == c.params.seed_iterations)
        at_seed = {{"iterations", it}, {"rms_g", finite_or_null(r)},
                   {"relres", s.eq.matrix.rows() ? finite_or_null(relative_residual(s.eq.matrix, s.eq.rhs, x))
                                                 : json(nullptr)}};
    };
    // Prepared once for the case (layout, levels, colouring, device buffers: what does not
    // depend on the budget); the observed run and every timed repetition solve on it.
    const auto t_prepare = Clock::now();
    const std::unique_ptr<PreparedSolver> solver = prepare_solver(c.solver, SolverInput::of(s.problem, s.eq, mg));
    const double setup_wall = seconds(t_prepare, Clock::now());
    NamedSolve run = solver->solve(control);
    rec["assembly"] = run.assembly;
    rec["relres_basis"] = s.eq.matrix.rows() > 0 || run.assembly == "cpu" ? "cpu_f64" : "operator_f32_f64_norms";
    if (info.family == "multigrid" && info.fixed_schedule) rec["mg"] = mg_json(mg);
    rec["solve_status"] = std::string(to_string(run.report.status));
    rec["message"] = run.report.message;
    rec["iterations"] = run.report.iterations;
    rec["max_iterations"] = control.max_iterations;
    rec["relres"] = finite_or_null(run.report.relres);
    rec["relres_history"] = run.report.history;
    const double r = field.rms(run.x);
    rec["rms_g"] = finite_or_null(r);
    const Saver saver = saver_for(c);
    if (!saver.root.empty() && run.x.allFinite())
      rec["saved"] = saver.write_solution(s.tag, c.solver, to_std(run.x), grid_values(c.grid, c.mode, to_std(run.x)));
    rec["rms_g_at_iteration"] = rms_at;
    rec["rms_samples"] = finite_or_null(rms_at_samples(s.problem, to_std(run.x)));
    if (s.ref.coeffs.size()) rec["coeff_rel_err"] = finite_or_null((run.x - s.ref.coeffs).norm() / s.ref.coeffs.norm());
    if (s.kappa > 0 && rec["relres"].is_number()) {
      rec["coeff_err_bound"] = finite_or_null(s.kappa * rec["relres"].get<double>());
      rec["coeff_err_bound_basis"] = "kappa estimate of the oracle record x relres (f64, the CPU's matrix)";
    }
    if (s.ref.report.status == SolveStatus::singular) rec["system_singular"] = true;

    // Timed runs without observers: the seed's fixed count, then to the tolerance. The
    // multigrid-preconditioned CGs iterate V-cycles, converged within a few tens, so a run
    // of the seed's count would time nothing a table shows: they are timed to the
    // tolerance only.
    std::vector<double> fixed, converge, whole, device_seed, device_total;
    std::map<std::string, std::vector<double>> device;
    IterationControl fixed_control;
    fixed_control.max_iterations = c.params.seed_iterations;
    fixed_control.verify_relres = false;
    IterationControl tol_control;
    tol_control.tolerance = c.params.tolerance;
    tol_control.max_iterations = control.max_iterations;
    tol_control.verify_relres = false;
    const bool seed_count = c.params.seed_iterations > 0 && !(info.family == "multigrid" && !info.fixed_schedule);
    // The preparation's device phases (sort, F^T f, levels) of each repetition's fresh
    // preparation: the first one, above, also pays for first launches and an empty pool.
    std::map<std::string, std::vector<double>> setup_device;
    for (int k = 0; k < plan_.warmups + plan_.repetitions; ++k) {
      auto t0 = Clock::now();
      std::optional<NamedSolve> a;
      if (seed_count) a = solver->solve(fixed_control);
      const double t_fixed = seconds(t0, Clock::now());
      if (a && at_seed.is_null() && a->report.iterations == c.params.seed_iterations) {
        // The timed run skipped the f64 check; it is made here, outside its time.
        const double relres = s.eq.matrix.rows() ? relative_residual(s.eq.matrix, s.eq.rhs, a->x) : a->report.relres;
        at_seed = {{"iterations", c.params.seed_iterations}, {"rms_g", finite_or_null(field.rms(a->x))},
                   {"relres", finite_or_null(relres)}};
      }
      t0 = Clock::now();
      const NamedSolve cv = solver->solve(tol_control);
      const double t_conv = seconds(t0, Clock::now());
      // What a user with one problem waits for: a fresh preparation (uploads, sorts,
      // levels, factors) and the solve to the tolerance, readback included.
      PhaseTimes fresh_setup;
      t0 = Clock::now();
      {
        const std::unique_ptr<PreparedSolver> fresh = prepare_solver(c.solver, SolverInput::of(s.problem, s.eq, mg));
        fresh->solve(tol_control);
        fresh_setup = fresh->setup_phases;
      }
      const double t_whole = seconds(t0, Clock::now());
      if (k < plan_.warmups) continue;
      whole.push_back(t_whole);
      if (a) fixed.push_back(t_fixed);
      converge.push_back(t_conv);
      for (const auto& [name, v] : fresh_setup.entries()) setup_device[name].push_back(v);
      // The device's time of one solve from the samples: this repetition's preparation
      // with the solve's, as a single solve would.
      if (!cv.phases.entries().empty()) {
        for (const auto& [name, v] : cv.phases.entries()) device[name].push_back(v);
        if (a) device_seed.push_back(device_assemble_solve(fresh_setup) + device_assemble_solve(a->phases));
        device_total.push_back(device_assemble_solve(fresh_setup) + device_assemble_solve(cv.phases));
      }
    }
    rec["at_seed_iterations"] = at_seed;
    json& phases = rec["phases"];
    phases["solve_wall"] = stats_json(converge);
    // The headline: the CPU's assembly (for the solvers that take its system) and a fresh
    // preparation + solve, per repetition; the device's own time is device_assemble_solve.
    {
      std::vector<double> run_wall = whole;
      if (run.assembly == "cpu") {
        const json with_assembly = {{"phases", s.assembly_phases}};
        const double cpu_assembly = median_phase(with_assembly, "assemble_pattern") +
                                    median_phase(with_assembly, "assemble_FtF_Ftf") +
                                    median_phase(with_assembly, "add_R");
        for (double& t : run_wall) t += cpu_assembly;
      }
      phases["whole_run"] = stats_json(run_wall);
    }
    phases["solver_setup"] = stats_json(std::vector<double>{setup_wall});
    if (!fixed.empty()) phases["solve_seed_iterations"] = stats_json(fixed);
    phases["solve"] = stats_json(converge);
    for (const auto& [name, v] : device) phases[name] = stats_json(v);
    for (const auto& [name, v] : setup_device) phases[name] = stats_json(v);
    if (setup_device.empty())
      for (const auto& [name, v] : solver->setup_phases.entries()) phases[name] = stats_json(std::vector<double>{v});
    if (!device_seed.empty()) phases["device_seed_iterations"] = stats_json(device_seed);
    if (!device_total.empty()) phases["device_assemble_solve"] = stats_json(device_total);
    if (run.assembly == "cpu")
      for (auto& [name, v] : s.assembly_phases.items()) phases[name] = v;
    judge(c, info, s, rec);

    ProblemState::Unblocked& u = s.unblocked[c.solver];
    u.ok = true;
    u.rms_g = r;
    u.coeffs = run.x;
    u.seconds = info.runs_without_cpu_system
                    ? median_phase(rec, "whole_run")
                    : median_phase(rec, "assemble_pattern") + median_phase(rec, "assemble_FtF_Ftf") +
                          median_phase(rec, "add_R") + median_phase(rec, "solve_wall");
  }

  void blocked_record(const ScatteredCase& c, const SolverInfo& info, ProblemState& s, json& rec) {
    add_problem_fields(s, rec);
    // The same solver's whole-grid run of this problem (this run's, or redone when it
    // was finished before a resume).
    if (!s.unblocked.count(c.solver)) {
      ScatteredCase whole = c;
      whole.blocks.clear();
      json ignored = envelope(whole);
      solver_record(whole, info, s, ignored);
    }
    const ProblemState::Unblocked& unblocked = s.unblocked.at(c.solver);
    const SeedMultigrid mg = seed_multigrid(c.params);
    const bool on_device = info.runs_without_cpu_system;
    std::string spec_text;
    for (std::size_t i = 0; i < c.blocks.size(); ++i) spec_text += (i ? "x" : "") + std::to_string(c.blocks[i]);
    const BlockSpec spec = parse_block_spec(spec_text, c.grid, c.params.block_padding);
    IterationControl control;
    control.tolerance = c.params.tolerance;
    control.max_iterations = c.params.max_iterations;
    PhaseTimes block_phases;
    std::string assembly = "cpu";
    const BlockSolver cpu_solver = [&](const NormalEquations& eq, const GridShape& box, SolveReport& report) {
      NamedSolve r = solve_named(c.solver, box, c.mode, eq, control, mg);
      report = std::move(r.report);
      return r.x;
    };
    // The device's blocks run at once, one host thread each (solve_blocked): the phases
    // they add are summed under a lock.
    std::mutex block_lock;
    const ProblemBlockSolver device_solver = [&](const Problem& block, SolveReport& report) {
      NamedSolve r = solve_named(c.solver, block, NormalEquations{}, control, mg);
      {
        const std::lock_guard<std::mutex> hold(block_lock);
        for (const auto& [k, v] : r.phases.entries()) block_phases.add(k, v);
        assembly = r.assembly;
      }
      report = std::move(r.report);
      return r.x;
    };
    const int device_concurrency = static_cast<int>(std::min<std::int64_t>(spec.blocks(), kDeviceBlocksAtOnce));
    std::vector<double> wall, device_total;
    std::map<std::string, std::vector<double>> device;
    BlockedSolution sol;
    for (int k = 0; k < plan_.warmups + plan_.repetitions; ++k) {
      block_phases.clear();
      const auto t0 = Clock::now();
      sol = on_device ? solve_blocked(s.problem, spec, device_solver, device_concurrency)
                      : solve_blocked(s.problem, spec, cpu_solver);
      const double t = seconds(t0, Clock::now());
      if (k < plan_.warmups) continue;
      wall.push_back(t);
      if (!on_device) continue;
      for (const auto& [name, v] : block_phases.entries()) device["blocked_" + name].push_back(v);
      device_total.push_back(device_assemble_solve(block_phases));
    }
    rec["assembly"] = assembly;
    rec["solve_status"] = std::string(to_string(sol.status));
    rec["message"] = sol.message;
    rec["iterations"] = sol.max_iterations;
    json block_iterations = json::array();
    for (const SolveReport& b : sol.reports) block_iterations.push_back(b.iterations);
    rec["block_iterations"] = block_iterations;
    rec["largest_block_points"] = sol.max_box_points;
    const std::vector<double> s_b = grid_values(c.grid, c.mode, to_std(sol.coeffs));
    const double r = rms_g(s_b, s.data, s.max_value);
    rec["rms_g"] = finite_or_null(r);
    // A fixed schedule stops short of the solution, so its blocks are set beside its own
    // whole-grid run; a converged solver's beside the oracle.
    const bool against_oracle = !on_device && !info.fixed_schedule && std::isfinite(s.ref_rms_g);
    const double base_rms = against_oracle ? s.ref_rms_g : unblocked.rms_g;
    rec["unblocked_rms_g"] = finite_or_null(base_rms);
    const double change = base_rms > 0 ? (r - base_rms) / base_rms : NAN;
    rec["rms_g_change"] = finite_or_null(change);
    rec["rms_g_change_basis"] = against_oracle ? "the oracle's unblocked RMS_g (f64); max_abs_ds against its coefficients"
                                               : "the same solver's unblocked RMS_g; max_abs_ds against its coefficients";
    rec["rms_samples"] = finite_or_null(rms_at_samples(s.problem, to_std(sol.coeffs)));
    if (s.ref.coeffs.size()) rec["coeff_rel_err"] = finite_or_null((sol.coeffs - s.ref.coeffs).norm() / s.ref.coeffs.norm());
    const Vector& base_coeffs = against_oracle ? s.ref.coeffs : unblocked.coeffs;
    if (base_coeffs.size() == sol.coeffs.size()) {
      const std::vector<double> s_u = grid_values(c.grid, c.mode, to_std(base_coeffs));
      double seam = 0;
      for (std::size_t k = 0; k < s_b.size(); ++k) seam = std::max(seam, std::abs(s_b[k] - s_u[k]));
      rec["max_abs_ds"] = finite_or_null(seam / s.max_value);
    }
    json& phases = rec["phases"];
    phases["blocked_assemble_solve"] = stats_json(wall);
    if (on_device) {
      phases["blocked_device_assemble_solve"] = stats_json(device_total);
      for (const auto& [name, v] : device) phases[name] = stats_json(v);
    }
    const double blocked_seconds = median_phase(rec, "blocked_assemble_solve");
    rec["unblocked_time"] = finite_or_null(unblocked.seconds);
    rec["time_ratio"] = finite_or_null(unblocked.seconds > 0 ? blocked_seconds / unblocked.seconds : NAN);
    rec["time_basis"] = on_device ? "wall time of the blocks' extraction and their whole runs (preparation + solve), "
                                    "up to 8 blocks at once, against the same solver's unblocked whole_run; "
                                    "phases.blocked_device_assemble_solve sums the blocks' device times"
                                  : "wall time of the blocks' extraction, CPU assembly and solve, against the same "
                                    "solver's unblocked CPU assembly + solve_wall";
    if (info.judged_at_budget()) {
      // A fixed schedule (or a stationary budget) per block: judged for progress in every
      // block, as its whole-grid run is; the change of RMS_g is recorded, not judged.
      bool progress = std::isfinite(r);
      for (const SolveReport& b : sol.reports) progress = progress && std::isfinite(b.relres) && b.relres < 1;
      rec["tolerance"] = {{"relres_below", 1},
                          {"basis", "a fixed schedule or stationary budget per block: checked for progress in every "
                                    "block; rms_g_change recorded, not judged"}};
      rec["verdict"] = progress ? "pass" : "fail";
      if (!progress) rec["message"] = "a block made no progress: " + sol.message;
      return;
    }
    // The seed's acceptance of blocks: RMS_g within 1 % of the unblocked solution's.
    const bool converged = sol.status == SolveStatus::converged;
    const bool pass = converged && std::isfinite(change) && std::abs(change) <= 0.01;
    rec["tolerance"] = {{"rms_g_change", 0.01}, {"basis", "the seed's acceptance of blocks: RMS_g within 1 %"}};
    rec["verdict"] = pass ? "pass" : "fail";
    if (!pass) {
      std::ostringstream m;
      if (!converged) m << "a block did not converge: " << sol.message;
      else m << "RMS_g change " << change << " beyond 1 %";
      rec["message"] = m.str();
    }
  }

  struct Field {
    GridShape grid;
    Mode mode;
    const std::vector<double>* data;
    double max_value;
    double rms(const Vector& x) const { return rms_g(grid_values(grid, mode, to_std(x)), *data, max_value); }
  };

  ScatteredPlan plan_;
  std::vector<runner::PlannedCase> cases_;
  std::set<std::size_t> unjudged_;  // oracle cases of problems no solver here runs on
  json options_;
  fs::path run_dir_;
  std::unique_ptr<ProblemState> state_;
};

class ScatteredSystem final : public runner::System {
 public:
  std::string name() const override { return "scattered"; }
  std::string entry_noun() const override { return "solver"; }
  std::string description() const override {
    return "cubic B-spline reconstruction from scattered samples, 1-3-D (seed 003; systems/scattered)";
  }
  json registry() const override {
    json list = json::array();
    list.push_back({{"name", "reference"},
                    {"device", "cpu"},
                    {"available", true},
                    {"reason", ""},
                    {"capabilities", {{"family", "direct"}, {"input", "system"}, {"arithmetic", "f64"},
                                      {"role", "the oracle"}}}});
    for (const auto& s : solver_registry()) {
      const std::string why = solver_unavailable_reason(s);
      list.push_back({{"name", s.name},
                      {"device", s.device},
                      {"available", why.empty()},
                      {"reason", why},
                      {"capabilities",
                       {{"family", s.family},
                        {"input", s.input},
                        {"runs_without_cpu_system", s.runs_without_cpu_system},
                        {"deterministic", s.deterministic},
                        {"fixed_schedule", s.fixed_schedule},
                        {"arithmetic", s.arithmetic},
                        {"dims", {1, 2, 3}},
                        {"rms_g_tolerance", s.rms_g_tolerance}}}});
    }
    return list;
  }
  std::unique_ptr<runner::SystemRun> prepare(const json& suite, const std::string& origin,
                                             const runner::RunRequest& request, const json&) const override {
    ScatteredPlan plan = plan_scattered_suite(suite, origin, request);
    const int reps = plan.repetitions, warm = plan.warmups;
    auto run = std::make_unique<ScatteredRun>(std::move(plan));
    run->set_options(runner::request_options_json(request.only, request.filter, request.threads, reps, warm));
    return run;
  }
};

}  // namespace

runner::SystemPtr make_scattered_system() { return std::make_unique<ScatteredSystem>(); }

}  // namespace splinebench::scattered
