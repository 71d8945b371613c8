#include "splinebench/runner/plan.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "splinebench/datasets/real.hpp"
#include "splinebench/error.hpp"

namespace splinebench::runner {
namespace {

std::string known_names(const std::vector<RegistryEntry>& registry) {
  std::string list;
  for (const auto& e : registry) list += (list.empty() ? "" : ", ") + e.name;
  return list;
}

const RegistryEntry* find_entry(const std::vector<RegistryEntry>& registry, const std::string& name) {
  for (const auto& e : registry)
    if (e.name == name) return &e;
  return nullptr;
}

void require_known(const std::vector<RegistryEntry>& registry, const std::string& name, const std::string& where) {
  if (!find_entry(registry, name))
    throw Error(where + ": unknown implementation '" + name + "' (registered: " + known_names(registry) +
                "; selectors: all, cpu, gpu)");
}

// Names selected by a sweep, in registry order, without duplicates.
std::vector<std::string> select_impls(const SweepSpec& sweep, const std::vector<RegistryEntry>& registry,
                                      const std::string& where, std::vector<std::string>& notes) {
  std::set<std::string> chosen;
  for (const auto& item : sweep.impls) {
    if (item == "all" || item == "cpu" || item == "gpu") {
      bool any = false;
      for (const auto& e : registry)
        if (!e.test_only && (item == "all" || to_string(e.device) == item)) {
          chosen.insert(e.name);
          any = true;
        }
      if (!any) notes.push_back(where + ": selector '" + item + "' matches no registered implementation");
    } else {
      require_known(registry, item, where + ": impls");
      chosen.insert(item);
    }
  }
  for (const auto& name : sweep.exclude) {
    require_known(registry, name, where + ": exclude");
    chosen.erase(name);
  }
  std::vector<std::string> ordered;
  for (const auto& e : registry)
    if (chosen.count(e.name)) ordered.push_back(e.name);
  return ordered;
}

std::string extents_string(const std::vector<std::int64_t>& extents) {
  std::string out;
  for (auto e : extents) out += (out.empty() ? "[" : ", ") + std::to_string(e);
  return out + "]";
}

// A real dataset's field shape, from its manifest; an error when the sweep states
// another shape or channel count; nullopt (and a note) when it is not in the cache.
std::optional<GridShape> real_data_shape(const SweepSpec& sweep, const datasets::FieldSource& data,
                                         const std::string& where, std::vector<std::string>& notes) {
  datasets::RealDatasetInfo info;
  try {
    info = datasets::real_dataset_info(data.name);
  } catch (const datasets::DatasetUnavailable& e) {
    notes.push_back(where + ": data '" + data.name + "' skipped: " + e.what());
    return std::nullopt;
  }
  const GridShape shape = datasets::real_field_shape(info);
  for (const auto& extents : sweep.shapes)
    if (extents != info.grid)
      throw Error(where + ": data '" + data.name + "' has shape " + extents_string(info.grid) +
                  " (a real dataset's shape is its own); the sweep states " + extents_string(extents) +
                  ": leave out \"sizes\"/\"shapes\" or state the data's shape");
  if (sweep.channels_given)
    for (int c : sweep.channels)
      if (c != shape.channels)
        throw Error(where + ": data '" + data.name + "' has " + std::to_string(shape.channels) +
                    " channel(s) (" + (info.channels == 3 ? "RGB as RGBA" : "its own") + "); the sweep states " +
                    std::to_string(c) + ": leave out \"channels\" or state the data's");
  return shape;
}

}  // namespace

std::uint64_t fnv1a64(const std::string& text) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string CaseSpec::pattern_name() const {
  return queries == 0 ? "none" : std::string(datasets::to_string(pattern));
}

std::string CaseSpec::case_id() const {
  std::ostringstream id;
  id << impl << "/D" << shape.dims << '/' << shape.to_string() << "/C" << shape.channels << "/F" << fields << '/'
     << to_string(mode) << '/' << datasets::to_string(data) << "/q" << queries << '/' << pattern_name() << "/T"
     << threads;
  return id.str();
}

std::string CaseSpec::case_hash() const {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fnv1a64(case_id())));
  return buf;
}

std::string CaseSpec::field_key() const {
  std::ostringstream key;
  key << "D" << shape.dims << '/' << shape.to_string() << "/C" << shape.channels << "/F" << fields << '/'
      << datasets::to_string(data);
  // An analytic function's samples sit where the mode puts them (datasets/analytic.hpp).
  if (data.origin == datasets::FieldSource::Origin::analytic) key << '/' << to_string(mode);
  return key.str();
}

std::string CaseSpec::query_key() const {
  std::ostringstream key;
  key << "D" << shape.dims << '/' << shape.to_string() << "/q" << queries << '/' << pattern_name();
  return key.str();
}

Plan make_plan(const SuiteSpec& suite, const PlanOptions& options, const std::vector<RegistryEntry>& registry) {
  Plan plan;
  plan.suite = suite.name;
  for (const auto& name : options.only_impls) require_known(registry, name, "--impl");
  if (options.threads && (*options.threads < 1 || *options.threads > max_threads()))
    throw Error("--threads must be in [1, " + std::to_string(max_threads()) + "] (at most max(1024, 4 x the " +
                "hardware threads)), got " + std::to_string(*options.threads));
  std::optional<std::regex> filter;
  if (!options.case_filter.empty()) {
    try {
      filter.emplace(options.case_filter, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw Error("--filter: invalid regular expression '" + options.case_filter + "': " + e.what());
    }
  }

  // Whether each implementation honours Options::threads: the others get one case at
  // threads = 1 instead of identical copies.
  std::map<std::string, bool> threaded;
  for (const auto& e : registry) threaded[e.name] = e.make()->capabilities().threads;

  std::set<std::string> seen;
  for (std::size_t s = 0; s < suite.sweeps.size(); ++s) {
    const SweepSpec& sweep = suite.sweeps[s];
    const std::string where = suite.origin + ": sweep '" + sweep.name + "'";
    std::vector<std::string> impls = select_impls(sweep, registry, where, plan.notes);
    if (!options.only_impls.empty())
      impls.erase(std::remove_if(impls.begin(), impls.end(),
                                 [&](const std::string& n) {
                                   return std::find(options.only_impls.begin(), options.only_impls.end(), n) ==
                                          options.only_impls.end();
                                 }),
                  impls.end());
    const std::vector<int> thread_axis = options.threads ? std::vector<int>{*options.threads} : sweep.threads;

    PlannedSweep planned{sweep.name, plan.cases.size(), 0};
    // Every case of one input (shape, fields, data), implementations innermost.
    const auto add_cases = [&](const GridShape& shape, const datasets::FieldSource& data) {
      for (std::int64_t fields : sweep.fields) {
        if (shape.values() > (std::int64_t{1} << 62) / fields)
          throw Error(where + ": batch of " + std::to_string(fields) + " fields of " + shape.to_string() +
                      " is too large");
        for (Mode mode : sweep.modes)
          for (std::int64_t queries : sweep.queries) {
            // A prefilter-only case has no query pattern: one case, not one per pattern.
            const std::size_t pattern_count = queries == 0 ? 1 : sweep.patterns.size();
            for (std::size_t p = 0; p < pattern_count; ++p)
              for (int threads : thread_axis)
                for (const auto& name : impls) {
                  CaseSpec c;
                  c.impl = name;
                  c.device = find_entry(registry, name)->device;
                  c.shape = shape;
                  c.fields = fields;
                  c.mode = mode;
                  c.data = data;
                  c.queries = queries;
                  c.pattern = sweep.patterns[p];
                  c.threads = threaded[name] ? threads : 1;
                  c.sweep = sweep.name;
                  const std::string id = c.case_id();
                  if (filter && !std::regex_search(id, *filter)) continue;
                  if (!seen.insert(id).second) continue;  // same case from another axis value
                  plan.cases.push_back(std::move(c));
                }
          }
      }
    };
    for (const auto& extents : sweep.shapes)
      for (int channels : sweep.channels) {
        const GridShape shape = GridShape::make(extents, channels);
        for (const auto& data : sweep.data)
          if (data.origin != datasets::FieldSource::Origin::real) add_cases(shape, data);
      }
    for (const auto& data : sweep.data)
      if (data.origin == datasets::FieldSource::Origin::real)
        if (const auto shape = real_data_shape(sweep, data, where, plan.notes)) add_cases(*shape, data);
    planned.case_count = plan.cases.size() - planned.first_case;
    plan.sweeps.push_back(planned);
  }
  if (plan.cases.empty()) {
    std::string why = "suite '" + suite.name + "' selects no case";
    if (!options.only_impls.empty() || filter) why += " after --impl/--filter";
    for (const auto& n : plan.notes) why += "; " + n;
    throw NoCases(why);
  }
  return plan;
}

}  // namespace splinebench::runner
