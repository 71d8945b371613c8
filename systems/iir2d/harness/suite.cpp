#include "suite.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>

#include "splinebench/error.hpp"
#include "splinebench/iir2d/coefficients.hpp"

namespace splinebench::iir2d::harness {
namespace {

using nlohmann::json;

// Every error names the origin (the file) and where in it.
struct Where {
  std::string origin;
  std::string path;  // e.g. "sweeps[1] ('sizes')"
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    std::string at = path;
    if (!key.empty()) at += (at.empty() ? "" : ": ") + key;
    throw Error(origin + ": " + (at.empty() ? "" : at + ": ") + what);
  }
};

void only_keys(const json& obj, const std::set<std::string>& allowed, const Where& w) {
  for (const auto& item : obj.items())
    if (!allowed.count(item.key())) {
      std::string list;
      for (const auto& k : allowed) list += (list.empty() ? "" : ", ") + k;
      w.fail("", "unknown key '" + item.key() + "' (known: " + list + ")");
    }
}

std::string text(const json& v, const std::string& key, const Where& w) {
  if (!v.is_string()) w.fail(key, "must be a string, not " + v.dump());
  return v.get<std::string>();
}

int int_in(const json& v, long long lo, long long hi, const std::string& key, const Where& w) {
  if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi)
    w.fail(key, "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], not " + v.dump());
  return static_cast<int>(v.get<long long>());
}

std::vector<Shape> parse_shapes(const json& v, const Where& w) {
  if (!v.is_array() || v.empty()) w.fail("shapes", "must be a non-empty list of [H, W]");
  std::vector<Shape> shapes;
  for (const json& s : v) {
    if (!s.is_array() || s.size() != 2 || !s[0].is_number_integer() || !s[1].is_number_integer() ||
        s[0].get<long long>() < 1 || s[1].get<long long>() < 1)
      w.fail("shapes", "a shape is [H, W] with integers H, W >= 1, not " + s.dump());
    const Shape shape{s[0].get<std::int64_t>(), s[1].get<std::int64_t>()};
    if (shape.rows > kMaxPixels / shape.cols)
      w.fail("shapes", s.dump() + " is not a possible image: more than 2^56 pixels");
    if (std::find(shapes.begin(), shapes.end(), shape) != shapes.end())
      w.fail("shapes", s.dump() + " is listed twice");
    shapes.push_back(shape);
  }
  return shapes;
}

std::vector<int> parse_Ms(const json& v, const Where& w) {
  std::vector<int> Ms;
  if (v.is_object()) {
    only_keys(v, {"from", "to"}, Where{w.origin, w.path + ": M"});
    if (!v.contains("from") || !v.contains("to")) w.fail("M", "a range needs \"from\" and \"to\"");
    const int from = int_in(v["from"], 1, kMaxWindow, "M.from", w);
    const int to = int_in(v["to"], from, kMaxWindow, "M.to", w);
    for (int M = from; M <= to; ++M) Ms.push_back(M);
  } else if (v.is_array() && !v.empty()) {
    for (const json& m : v) {
      const int M = int_in(m, 1, kMaxWindow, "M", w);
      if (std::find(Ms.begin(), Ms.end(), M) != Ms.end()) w.fail("M", std::to_string(M) + " is listed twice");
      Ms.push_back(M);
    }
  } else {
    w.fail("M", "must be a non-empty list or {\"from\": a, \"to\": b}, not " + v.dump());
  }
  return Ms;
}

std::vector<std::string> parse_families(const json& v, const Where& w) {
  if (!v.is_array() || v.empty()) w.fail("families", "must be a non-empty list");
  const auto& known = family_names();
  std::string list;
  for (const auto& f : known) list += (list.empty() ? "" : ", ") + f;
  std::vector<std::string> families;
  for (const json& f : v) {
    if (!f.is_string() || std::find(known.begin(), known.end(), f.get<std::string>()) == known.end())
      w.fail("families", "unknown family " + f.dump() + " (" + list + ")");
    families.push_back(f.get<std::string>());
  }
  return families;
}

// "all", or a list of scheme names ("all" among them selects every scheme).
std::vector<Scheme> parse_schemes(const json& v, const std::string& key, const Where& w) {
  std::vector<Scheme> out;
  auto add = [&](const json& name) {
    if (!name.is_string()) w.fail(key, "a scheme is a name, not " + name.dump());
    if (name == "all") {
      out = all_schemes();
      return;
    }
    try {
      const Scheme s = parse_scheme(name.get<std::string>());
      if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
    } catch (const Error&) {
      w.fail(key, "unknown scheme " + name.dump() + " (schemes: " + scheme_names() + ", or \"all\")");
    }
  };
  if (v.is_string()) {
    add(v);
  } else if (v.is_array()) {
    for (const json& n : v) add(n);
  } else {
    w.fail(key, "must be \"all\" or a list of scheme names, not " + v.dump());
  }
  return out;
}

// No error bound applies when sum|b| >= 1, so such a case could have no verdict: the
// plan refuses it rather than recording a result nothing judges.
void require_bounded(const std::string& family, int M, const Where& w) {
  if (family == "bspline_quadrant" && M != 2) w.fail("families", "the bspline_quadrant family has M = 2 only");
  const double gain = make_window(family, M, kDefaultSeed).abs_sum();
  if (gain >= 1.0) {
    char g[32];
    std::snprintf(g, sizeof g, "%.4g", gain);
    w.fail("families", "family '" + family + "' at M = " + std::to_string(M) + " has sum|b| = " + g +
                           " >= 1: no error bound applies, so no verdict is possible (the oracle's own tests use it)");
  }
}

const std::set<std::string> kSweepKeys = {"name", "note", "shapes", "M", "families", "schemes", "exclude",
                                          "empty_chains"};

}  // namespace

SuiteSpec parse_suite(const json& s, const std::string& origin) {
  const Where top{origin, ""};
  if (!s.is_object()) top.fail("", "a suite is a JSON object");
  only_keys(s, {"name", "system", "description", "note", "repetitions", "warmups", "defaults", "sweeps"}, top);
  if (!s.contains("system") || s["system"] != "iir2d") top.fail("system", "must be \"iir2d\" for an iir2d suite");
  if (!s.contains("name")) top.fail("name", "required (letters, digits, '-', '_')");
  SuiteSpec suite;
  suite.name = text(s["name"], "name", top);
  if (suite.name.empty() || !std::all_of(suite.name.begin(), suite.name.end(), [](unsigned char c) {
        return std::isalnum(c) || c == '-' || c == '_';
      }))
    top.fail("name", "letters, digits, '-' and '_' only (it is part of the run id), not '" + suite.name + "'");
  for (const char* key : {"description", "note"})
    if (s.contains(key)) text(s[key], key, top);
  if (s.contains("repetitions")) suite.repetitions = int_in(s["repetitions"], 1, 1000000, "repetitions", top);
  if (s.contains("warmups")) suite.warmups = int_in(s["warmups"], 0, 1000000, "warmups", top);

  json defaults = json::object();
  if (s.contains("defaults")) {
    defaults = s["defaults"];
    const Where w{origin, "defaults"};
    if (!defaults.is_object()) w.fail("", "must be an object of sweep keys");
    only_keys(defaults, {"shapes", "M", "families", "schemes", "exclude", "empty_chains"}, w);
  }
  if (!s.contains("sweeps") || !s["sweeps"].is_array() || s["sweeps"].empty())
    top.fail("sweeps", "required: a non-empty list");

  std::set<std::string> names;
  for (std::size_t i = 0; i < s["sweeps"].size(); ++i) {
    const json& given = s["sweeps"][i];
    Where w{origin, "sweeps[" + std::to_string(i) + "]"};
    if (!given.is_object()) w.fail("", "a sweep is an object");
    if (!given.contains("name")) w.fail("name", "required");
    SweepSpec sweep;
    sweep.name = text(given["name"], "name", w);
    if (sweep.name.empty()) w.fail("name", "must not be empty");
    w.path += " ('" + sweep.name + "')";
    only_keys(given, kSweepKeys, w);
    if (!names.insert(sweep.name).second) w.fail("name", "used by another sweep too");
    if (given.contains("note")) sweep.note = text(given["note"], "note", w);
    json sw = defaults;
    sw.update(given);
    for (const char* key : {"shapes", "M", "families"})
      if (!sw.contains(key)) w.fail(key, "required (in the sweep or the suite's defaults)");
    sweep.shapes = parse_shapes(sw["shapes"], w);
    sweep.Ms = parse_Ms(sw["M"], w);
    sweep.families = parse_families(sw["families"], w);
    for (const auto& f : sweep.families)
      for (int M : sweep.Ms) require_bounded(f, M, w);
    const std::vector<Scheme> chosen = sw.contains("schemes") ? parse_schemes(sw["schemes"], "schemes", w) : all_schemes();
    const std::vector<Scheme> excluded =
        sw.contains("exclude") ? parse_schemes(sw["exclude"], "exclude", w) : std::vector<Scheme>{};
    for (Scheme sc : all_schemes())  // registry order, whatever order the suite lists them in
      if (std::count(chosen.begin(), chosen.end(), sc) && !std::count(excluded.begin(), excluded.end(), sc))
        sweep.schemes.push_back(sc);
    if (sw.contains("empty_chains")) {
      if (!sw["empty_chains"].is_boolean()) w.fail("empty_chains", "must be true or false");
      sweep.empty_chains = sw["empty_chains"].get<bool>();
    }
    if (sweep.schemes.empty() && !sweep.empty_chains)
      w.fail("schemes", "the sweep selects no scheme and no empty launch chain");
    suite.sweeps.push_back(std::move(sweep));
  }
  return suite;
}

}  // namespace splinebench::iir2d::harness
