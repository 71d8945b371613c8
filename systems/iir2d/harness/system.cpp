// The iir2d system: a suite's sweeps expanded into cases (shape x M x family x scheme,
// the scheme innermost so the f64 oracle runs once per input), each case timed on the
// device and checked against the oracle within its scheme's stated bound
// (schemes.def), plus the empty launch chains (the launch_floor entry).
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <new>
#include <optional>
#include <random>
#include <set>
#include <sstream>

#include "splinebench/error.hpp"
#include "splinebench/iir2d/accuracy.hpp"
#include "splinebench/iir2d/coefficients.hpp"
#include "splinebench/iir2d/gpu.hpp"
#include "splinebench/iir2d/harness.hpp"
#include "splinebench/iir2d/reference.hpp"
#include "splinebench/runner/stats.hpp"
#include "suite.hpp"

namespace splinebench::iir2d {
namespace {

using nlohmann::json;
using runner::PlannedCase;
using runner::PlannedSweep;
using runner::SkipKind;

std::string shape_text(const Shape& s) { return std::to_string(s.rows) + "x" + std::to_string(s.cols); }

json num_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

// One case: a scheme on an input, or an empty launch chain on a shape.
struct CaseDef {
  bool floor = false;  // launch_floor: an empty launch chain, not a scheme
  Scheme scheme{};     // scheme cases
  bool graph = false;  // launch_floor cases: the chain as one CUDA Graph
  std::string sweep;
  Shape shape;
  int M = 0;                   // 0 for launch_floor cases
  std::string family = "none";

  std::string record_scheme() const {  // the record's "scheme" (reports/iir2d.py reads it)
    if (floor) return graph ? "empty_chain_graph" : "empty_chain";
    return scheme_name(scheme);
  }
  std::string entry() const { return floor ? kLaunchFloor : scheme_name(scheme); }
  std::string id() const {
    return "iir2d/" + record_scheme() + "/" + shape_text(shape) + "/M" + std::to_string(M) + "/" + family + "/++";
  }
  std::int64_t launches() const { return shape.rows + shape.cols - 1; }
};

// Host bytes of a scheme case at its peak: x (float), the read-back y (float) and the
// f64 oracle. A launch_floor case holds no image on the host.
std::uint64_t host_bytes(const CaseDef& c) {
  if (c.floor) return 0;
  return static_cast<std::uint64_t>(c.shape.pixels()) * (sizeof(float) * 2 + sizeof(double));
}

// Rough cost for ETAs: the window sums of every run; a launch of the chain counts as
// the work of about 10^4 window terms.
double work_of(const CaseDef& c, int runs) {
  if (c.floor) return static_cast<double>(c.launches()) * 1e4 * runs;
  return static_cast<double>(c.shape.pixels()) * std::max(1, c.M * c.M - 1) * runs;
}

std::vector<float> noise(const Shape& s, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::vector<float> x(static_cast<std::size_t>(s.pixels()));
  for (auto& v : x) v = u(rng);
  return x;
}

std::string floor_capability() {
  return "H + W - 1 launches of an empty 32-thread kernel with the fixed scheme's grid sizes, as launches "
         "(empty_chain) and as one CUDA Graph (empty_chain_graph): the fixed scheme's floor";
}

json scheme_capabilities(const SchemeInfo& i) {
  const Tolerance example = i.tolerance(31, 0.9);
  json c = {{"launch_model", i.launch_model},
            {"deterministic", i.deterministic},
            {"any_M", i.any_m},
            {"M", {1, kMaxWindow}},
            {"shapes", i.shapes},
            {"quadrant", "++"},
            {"tolerance_basis", example.basis},
            {"tolerance_at_M31_g0.9", example.max_rel}};
  if (i.tile) c["tile"] = i.tile;
  return c;
}

std::vector<std::string> scheme_facts(const SchemeInfo& i) {
  std::vector<std::string> f = {"launch=" + std::string(i.launch_model),
                                std::string("deterministic=") + (i.deterministic ? "yes" : "no")};
  if (i.tile) f.push_back("tile=" + std::to_string(i.tile));
  return f;
}

// The input a scheme case runs on, kept while consecutive cases share it: the noise,
// the window, the oracle, and the device copy (or why the device cannot hold it).
struct Input {
  Shape shape;
  int M = 0;
  std::string family;
  Window window;
  Validation validation;
  std::vector<float> x;
  std::vector<double> ref;
  std::unique_ptr<GpuFilter> gpu;
  std::string unsupported;  // GpuFilter refused the image (device memory)
};

class Iir2dRun final : public runner::SystemRun {
 public:
  Iir2dRun(harness::SuiteSpec suite, const std::string& origin, const runner::RunRequest& request,
           std::uint64_t seed)
      : suite_name_(suite.name), seed_(seed), only_(request.only), filter_(request.filter), threads_(request.threads) {
    if (request.repetitions && *request.repetitions < 1) throw Error("--repetitions must be >= 1");
    if (request.warmups && *request.warmups < 0) throw Error("--warmups must be >= 0");
    repetitions_ = request.repetitions.value_or(suite.repetitions);
    warmups_ = request.warmups.value_or(suite.warmups);
    std::set<std::string> wanted;
    for (const auto& name : only_) {
      if (name != kLaunchFloor) {
        try {
          parse_scheme(name);
        } catch (const Error&) {
          throw Error("--impl: unknown scheme '" + name + "' (schemes: " + scheme_names() + "; " + kLaunchFloor +
                      " for the empty launch chains)");
        }
      }
      wanted.insert(name);
    }
    const runner::CaseFilter filter(filter_);
    if (threads_) notes_.push_back("--threads is ignored: the iir2d schemes take no thread count");
    unavailable_ = gpu_unavailable_reason();

    std::set<std::string> floor_shapes;  // the launch floor runs once per shape in a run
    std::map<std::string, std::string> sweep_of;  // case_id -> sweep, for duplicates
    auto add = [&](const CaseDef& c) {
      if (!wanted.empty() && !wanted.count(c.entry())) return;
      const std::string id = c.id();
      if (!filter.accepts(id)) return;
      if (auto [it, fresh] = sweep_of.emplace(id, c.sweep); !fresh)
        throw Error(origin + ": case " + id + " is in sweeps '" + it->second + "' and '" + c.sweep +
                    "': a case may appear once in a run");
      PlannedCase p;
      p.id = id;
      p.impl = c.entry();
      p.sweep = c.sweep;
      p.work = work_of(c, repetitions_ + warmups_);
      p.host_bytes = host_bytes(c);
      p.will_run = unavailable_.empty();
      planned_.push_back(std::move(p));
      defs_.push_back(c);
    };
    for (const auto& sweep : suite.sweeps) {
      PlannedSweep ps;
      ps.name = sweep.name;
      ps.first_case = planned_.size();
      for (const Shape& shape : sweep.shapes) {
        bool floor_due = sweep.empty_chains && floor_shapes.insert(shape_text(shape)).second;
        for (int M : sweep.Ms)
          for (const std::string& family : sweep.families) {
            for (Scheme s : sweep.schemes) {
              CaseDef c;
              c.scheme = s;
              c.sweep = sweep.name;
              c.shape = shape;
              c.M = M;
              c.family = family;
              add(c);
            }
            // After the first input of the shape, whose device image the chain reuses.
            if (floor_due) {
              floor_due = false;
              for (bool graph : {false, true}) {
                CaseDef c;
                c.floor = true;
                c.graph = graph;
                c.sweep = sweep.name;
                c.shape = shape;
                add(c);
              }
            }
          }
      }
      ps.case_count = planned_.size() - ps.first_case;
      if (ps.case_count == 0) notes_.push_back("sweep '" + sweep.name + "': no case left by --impl / --filter");
      sweeps_.push_back(ps);
    }
    if (planned_.empty()) throw runner::NoCases("nothing to run: --impl and --filter leave no case of suite '" + suite_name_ + "'");
  }

  const std::string& suite() const override { return suite_name_; }
  const std::vector<PlannedCase>& cases() const override { return planned_; }
  const std::vector<PlannedSweep>& sweeps() const override { return sweeps_; }
  const std::vector<std::string>& notes() const override { return notes_; }

  json options() const override {
    json o = runner::request_options_json(only_, filter_, threads_, repetitions_, warmups_);
    o["seed"] = seed_;
    return o;
  }

  json entry_facts() const override {
    json facts = json::object();
    for (const CaseDef& c : defs_) {
      if (facts.contains(c.entry())) continue;
      facts[c.entry()] = c.floor ? json::array({"measures=empty launch chains"}) : json(scheme_facts(scheme_info(c.scheme)));
    }
    return facts;
  }

  json run_case(std::size_t index, SkipKind* kind) override {
    const CaseDef& c = defs_.at(index);
    json r = base_record(c);
    auto skip = [&](SkipKind k, const std::string& why) {
      r["status"] = "skipped";
      r["message"] = why;
      if (kind) *kind = k;
      return r;
    };
    // Nothing is allocated for a case that cannot run here.
    if (!unavailable_.empty()) return skip(SkipKind::unavailable, unavailable_);
    try {
      return c.floor ? run_floor(c, r) : run_scheme(c, r, kind);
    } catch (const Unsupported& e) {
      return skip(SkipKind::thrown, e.what());
    } catch (const Error& e) {
      r["status"] = "error";
      r["message"] = e.what();
    } catch (const std::bad_alloc&) {
      input_.reset();
      r["status"] = "error";
      r["message"] = "out of host memory (std::bad_alloc) for " + shape_text(c.shape);
    }
    return r;
  }

  std::string summary_table(const std::vector<json>& records) const override;

 private:
  json base_record(const CaseDef& c) const {
    json r = {{"operation", "iir2d"},
              {"kind", c.floor ? kLaunchFloor : "scheme"},
              {"case_id", c.id()},
              {"impl", c.entry()},
              {"scheme", c.record_scheme()},
              {"device", "gpu"},
              {"sweep", c.sweep},
              {"dims", 2},
              {"shape", {c.shape.rows, c.shape.cols}},
              {"M", c.M},
              {"family", c.family},
              {"quadrant", "++"},
              {"data", c.floor ? "none" : "noise"},
              {"repetitions", repetitions_},
              {"warmups", warmups_},
              {"status", "ok"},
              {"message", ""},
              {"verdict", "n/a"}};
    if (c.floor) {
      r["launches"] = c.launches();
    } else {
      r["gain"] = make_window(c.family, c.M, seed_).abs_sum();  // M x M floats: no image is made
    }
    return r;
  }

  // The input of `c`, made (noise, oracle, device copy) when it differs from the last.
  Input& input_for(const CaseDef& c) {
    if (input_ && input_->shape == c.shape && input_->M == c.M && input_->family == c.family) return *input_;
    input_.reset();  // the previous input's memory goes before the next one's is taken
    auto in = std::make_unique<Input>();
    in->shape = c.shape;
    in->M = c.M;
    in->family = c.family;
    in->window = make_window(c.family, c.M, seed_);
    in->validation = validate(c.shape, in->window);
    try {
      in->gpu = std::make_unique<GpuFilter>(c.shape, in->window);
    } catch (const Unsupported& e) {
      in->unsupported = e.what();
    }
    if (in->gpu) {
      in->x = noise(c.shape, seed_ ^ static_cast<std::uint64_t>(c.shape.pixels()));
      in->gpu->upload(in->x.data());
      in->ref = filter_f64(c.shape, in->x, in->window);
    }
    input_ = std::move(in);
    return *input_;
  }

  json run_scheme(const CaseDef& c, json& r, SkipKind* kind) {
    Input& in = input_for(c);
    const Validation& v = in.validation;
    if (v.possibly_unstable) r["warnings"] = {v.warning};
    if (!in.gpu) {
      r["status"] = "skipped";
      r["message"] = in.unsupported;
      if (kind) *kind = SkipKind::unsupported_case;
      return r;
    }
    GpuFilter& gpu = *in.gpu;
    for (int k = 0; k < warmups_; ++k) gpu.run(c.scheme);
    std::vector<double> t;
    for (int k = 0; k < repetitions_; ++k) {
      gpu.poison_output();  // an element no block writes cannot pass for a result
      t.push_back(gpu.run(c.scheme));
    }
    std::vector<float> y(in.x.size());
    gpu.download(y.data());
    const Diagnostics d = gpu.diagnostics();
    const runner::SampleStats st = runner::summarize(t);
    r["phases"] = {{"filter", runner::stats_json(st)}};
    const double px = static_cast<double>(c.shape.pixels());
    r["throughput"] = {{"pixels_per_s", px / st.median},
                       {"effective_GFLOPs", 2.0 * (c.M * c.M - 1) * px / st.median * 1e-9}};
    const Accuracy a = compare(y, in.ref);
    const Status out = output_status(y.data(), static_cast<std::int64_t>(y.size()));
    r["accuracy"] = {{"iir2d",
                      {{"max_abs", num_or_null(a.max_abs)},
                       {"max_ref", num_or_null(a.max_ref)},
                       {"max_rel", num_or_null(a.max_rel)},
                       {"unwritten", a.unwritten},
                       {"nonfinite", a.nonfinite},
                       {"output_status", status_name(out)}}}};
    const Tolerance tol = scheme_info(c.scheme).tolerance(c.M, v.gain);
    const bool target_applies = v.gain <= 0.9 + 1e-6 && c.M <= 31;
    r["tolerance"] = {{"iir2d_max_rel", num_or_null(tol.max_rel)},
                      {"target_max_rel", target_applies ? json(kTargetRel) : json(nullptr)},
                      {"basis", tol.basis + "; target: the experiment's acceptance (sum|b| <= 0.9, M <= 31)"}};
    r["meets_target"] = target_applies ? json(std::isfinite(a.max_rel) && a.max_rel <= kTargetRel) : json(nullptr);
    if (d.watchdog_fired) {
      r["status"] = "error";
      r["message"] = "a block gave up waiting (watchdog)";
      r["verdict"] = "fail";
      return r;
    }
    const bool pass = a.unwritten == 0 && std::isfinite(a.max_rel) && a.max_rel <= tol.max_rel;
    r["verdict"] = pass ? "pass" : "fail";
    if (!pass) {
      std::ostringstream m;
      m << "max_rel " << a.max_rel << " vs bound " << tol.max_rel << ", unwritten " << a.unwritten << ", nonfinite "
        << a.nonfinite;
      r["message"] = m.str();
    }
    return r;
  }

  // The chain needs the shape's device image only; the last input's serves when it has
  // the same shape, otherwise one with the M = 1 window is made (no host image).
  json run_floor(const CaseDef& c, json& r) {
    GpuFilter* gpu = input_ && input_->shape == c.shape ? input_->gpu.get() : nullptr;
    std::unique_ptr<GpuFilter> own;
    if (!gpu) {
      if (input_ && input_->shape == c.shape && !input_->unsupported.empty()) throw Unsupported(input_->unsupported);
      input_.reset();
      own = std::make_unique<GpuFilter>(c.shape, gauss_window(1));
      gpu = own.get();
    }
    for (int k = 0; k < warmups_; ++k) gpu->empty_chain(c.graph);
    std::vector<double> t;
    for (int k = 0; k < repetitions_; ++k) t.push_back(gpu->empty_chain(c.graph));
    r["phases"] = {{"filter", runner::stats_json(runner::summarize(t))}};
    r["tolerance"] = {{"iir2d_max_rel", nullptr},
                      {"target_max_rel", nullptr},
                      {"basis", "none: a floor measurement; the chain computes nothing to check"}};
    // A completed chain is the whole result: "pass" (the run loop counts an ok record
    // that does not pass as a failure).
    r["verdict"] = "pass";
    r["message"] = "floor measurement: " + std::to_string(c.launches()) + " empty launches" +
                   (c.graph ? " in one graph" : "") + " ran and completed";
    return r;
  }

  std::string suite_name_;
  std::uint64_t seed_;
  std::vector<std::string> only_;
  std::string filter_;
  std::optional<int> threads_;
  int repetitions_ = 9, warmups_ = 2;
  std::string unavailable_;
  std::vector<CaseDef> defs_;
  std::vector<PlannedCase> planned_;
  std::vector<PlannedSweep> sweeps_;
  std::vector<std::string> notes_;
  std::unique_ptr<Input> input_;
};

std::string Iir2dRun::summary_table(const std::vector<json>& records) const {
  struct Row {
    std::size_t cases = 0, pass = 0, fail = 0, skipped = 0, error = 0;
    double worst = -1;  // -1: none measured
    bool non_finite = false;
    std::int64_t largest = -1;  // pixels of the largest shape timed
    std::string largest_case;
    double median_s = 0;
  };
  std::vector<std::string> order;
  std::map<std::string, Row> rows;
  for (const json& r : records) {
    const std::string entry = r.value("impl", "?");
    if (!rows.count(entry)) order.push_back(entry);
    Row& row = rows[entry];
    ++row.cases;
    const std::string status = r.value("status", "");
    if (status == "skipped") {
      ++row.skipped;
      continue;
    }
    if (status == "error") ++row.error;
    else if (r.value("verdict", "") == "pass") ++row.pass;
    else ++row.fail;
    if (r.contains("accuracy")) {
      const json rel = r["accuracy"]["iir2d"].value("max_rel", json(nullptr));
      if (rel.is_number()) row.worst = std::max(row.worst, rel.get<double>());
      else row.non_finite = true;
    }
    if (r.contains("phases") && r["phases"].contains("filter")) {
      const std::int64_t px = r["shape"][0].get<std::int64_t>() * r["shape"][1].get<std::int64_t>();
      if (px >= row.largest) {  // the largest shape, its last (largest M) case
        row.largest = px;
        row.largest_case = std::to_string(r["shape"][0].get<std::int64_t>()) + "x" +
                           std::to_string(r["shape"][1].get<std::int64_t>()) + " " +
                           (r.contains("launches") ? r.value("scheme", "") : "M" + std::to_string(r.value("M", 0)));
        row.median_s = r["phases"]["filter"]["median"].get<double>();
      }
    }
  }
  int name_width = 14;
  for (const auto& e : order) name_width = std::max(name_width, static_cast<int>(e.size()) + 2);
  std::ostringstream out;
  out << std::left << std::setw(name_width) << "scheme" << std::setw(7) << "cases" << std::setw(6) << "pass"
      << std::setw(6) << "fail" << std::setw(6) << "skip" << std::setw(7) << "error" << std::setw(12) << "max_rel"
      << "median at the largest shape\n";
  for (const auto& e : order) {
    const Row& row = rows[e];
    std::ostringstream worst, timed;
    if (row.non_finite) worst << "non-finite";
    else if (row.worst < 0) worst << "-";
    else worst << std::scientific << std::setprecision(2) << row.worst;
    if (row.largest < 0) timed << "-";
    else timed << std::fixed << std::setprecision(3) << row.median_s * 1e3 << " ms (" << row.largest_case << ")";
    out << std::left << std::setw(name_width) << e << std::setw(7) << row.cases << std::setw(6) << row.pass
        << std::setw(6) << row.fail << std::setw(6) << row.skipped << std::setw(7) << row.error << std::setw(12)
        << worst.str() << timed.str() << '\n';
  }
  return out.str();
}

class Iir2dSystem final : public runner::System {
 public:
  std::string name() const override { return "iir2d"; }
  std::string entry_noun() const override { return "scheme"; }
  std::string description() const override {
    return "seed 004's quadrant 2-D IIR filter on the GPU, fixed vs flexible allocation, swept over the window "
           "size M (systems/iir2d)";
  }

  json registry() const override {
    const std::string why = gpu_unavailable_reason();
    json list = json::array();
    for (const SchemeInfo& i : scheme_registry())
      list.push_back({{"name", i.name},
                      {"device", "gpu"},
                      {"available", why.empty()},
                      {"reason", why},
                      {"capabilities", scheme_capabilities(i)}});
    list.push_back({{"name", kLaunchFloor},
                    {"device", "gpu"},
                    {"available", why.empty()},
                    {"reason", why},
                    {"capabilities",
                     {{"measures", floor_capability()},
                      {"verdict", "pass when the chain ran and completed: nothing is computed to check"}}}});
    return list;
  }

  std::unique_ptr<runner::SystemRun> prepare(const json& doc, const std::string& origin,
                                             const runner::RunRequest& request, const json& saved) const override {
    harness::SuiteSpec suite = harness::parse_suite(doc, origin);
    std::uint64_t seed = harness::kDefaultSeed;
    if (saved.is_object() && saved.contains("seed")) {
      if (!saved["seed"].is_number_unsigned()) throw Error(origin + ": options: seed must be an unsigned integer");
      seed = saved["seed"].get<std::uint64_t>();
    }
    return std::make_unique<Iir2dRun>(std::move(suite), origin, request, seed);
  }
};

}  // namespace

runner::SystemPtr make_iir2d_system() { return std::make_unique<Iir2dSystem>(); }

}  // namespace splinebench::iir2d
