#include "splinebench/iir2d/plan.hpp"

#include <algorithm>
#include <fstream>
#include <set>

#include "splinebench/error.hpp"
#include "splinebench/iir2d/coefficients.hpp"

namespace splinebench::iir2d {

using nlohmann::json;

ExperimentPlan seed_plan() {
  ExperimentPlan p{"seed", 9, 2, {}};
  for (int M = 1; M <= 31; ++M) p.cases.push_back({"fig3", {2048, 2048}, M, "gauss"});
  for (std::int64_t n : {512, 4096, 8192})
    for (int M : {3, 31}) p.cases.push_back({"sizes", {n, n}, M, "gauss"});
  for (Shape s : {Shape{1, 2048}, Shape{2048, 1}, Shape{3, 5000}, Shape{640, 480}})
    for (int M : {3, 31}) p.cases.push_back({"shapes", s, M, "gauss"});
  p.cases.push_back({"shapes-small", {7, 5}, 31, "gauss"});
  for (int M : {3, 31}) p.cases.push_back({"accuracy", {2048, 2048}, M, "random"});
  return p;
}

ExperimentPlan quick_plan() {
  ExperimentPlan p{"quick", 9, 2, {}};
  for (int M : {1, 3, 5, 9, 31}) p.cases.push_back({"fig3", {256, 256}, M, "gauss"});
  for (Shape s : {Shape{1, 300}, Shape{300, 1}, Shape{7, 5}}) p.cases.push_back({"shapes", s, 31, "gauss"});
  p.cases.push_back({"accuracy", {256, 256}, 31, "random"});
  return p;
}

namespace {

void only_keys(const json& obj, const std::set<std::string>& allowed, const std::string& where) {
  if (!obj.is_object()) throw Error("iir2d suite: " + where + " must be an object");
  for (const auto& [key, value] : obj.items()) {
    (void)value;
    if (!allowed.count(key)) throw Error("iir2d suite: unknown key '" + key + "' in " + where);
  }
}

int int_in(const json& v, int lo, int hi, const std::string& what) {
  if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi)
    throw Error("iir2d suite: " + what + " must be an integer in [" + std::to_string(lo) + ", " +
                std::to_string(hi) + "]");
  return v.get<int>();
}

}  // namespace

ExperimentPlan parse_suite(const json& s) {
  only_keys(s, {"name", "operation", "description", "note", "repetitions", "warmups", "sweeps"}, "the suite");
  if (!s.contains("operation") || s["operation"] != "iir2d")
    throw Error("iir2d suite: \"operation\" must be \"iir2d\"");
  if (!s.contains("name") || !s["name"].is_string() || s["name"].get<std::string>().empty())
    throw Error("iir2d suite: \"name\" (a non-empty string) is required");
  ExperimentPlan p;
  p.name = s["name"].get<std::string>();
  if (s.contains("repetitions")) p.repetitions = int_in(s["repetitions"], 1, 1000000, "repetitions");
  if (s.contains("warmups")) p.warmups = int_in(s["warmups"], 0, 1000000, "warmups");
  if (!s.contains("sweeps") || !s["sweeps"].is_array() || s["sweeps"].empty())
    throw Error("iir2d suite: \"sweeps\" (a non-empty list) is required");
  std::set<std::string> names;
  for (const json& w : s["sweeps"]) {
    only_keys(w, {"name", "note", "shapes", "M", "families"}, "a sweep");
    if (!w.contains("name") || !w["name"].is_string()) throw Error("iir2d suite: every sweep needs a \"name\"");
    const std::string name = w["name"].get<std::string>();
    if (!names.insert(name).second) throw Error("iir2d suite: sweep name '" + name + "' is used twice");
    const std::string where = "sweep '" + name + "'";
    for (const char* key : {"shapes", "M", "families"})
      if (!w.contains(key)) throw Error("iir2d suite: " + where + " needs \"" + key + "\"");
    std::vector<Shape> shapes;
    if (!w["shapes"].is_array() || w["shapes"].empty()) throw Error("iir2d suite: " + where + ": \"shapes\" must be a non-empty list");
    for (const json& sh : w["shapes"]) {
      if (!sh.is_array() || sh.size() != 2 || !sh[0].is_number_integer() || !sh[1].is_number_integer() ||
          sh[0].get<long long>() < 1 || sh[1].get<long long>() < 1)
        throw Error("iir2d suite: " + where + ": a shape is [H, W] with H, W >= 1, not " + sh.dump());
      shapes.push_back({sh[0].get<std::int64_t>(), sh[1].get<std::int64_t>()});
    }
    std::vector<int> Ms;
    if (w["M"].is_object()) {
      only_keys(w["M"], {"from", "to"}, where + " \"M\"");
      if (!w["M"].contains("from") || !w["M"].contains("to"))
        throw Error("iir2d suite: " + where + ": \"M\" as a range needs \"from\" and \"to\"");
      const int from = int_in(w["M"]["from"], 1, kMaxWindow, where + " M.from");
      const int to = int_in(w["M"]["to"], from, kMaxWindow, where + " M.to");
      for (int M = from; M <= to; ++M) Ms.push_back(M);
    } else if (w["M"].is_array() && !w["M"].empty()) {
      for (const json& m : w["M"]) Ms.push_back(int_in(m, 1, kMaxWindow, where + " M"));
    } else {
      throw Error("iir2d suite: " + where + ": \"M\" is a non-empty list or {\"from\", \"to\"}");
    }
    if (!w["families"].is_array() || w["families"].empty())
      throw Error("iir2d suite: " + where + ": \"families\" must be a non-empty list");
    std::vector<std::string> families;
    for (const json& f : w["families"]) {
      const auto& known = family_names();
      if (!f.is_string() || std::find(known.begin(), known.end(), f.get<std::string>()) == known.end())
        throw Error("iir2d suite: " + where + ": unknown family " + f.dump() +
                    " (gauss, random, separable, bspline_quadrant)");
      families.push_back(f.get<std::string>());
    }
    for (const Shape& sh : shapes)
      for (int M : Ms)
        for (const std::string& f : families) {
          if (f == "bspline_quadrant" && M != 2)
            throw Error("iir2d suite: " + where + ": the bspline_quadrant family has M = 2 only");
          p.cases.push_back({name, sh, M, f});
        }
  }
  return p;
}

ExperimentPlan load_suite_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("iir2d suite: cannot open " + path);
  json s;
  try {
    s = json::parse(in);
  } catch (const json::parse_error& e) {
    throw Error("iir2d suite: " + path + " is not valid JSON: " + e.what());
  }
  return parse_suite(s);
}

}  // namespace splinebench::iir2d
