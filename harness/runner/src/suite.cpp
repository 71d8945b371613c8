#include "splinebench/runner/suite.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <thread>

#include "splinebench/datasets/analytic.hpp"
#include "splinebench/error.hpp"
#include "splinebench/runner/build_info.hpp"
#include "splinebench/user_arrays.hpp"

namespace splinebench::runner {
namespace {

using nlohmann::json;

constexpr std::int64_t kCountLimit = std::int64_t{1} << 62;

std::int64_t checked_mul(std::int64_t a, std::int64_t b, const std::string& what) {
  if (a != 0 && b > kCountLimit / a) throw Error(what + ": value too large");
  return a * b;
}

std::int64_t parse_digits(const std::string& text, const std::string& what) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw Error(what + ": '" + text + "' is not a count (write e.g. 1048576, \"2^20\" or \"3*2^10\")");
  if (text.size() > 18) throw Error(what + ": value too large");
  return std::stoll(text);
}

// Where in the suite an error is: "<origin>: sweep 'name' (#2): key".
struct Where {
  std::string origin;
  std::string sweep;  // empty at suite level
  std::string at(const std::string& key) const {
    std::string s = origin + ": ";
    if (!sweep.empty()) s += sweep + ": ";
    return s + key;
  }
};

// An axis may be written as a list or, for a single value, as the bare value.
std::vector<json> axis_values(const json& v, const Where& w, const std::string& key) {
  std::vector<json> out;
  if (v.is_array()) {
    out.assign(v.begin(), v.end());
  } else {
    out.push_back(v);
  }
  if (out.empty()) throw Error(w.at(key) + ": empty axis list (give at least one value)");
  return out;
}

std::string string_value(const json& v, const Where& w, const std::string& key) {
  if (!v.is_string()) throw Error(w.at(key) + ": expected a string, found " + v.dump());
  return v.get<std::string>();
}

std::vector<std::string> string_list(const json& v, const Where& w, const std::string& key, bool allow_empty) {
  std::vector<std::string> out;
  if (v.is_array() && v.empty() && allow_empty) return out;
  for (const auto& item : axis_values(v, w, key)) out.push_back(string_value(item, w, key));
  return out;
}

std::int64_t count_at_least(const json& v, std::int64_t minimum, const Where& w, const std::string& key,
                            const std::string& meaning) {
  const std::int64_t n = parse_count(v, w.at(key));
  if (n < minimum) {
    std::ostringstream msg;
    msg << w.at(key) << ": " << meaning << " must be >= " << minimum << ", got " << n;
    throw Error(msg.str());
  }
  return n;
}

int small_int(const json& v, int lo, int hi, const Where& w, const std::string& key, const std::string& meaning) {
  const std::int64_t n = parse_count(v, w.at(key));
  if (n < lo || n > hi) {
    std::ostringstream msg;
    msg << w.at(key) << ": " << meaning << " must be in [" << lo << ", " << hi << "], got " << n;
    throw Error(msg.str());
  }
  return static_cast<int>(n);
}

const std::set<std::string>& sweep_keys() {
  static const std::set<std::string> keys = {"name", "note", "impls", "exclude", "dims", "sizes", "shapes",
                                             "channels", "fields", "modes", "data", "queries", "patterns",
                                             "threads"};
  return keys;
}

void reject_unknown_keys(const json& obj, const std::set<std::string>& known, const Where& w) {
  for (const auto& [key, value] : obj.items()) {
    (void)value;
    if (!known.count(key)) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw Error(w.at("'" + key + "'") + ": unknown key (known: " + list + ")");
    }
  }
}

std::vector<std::int64_t> parse_shape(const json& v, const Where& w) {
  if (!v.is_array()) throw Error(w.at("shapes") + ": each shape is a list of extents, found " + v.dump());
  if (v.empty() || v.size() > static_cast<std::size_t>(kMaxDims)) {
    std::ostringstream msg;
    msg << w.at("shapes") << ": shape " << v.dump() << " has " << v.size() << " axes; D must be in [1, "
        << kMaxDims << "]";
    throw Error(msg.str());
  }
  std::vector<std::int64_t> shape;
  std::int64_t points = 1;
  for (const auto& e : v) {
    shape.push_back(count_at_least(e, 1, w, "shapes", "every extent (samples per axis)"));
    points = checked_mul(points, shape.back(), w.at("shapes"));
  }
  return shape;
}

SweepSpec parse_sweep(const json& raw, const json& defaults, const Where& suite_where, std::size_t index) {
  Where w = suite_where;
  if (!raw.is_object()) throw Error(w.at("sweeps") + ": sweep #" + std::to_string(index + 1) + " is not an object");
  if (!raw.contains("name") || !raw["name"].is_string() || raw["name"].get<std::string>().empty())
    throw Error(w.at("sweeps") + ": sweep #" + std::to_string(index + 1) + " needs a non-empty \"name\"");
  SweepSpec s;
  s.name = raw["name"].get<std::string>();
  w.sweep = "sweep '" + s.name + "' (#" + std::to_string(index + 1) + ")";
  reject_unknown_keys(raw, sweep_keys(), w);

  json merged = defaults;
  for (const auto& [key, value] : raw.items()) merged[key] = value;

  if (merged.contains("note")) s.note = string_value(merged["note"], w, "note");

  if (!merged.contains("impls")) throw Error(w.at("impls") + ": missing (names, or \"all\", \"cpu\", \"gpu\")");
  s.impls = string_list(merged["impls"], w, "impls", false);
  if (merged.contains("exclude")) s.exclude = string_list(merged["exclude"], w, "exclude", true);

  // Data first: a sweep of real datasets only may leave the shape to the data.
  for (const auto& d : axis_values(merged.contains("data") ? merged["data"] : json::array({"noise"}), w, "data")) {
    try {
      s.data.push_back(datasets::parse_field_source(string_value(d, w, "data")));
    } catch (const Error& e) {
      throw Error(w.at("data") + ": " + e.what());
    }
  }
  const bool all_real = std::all_of(s.data.begin(), s.data.end(), [](const datasets::FieldSource& d) {
    return d.origin == datasets::FieldSource::Origin::real;
  });

  const bool has_sizes = merged.contains("sizes");
  const bool has_shapes = merged.contains("shapes");
  if (has_sizes && has_shapes)
    throw Error(w.at("sizes/shapes") + ": give exactly one of \"sizes\" (N per axis, with \"dims\") or "
                "\"shapes\" (explicit extents)");
  if (!has_sizes && !has_shapes && !all_real)
    throw Error(w.at("sizes/shapes") + ": give exactly one of \"sizes\" (N per axis, with \"dims\") or "
                "\"shapes\" (explicit extents); only a sweep whose data are all real datasets may leave "
                "the shape to the data");
  if (!has_sizes && !has_shapes && merged.contains("dims"))
    throw Error(w.at("dims") + ": \"dims\" goes with \"sizes\" or \"shapes\"; real datasets have their own D");
  std::vector<int> dims;
  if (merged.contains("dims"))
    for (const auto& d : axis_values(merged["dims"], w, "dims"))
      dims.push_back(small_int(d, 1, kMaxDims, w, "dims", "D"));
  if (has_sizes) {
    if (dims.empty()) throw Error(w.at("dims") + ": \"sizes\" needs \"dims\" (the D values to build N^D grids)");
    std::vector<std::int64_t> sizes;
    for (const auto& n : axis_values(merged["sizes"], w, "sizes"))
      sizes.push_back(count_at_least(n, 1, w, "sizes", "samples per axis"));
    for (int d : dims)
      for (std::int64_t n : sizes) {
        std::int64_t points = 1;
        for (int a = 0; a < d; ++a) points = checked_mul(points, n, w.at("sizes"));
        s.shapes.emplace_back(static_cast<std::size_t>(d), n);
      }
  } else if (has_shapes) {
    for (const auto& v : axis_values(merged["shapes"], w, "shapes")) {
      auto shape = parse_shape(v, w);
      if (!dims.empty() && std::find(dims.begin(), dims.end(), static_cast<int>(shape.size())) == dims.end()) {
        std::ostringstream msg;
        msg << w.at("shapes") << ": shape " << v.dump() << " has " << shape.size()
            << " axes, which differs from every D in \"dims\" " << merged["dims"].dump();
        throw Error(msg.str());
      }
      s.shapes.push_back(std::move(shape));
    }
  }

  auto axis_or = [&](const char* key, const json& fallback) {
    return axis_values(merged.contains(key) ? merged[key] : fallback, w, key);
  };
  for (const auto& data : s.data) {
    if (data.origin != datasets::FieldSource::Origin::analytic) continue;
    const auto& f = datasets::analytic_function(data.name);
    for (const auto& shape : s.shapes)
      if (!f.supports(static_cast<int>(shape.size())))
        throw Error(w.at("data") + ": analytic function '" + data.name + "' is defined for D = " +
                    std::to_string(f.min_dims) +
                    (f.max_dims > f.min_dims ? ".." + std::to_string(f.max_dims) : std::string()) +
                    ", the sweep has D = " + std::to_string(shape.size()));
  }

  s.channels_given = merged.contains("channels");
  for (const auto& c : axis_or("channels", json::array({1})))
    s.channels.push_back(small_int(c, 1, 1 << 20, w, "channels", "channels"));
  for (const auto& f : axis_or("fields", json::array({1})))
    s.fields.push_back(count_at_least(f, 1, w, "fields", "fields per batch"));

  const json modes = merged.contains("modes") ? merged["modes"] : json::array({"mirror"});
  if (modes.is_string() && modes.get<std::string>() == "all") {
    s.modes.assign(kAllModes.begin(), kAllModes.end());
  } else {
    for (const auto& m : axis_values(modes, w, "modes")) {
      const std::string text = string_value(m, w, "modes");
      const auto mode = parse_mode(text);
      if (!mode) throw Error(w.at("modes") + ": unknown mode '" + text + "' (known: mirror, half, periodic, or \"all\")");
      s.modes.push_back(*mode);
    }
  }
  if (!merged.contains("queries")) throw Error(w.at("queries") + ": missing (queries per call; 0 = prefilter only)");
  for (const auto& q : axis_values(merged["queries"], w, "queries"))
    s.queries.push_back(count_at_least(q, 0, w, "queries", "queries per call"));
  for (const auto& p : axis_or("patterns", json::array({"uniform"}))) {
    try {
      s.patterns.push_back(datasets::parse_query_pattern(string_value(p, w, "patterns")));
    } catch (const Error& e) {
      throw Error(w.at("patterns") + ": " + e.what());
    }
  }
  for (const auto& t : axis_or("threads", json::array({1}))) {
    if (t.is_string() && t.get<std::string>() == "max") {
      s.threads.push_back(hardware_threads());
    } else {
      s.threads.push_back(small_int(t, 1, max_threads(), w, "threads", "threads (or \"max\")"));
    }
  }
  return s;
}

}  // namespace

int hardware_threads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

int max_threads() { return splinebench::max_threads(); }

std::int64_t parse_count(const json& value, const std::string& what) {
  if (value.is_number_integer()) return value.get<std::int64_t>();
  if (value.is_number_unsigned()) {
    const auto u = value.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(kCountLimit)) throw Error(what + ": value too large");
    return static_cast<std::int64_t>(u);
  }
  if (!value.is_string())
    throw Error(what + ": expected an integer count (or a string like \"2^20\"), found " + value.dump());
  const std::string text = value.get<std::string>();
  std::int64_t product = 1;
  std::stringstream terms(text);
  std::string term;
  bool any = false;
  while (std::getline(terms, term, '*')) {
    any = true;
    const auto caret = term.find('^');
    if (caret == std::string::npos) {
      product = checked_mul(product, parse_digits(term, what), what);
    } else {
      const std::int64_t base = parse_digits(term.substr(0, caret), what);
      const std::int64_t exponent = parse_digits(term.substr(caret + 1), what);
      if (exponent > 64) throw Error(what + ": exponent in '" + text + "' too large");
      for (std::int64_t e = 0; e < exponent; ++e) product = checked_mul(product, base, what);
    }
  }
  if (!any || text.back() == '*') throw Error(what + ": '" + text + "' is not a count");
  return product;
}

SuiteSpec parse_suite(const json& doc, const std::string& origin) {
  Where w{origin, ""};
  if (!doc.is_object()) throw Error(origin + ": a suite is a JSON object");
  reject_unknown_keys(doc, {"name", "system", "description", "note", "repetitions", "warmups", "defaults", "sweeps"},
                      w);
  if (doc.contains("system") && doc["system"] != "grid")
    throw Error(w.at("system") + ": " + doc["system"].dump() + " is not the grid system's suite");
  SuiteSpec suite;
  suite.source = doc;
  suite.origin = origin;
  if (!doc.contains("name")) throw Error(w.at("name") + ": missing");
  suite.name = string_value(doc["name"], w, "name");
  if (suite.name.empty() || !std::all_of(suite.name.begin(), suite.name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
      }))
    throw Error(w.at("name") + ": '" + suite.name + "' must be non-empty letters, digits, '-' or '_'");
  if (doc.contains("description")) suite.description = string_value(doc["description"], w, "description");
  if (doc.contains("repetitions"))
    suite.repetitions = small_int(doc["repetitions"], 9, 1 << 20, w, "repetitions",
                                  "repetitions (at least 9 so the U-test in compare has power; "
                                  "--repetitions lowers it explicitly)");
  if (doc.contains("warmups")) suite.warmups = small_int(doc["warmups"], 0, 1 << 20, w, "warmups", "warm-ups");
  json defaults = json::object();
  if (doc.contains("defaults")) {
    defaults = doc["defaults"];
    if (!defaults.is_object()) throw Error(w.at("defaults") + ": expected an object of sweep keys");
    if (defaults.contains("name")) throw Error(w.at("defaults") + ": \"name\" cannot have a default");
    reject_unknown_keys(defaults, sweep_keys(), Where{origin, "defaults"});
  }
  if (!doc.contains("sweeps") || !doc["sweeps"].is_array() || doc["sweeps"].empty())
    throw Error(w.at("sweeps") + ": expected a non-empty list of sweeps");
  std::set<std::string> names;
  for (std::size_t i = 0; i < doc["sweeps"].size(); ++i) {
    suite.sweeps.push_back(parse_sweep(doc["sweeps"][i], defaults, w, i));
    if (!names.insert(suite.sweeps.back().name).second)
      throw Error(w.at("sweeps") + ": two sweeps are named '" + suite.sweeps.back().name + "'");
  }
  return suite;
}

json parse_suite_json(std::istream& in, const std::string& origin) {
  // nlohmann keeps the last of two equal keys in an object; in a suite that is
  // almost always a mistake ("queries" written twice in one sweep), so it is refused,
  // naming the key and the object (e.g. sweeps[2]).
  struct Level {
    bool object = false;
    std::set<std::string> keys;
    std::string key;        // object: the key whose value is being read
    std::size_t index = 0;  // array: the element being read
  };
  std::vector<Level> stack;
  const auto path = [&] {
    std::string out;
    for (std::size_t i = 0; i + 1 < stack.size(); ++i)
      out += stack[i].object ? (out.empty() ? "" : ".") + stack[i].key : "[" + std::to_string(stack[i].index) + "]";
    return out.empty() ? std::string("the top level") : out;
  };
  const auto element_done = [&] {
    if (!stack.empty() && !stack.back().object) ++stack.back().index;
  };
  const json::parser_callback_t check = [&](int, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start: stack.push_back({true, {}, {}, 0}); break;
      case json::parse_event_t::array_start: stack.push_back({false, {}, {}, 0}); break;
      case json::parse_event_t::key: {
        const std::string key = parsed.get<std::string>();
        if (!stack.back().keys.insert(key).second)
          throw Error(origin + ": duplicate key \"" + key + "\" in " + path() +
                      " (JSON would keep only the last one; write each key once)");
        stack.back().key = key;
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        stack.pop_back();
        element_done();
        break;
      case json::parse_event_t::value: element_done(); break;
    }
    return true;
  };
  try {
    return json::parse(in, check);
  } catch (const json::parse_error& e) {
    throw Error(origin + ": not valid JSON: " + e.what());
  }
}

SuiteDocument read_suite_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in || std::filesystem::is_directory(path)) throw Error("cannot read suite file " + path.string());
  return {parse_suite_json(in, path.string()), path.string()};
}

SuiteSpec load_suite_file(const std::filesystem::path& path) {
  const SuiteDocument d = read_suite_file(path);
  return parse_suite(d.doc, d.origin);
}

std::vector<std::filesystem::path> suite_search_path() {
  std::vector<std::filesystem::path> dirs;
  if (const char* env = std::getenv("SPLINEBENCH_SUITES_DIR"); env && *env) dirs.emplace_back(env);
  dirs.push_back(std::filesystem::path(build_info::source_dir) / "harness" / "suites");
  return dirs;
}

SuiteDocument find_named_suite(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos || name.find("..") != std::string::npos)
    throw Error("suite name '" + name + "' is not a plain name (use --suite-file for a path)");
  std::set<std::string> available;
  for (const auto& dir : suite_search_path()) {
    const auto file = dir / (name + ".json");
    if (std::filesystem::is_regular_file(file)) return read_suite_file(file);
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
      if (entry.path().extension() == ".json") available.insert(entry.path().stem().string());
  }
  std::string list;
  for (const auto& a : available) list += (list.empty() ? "" : ", ") + a;
  std::string where;
  for (const auto& dir : suite_search_path()) where += (where.empty() ? "" : ", ") + dir.string();
  throw Error("unknown suite '" + name + "' (available: " + (list.empty() ? "none found" : list) + "; searched " +
              where + ")");
}

SuiteSpec load_named_suite(const std::string& name) {
  const SuiteDocument d = find_named_suite(name);
  return parse_suite(d.doc, d.origin);
}

}  // namespace splinebench::runner
