#include "splinebench/runner/system.hpp"

#include <cstdio>
#include <regex>

#include "splinebench/error.hpp"

namespace splinebench::runner {

using nlohmann::json;

std::string PlannedCase::hash() const {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fnv1a64(id)));
  return buf;
}

RunRequest request_from_options(const json& o, const std::string& origin) {
  try {
    RunRequest r;
    r.only = o.at("impl").get<std::vector<std::string>>();
    r.filter = o.at("filter").get<std::string>();
    if (!o.at("threads").is_null()) r.threads = o.at("threads").get<int>();
    r.repetitions = o.at("repetitions").get<int>();
    r.warmups = o.at("warmups").get<int>();
    return r;
  } catch (const json::exception& e) {
    throw Error(origin + ": options: " + e.what());
  }
}

json request_options_json(const std::vector<std::string>& only, const std::string& filter, std::optional<int> threads,
                          int repetitions, int warmups) {
  return {{"impl", only},
          {"filter", filter},
          {"threads", threads ? json(*threads) : json(nullptr)},
          {"repetitions", repetitions},
          {"warmups", warmups}};
}

std::string suite_system(const json& suite, const std::string& origin) {
  if (!suite.is_object()) throw Error(origin + ": a suite is a JSON object");
  if (!suite.contains("system")) return "grid";
  if (!suite["system"].is_string() || suite["system"].get<std::string>().empty())
    throw Error(origin + ": system: must be a non-empty string (grid, scattered, iir2d)");
  return suite["system"].get<std::string>();
}

struct CaseFilter::Impl {
  std::optional<std::regex> re;
};

CaseFilter::CaseFilter(const std::string& pattern) {
  auto impl = std::make_shared<Impl>();
  if (!pattern.empty()) {
    try {
      impl->re.emplace(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw Error("--filter: invalid regular expression '" + pattern + "': " + e.what());
    }
  }
  impl_ = std::move(impl);
}

bool CaseFilter::accepts(const std::string& case_id) const {
  return !impl_->re || std::regex_search(case_id, *impl_->re);
}

}  // namespace splinebench::runner
