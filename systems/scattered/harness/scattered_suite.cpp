#include "scattered_suite.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "splinebench/datasets.hpp"
#include "splinebench/datasets/real.hpp"
#include "splinebench/error.hpp"
#include "splinebench/io/npy.hpp"
#include "splinebench/runner/suite.hpp"
#include "splinebench/scattered/blocks.hpp"
#include "splinebench/scattered/problem.hpp"
#include "splinebench/scattered/solver_registry.hpp"

namespace splinebench::scattered {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::set<std::string>& sweep_keys() {
  static const std::set<std::string> keys = {
      "name",           "note",        "solvers",    "exclude",         "data",
      "shapes",         "modes",       "selections", "fractions",       "lambdas",
      "tolerance",      "max_iterations", "stationary_max_iterations", "seed_iterations",
      "mg",             "cpu_system",  "oracle_direct_max", "condition_steps", "blocks",
      "block_padding",  "save_coefficients", "threads"};
  return keys;
}

struct Where {
  std::string origin, object;
  std::string at(const std::string& key) const { return origin + ": " + (object.empty() ? "" : object + ".") + key; }
};

void reject_unknown_keys(const json& obj, const std::set<std::string>& known, const Where& w) {
  for (const auto& [key, value] : obj.items())
    if (!known.count(key)) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw Error(w.at(key) + ": unknown key (known: " + list + ")");
    }
}

// An axis: a list, or one bare value.
json as_list(const json& v) { return v.is_array() ? v : json::array({v}); }

double finite_number(const json& v, const Where& w, const std::string& key, double lo, double hi) {
  if (!v.is_number()) throw Error(w.at(key) + ": " + v.dump() + " is not a number");
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < lo || x > hi) {
    std::ostringstream m;
    m << w.at(key) << ": " << v.dump() << " is outside [" << lo << ", " << hi << "]";
    throw Error(m.str());
  }
  return x;
}

int bounded_int(const json& v, const Where& w, const std::string& key, long long lo, long long hi) {
  if (!v.is_number_integer()) throw Error(w.at(key) + ": " + v.dump() + " is not an integer");
  const long long x = v.get<long long>();
  if (x < lo || x > hi)
    throw Error(w.at(key) + ": " + v.dump() + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return static_cast<int>(x);
}

std::string text(const json& v, const Where& w, const std::string& key) {
  if (!v.is_string()) throw Error(w.at(key) + ": " + v.dump() + " is not a string");
  return v.get<std::string>();
}

bool boolean(const json& v, const Where& w, const std::string& key) {
  if (!v.is_boolean()) throw Error(w.at(key) + ": " + v.dump() + " is not true or false");
  return v.get<bool>();
}

// The solvers a sweep names: names, "all", "cpu", "gpu", or a family
// ("stationary", "krylov", "multigrid"), in registry order; "reference" (the oracle's
// record) is added per problem by the planner, not selected here.
std::vector<std::string> select_solvers(const json& names, const json& exclude, const Where& w) {
  std::set<std::string> wanted;
  for (const auto& n : as_list(names)) {
    const std::string s = text(n, w, "solvers");
    bool matched = false;
    for (const auto& info : solver_registry())
      if (s == info.name || (info.name.rfind("test_", 0) != 0 && (s == "all" || s == info.device || s == info.family))) {
        wanted.insert(info.name);
        matched = true;
      }
    if (!matched && s != "reference") {
      std::string list;
      for (const auto& info : solver_registry()) list += " " + info.name;
      throw Error(w.at("solvers") + ": unknown solver or selector '" + s +
                  "' (selectors: all, cpu, gpu, stationary, krylov, multigrid; solvers:" + list + ")");
    }
  }
  for (const auto& n : as_list(exclude)) {
    const std::string s = text(n, w, "exclude");
    if (!find_solver(s)) throw Error(w.at("exclude") + ": unknown solver '" + s + "'");
    wanted.erase(s);
  }
  std::vector<std::string> out;
  for (const auto& info : solver_registry())
    if (wanted.count(info.name)) out.push_back(info.name);
  return out;
}

struct DataChoice {
  std::string name, label, path;
  std::optional<GridShape> grid;  // real and file data: their own
};

// Checks a data name and, for real and file data, reads their grid (a real dataset
// missing from the cache is reported by DatasetUnavailable, which drops its cases).
DataChoice resolve_data(const std::string& name, const fs::path& suite_dir, const Where& w) {
  DataChoice d{name, name, "", std::nullopt};
  if (name.rfind("file:", 0) == 0) {
    fs::path p = name.substr(5);
    if (p.empty()) throw Error(w.at("data") + ": 'file:' wants a path to a .npy array");
    if (p.is_relative()) p = suite_dir / p;
    d.path = p.string();
    d.label = p.stem().string();
    const npy::ArrayInfo info = npy::read_info(p);
    d.grid = GridShape::make(info.shape);
    return d;
  }
  if (datasets::find_real_dataset(name)) {
    const datasets::RealDatasetInfo info = datasets::real_dataset_info(name);
    if (info.channels != 1) throw Error(w.at("data") + ": '" + name + "' has " + std::to_string(info.channels) +
                                        " channels; reconstruction takes one");
    d.grid = GridShape::make(info.grid);
    return d;
  }
  try {
    (void)datasets::parse_field_kind(name);
  } catch (const Error&) {
    throw Error(w.at("data") + ": '" + name +
                "' is neither a synthetic kind (smooth, noise), a real dataset (datasets/README.md) nor file:<path>.npy");
  }
  return d;
}

std::vector<std::int64_t> extents(const json& shape, const Where& w) {
  if (!shape.is_array() || shape.empty() || shape.size() > static_cast<std::size_t>(kMaxReconstructionDims))
    throw Error(w.at("shapes") + ": " + shape.dump() + " is not a list of 1 to 3 extents");
  std::vector<std::int64_t> e;
  for (const auto& v : shape) e.push_back(runner::parse_count(v, w.at("shapes")));
  for (auto x : e)
    if (x < 2) throw Error(w.at("shapes") + ": " + shape.dump() + " has an extent below 2");
  return e;
}

json merged(const json& defaults, const json& sweep) {
  json m = defaults.is_object() ? defaults : json::object();
  for (const auto& [k, v] : sweep.items()) m[k] = v;
  return m;
}

}  // namespace

std::string ScatteredCase::problem_id() const {
  std::ostringstream id;
  id << "scattered/" << data_label << "/" << grid.to_string() << "/" << to_string(mode) << "/" << selection
     << fraction << "/lambda" << lambda;
  if (!params.mg.empty()) {
    id << "/mg";
    for (std::size_t i = 0; i < params.mg.size(); ++i) id << (i ? "-" : "") << params.mg[i];
  }
  return id.str();
}

std::string ScatteredCase::case_id() const {
  std::string id = problem_id() + "/" + solver;
  if (!blocks.empty()) {
    id += "/blocks";
    for (std::size_t i = 0; i < blocks.size(); ++i) id += (i ? "x" : "") + std::to_string(blocks[i]);
  }
  return id;
}

std::string ScatteredCase::problem_key() const {
  return problem_id() + (params.cpu_system ? "/system" : "/no-system") + "/direct" +
         std::to_string(params.oracle_direct_max) + "/cond" + std::to_string(params.condition_steps) + "/" + data_path;
}

ScatteredPlan plan_scattered_suite(const json& doc, const std::string& origin, const runner::RunRequest& request) {
  Where top{origin, ""};
  if (!doc.is_object()) throw Error(origin + ": a suite is a JSON object");
  reject_unknown_keys(doc, {"name", "system", "description", "note", "repetitions", "warmups", "defaults", "sweeps"},
                      top);
  ScatteredPlan plan;
  if (!doc.contains("name")) throw Error(top.at("name") + ": missing");
  plan.suite = text(doc["name"], top, "name");
  if (plan.suite.empty() || !std::all_of(plan.suite.begin(), plan.suite.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
      }))
    throw Error(top.at("name") + ": '" + plan.suite + "' must be non-empty letters, digits, '-' or '_'");
  if (doc.value("system", std::string()) != "scattered") throw Error(top.at("system") + ": must be \"scattered\"");
  if (doc.contains("repetitions")) plan.repetitions = bounded_int(doc["repetitions"], top, "repetitions", 1, 1 << 20);
  if (doc.contains("warmups")) plan.warmups = bounded_int(doc["warmups"], top, "warmups", 0, 1 << 20);
  if (request.repetitions) {
    if (*request.repetitions < 1) throw Error("--repetitions must be >= 1");
    plan.repetitions = *request.repetitions;
  }
  if (request.warmups) {
    if (*request.warmups < 0) throw Error("--warmups must be >= 0");
    plan.warmups = *request.warmups;
  }
  if (request.threads && (*request.threads < 1 || *request.threads > runner::max_threads()))
    throw Error("--threads must be in [1, " + std::to_string(runner::max_threads()) + "], got " +
                std::to_string(*request.threads));
  const json defaults = doc.value("defaults", json::object());
  if (!defaults.is_object()) throw Error(top.at("defaults") + ": must be an object");
  reject_unknown_keys(defaults, sweep_keys(), Where{origin, "defaults"});
  if (!doc.contains("sweeps") || !doc["sweeps"].is_array() || doc["sweeps"].empty())
    throw Error(top.at("sweeps") + ": a non-empty list of sweeps is required");

  for (const auto& o : request.only)
    if (o != "reference" && !find_solver(o)) {
      std::string list = " reference";
      for (const auto& info : solver_registry()) list += " " + info.name;
      throw Error("--impl: unknown solver '" + o + "' (solvers:" + list + ")");
    }
  const auto wanted = [&](const std::string& name) {
    return request.only.empty() || std::find(request.only.begin(), request.only.end(), name) != request.only.end();
  };
  const runner::CaseFilter filter(request.filter);
  const fs::path suite_dir = fs::path(origin).parent_path();
  std::map<std::string, std::size_t> seen;  // case_id -> index in plan.cases
  std::set<std::string> sweep_names;

  for (std::size_t si = 0; si < doc["sweeps"].size(); ++si) {
    const json& raw = doc["sweeps"][si];
    Where w{origin, "sweeps[" + std::to_string(si) + "]"};
    if (!raw.is_object()) throw Error(w.at("") + " is not an object");
    reject_unknown_keys(raw, sweep_keys(), w);
    const json s = merged(defaults, raw);
    if (!raw.contains("name")) throw Error(w.at("name") + ": missing");
    const std::string sweep = text(raw["name"], w, "name");
    if (!sweep_names.insert(sweep).second) throw Error(w.at("name") + ": '" + sweep + "' is used twice");
    w.object = "sweeps[" + sweep + "]";
    if (!s.contains("solvers")) throw Error(w.at("solvers") + ": missing");
    if (!s.contains("data")) throw Error(w.at("data") + ": missing");
    const std::vector<std::string> solvers = select_solvers(s["solvers"], s.value("exclude", json::array()), w);

    CaseParameters p;
    if (s.contains("tolerance")) p.tolerance = finite_number(s["tolerance"], w, "tolerance", 0, 1);
    if (s.contains("max_iterations")) p.max_iterations = bounded_int(s["max_iterations"], w, "max_iterations", 1, 10000000);
    if (s.contains("stationary_max_iterations"))
      p.stationary_max_iterations =
          bounded_int(s["stationary_max_iterations"], w, "stationary_max_iterations", 0, 10000000);
    if (s.contains("seed_iterations")) p.seed_iterations = bounded_int(s["seed_iterations"], w, "seed_iterations", 0, 10000000);
    if (s.contains("mg")) {
      if (!s["mg"].is_array() || s["mg"].size() != 9)
        throw Error(w.at("mg") + ": wants 9 numbers: N N0 N1 N2 M M0 M1 M2 P");
      for (const auto& v : s["mg"]) p.mg.push_back(bounded_int(v, w, "mg", 0, 100000));
    }
    if (s.contains("cpu_system")) p.cpu_system = boolean(s["cpu_system"], w, "cpu_system");
    if (s.contains("oracle_direct_max"))
      p.oracle_direct_max = bounded_int(s["oracle_direct_max"], w, "oracle_direct_max", 0, 2000000000);
    if (s.contains("condition_steps")) p.condition_steps = bounded_int(s["condition_steps"], w, "condition_steps", 0, 10000);
    if (s.contains("block_padding")) p.block_padding = bounded_int(s["block_padding"], w, "block_padding", 0, 1000);
    if (s.contains("save_coefficients")) p.save_coefficients = boolean(s["save_coefficients"], w, "save_coefficients");
    if (s.contains("threads")) {
      const json& t = s["threads"];
      p.threads = t == "max" ? runner::hardware_threads() : bounded_int(t, w, "threads", 1, runner::max_threads());
    }
    if (request.threads) p.threads = *request.threads;

    std::vector<Mode> modes;
    for (const auto& m : as_list(s.value("modes", json::array({"mirror"})))) {
      const auto mode = parse_mode(text(m, w, "modes"));
      if (!mode) throw Error(w.at("modes") + ": unknown mode " + m.dump() + " (mirror, half, periodic)");
      modes.push_back(*mode);
    }
    std::vector<std::string> selections;
    for (const auto& v : as_list(s.value("selections", json::array({"laplace"})))) {
      const std::string sel = text(v, w, "selections");
      if (sel != "laplace" && sel != "random") throw Error(w.at("selections") + ": '" + sel + "' (laplace or random)");
      selections.push_back(sel);
    }
    std::vector<double> fractions, lambdas;
    for (const auto& v : as_list(s.value("fractions", json::array({0.2}))))
      fractions.push_back(finite_number(v, w, "fractions", 1e-9, 1));
    for (const auto& v : as_list(s.value("lambdas", json::array({2.1}))))
      lambdas.push_back(finite_number(v, w, "lambdas", 0, 1e12));
    std::vector<std::string> block_specs;  // checked against each grid below (parse_block_spec)
    for (const auto& v : as_list(s.value("blocks", json::array()))) block_specs.push_back(text(v, w, "blocks"));
    std::vector<std::vector<std::int64_t>> shapes;
    if (s.contains("shapes"))
      for (const auto& sh : as_list(s["shapes"])) shapes.push_back(extents(sh, w));

    const std::size_t first = plan.cases.size();
    for (const auto& dv : as_list(s["data"])) {
      DataChoice data;
      try {
        data = resolve_data(text(dv, w, "data"), suite_dir, w);
      } catch (const datasets::DatasetUnavailable& e) {
        plan.notes.push_back("sweep '" + sweep + "': data '" + dv.get<std::string>() + "' left out: " + e.what());
        continue;
      }
      std::vector<GridShape> grids;
      if (data.grid) {
        if (!shapes.empty())
          throw Error(w.at("shapes") + ": '" + data.name + "' has its own grid " + data.grid->to_string() +
                      "; give shapes only for synthetic data");
        grids.push_back(*data.grid);
      } else {
        if (shapes.empty()) throw Error(w.at("shapes") + ": synthetic data '" + data.name + "' needs shapes");
        for (const auto& e : shapes) grids.push_back(GridShape::make(e));
      }
      for (const GridShape& grid : grids) {
        if (grid.dims > kMaxReconstructionDims || grid.channels != 1)
          throw Error(w.at("data") + ": '" + data.name + "' is " + grid.to_string() +
                      "; reconstruction takes 1-, 2- or 3-D single-channel grids");
        for (Mode mode : modes)
          for (const auto& sel : selections)
            for (double fraction : fractions)
              for (double lambda : lambdas) {
                ScatteredCase base;
                base.sweep = sweep;
                base.data = data.name;
                base.data_label = data.label;
                base.data_path = data.path;
                base.grid = grid;
                base.mode = mode;
                base.selection = sel;
                base.fraction = fraction;
                base.lambda = lambda;
                base.params = p;
                std::vector<std::vector<int>> block_counts;
                for (const auto& spec_text : block_specs) {
                  // A malformed spec, counts that do not fit the grid, a cut periodic axis: refused now.
                  try {
                    const BlockSpec spec = parse_block_spec(spec_text, grid, p.block_padding);
                    make_blocks(grid, mode, spec);
                    block_counts.push_back(spec.counts);
                  } catch (const Error& e) {
                    throw Error(w.at("blocks") + ": " + e.what());
                  }
                }
                std::vector<ScatteredCase> problem_cases;
                if (p.cpu_system) {
                  ScatteredCase ref = base;
                  ref.solver = "reference";
                  problem_cases.push_back(ref);
                }
                for (const auto& solver : solvers) {
                  const SolverInfo& info = *find_solver(solver);
                  if (!p.cpu_system && !info.runs_without_cpu_system) continue;  // needs the CPU's system
                  ScatteredCase c = base;
                  c.solver = solver;
                  problem_cases.push_back(c);
                  // Block by block after the whole grid: the CPU solvers on each block's assembly and the
                  // matrix-free GPU ones from each block's samples.
                  const bool blockable = info.name.rfind("test_", 0) != 0 &&
                                         (info.input == "system" ? !info.on_gpu() : info.runs_without_cpu_system);
                  for (const auto& counts : block_counts) {
                    if (!blockable) continue;
                    ScatteredCase b = c;
                    b.blocks = counts;
                    problem_cases.push_back(b);
                  }
                }
                for (auto& c : problem_cases) {
                  if (!wanted(c.solver)) continue;
                  const std::string id = c.case_id();
                  if (!filter.accepts(id)) continue;
                  if (auto it = seen.find(id); it != seen.end()) {
                    const ScatteredCase& other = plan.cases[it->second];
                    if (other.problem_key() != c.problem_key() || other.params.tolerance != c.params.tolerance ||
                        other.params.max_iterations != c.params.max_iterations)
                      throw Error(w.at("") + " case " + id + " appears again with other parameters (in sweep '" +
                                  other.sweep + "')");
                    continue;
                  }
                  seen[id] = plan.cases.size();
                  plan.cases.push_back(c);
                }
              }
      }
    }
    plan.sweeps.push_back({sweep, first, plan.cases.size() - first});
  }
  if (plan.cases.empty())
    throw runner::NoCases(origin + ": no case to run (check --impl, --filter and the sweeps' data)");
  return plan;
}

}  // namespace splinebench::scattered
