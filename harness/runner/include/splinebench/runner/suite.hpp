// Suite definitions: a suite is a named list of sweeps; a sweep is a set of parameter
// axes whose cartesian product gives the cases (format: harness/suites/README.md).
// Parsing is strict: an unknown key, an unknown mode or pattern, an empty axis or an
// impossible shape is a splinebench::Error naming the suite, the sweep and the key,
// raised before anything runs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <istream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "splinebench/datasets.hpp"
#include "splinebench/types.hpp"

namespace splinebench::runner {

struct SweepSpec {
  std::string name;
  std::string note;
  // Implementation names or the device selectors "all", "cpu", "gpu"; `exclude`
  // removes names after selection. Resolved against the registry by make_plan.
  std::vector<std::string> impls;
  std::vector<std::string> exclude;
  // Grid shapes, already expanded: `sizes` (N per axis) x `dims`, or explicit
  // `shapes` (each paired with the D equal to its length). Empty when every `data`
  // name is a real dataset and the sweep leaves the shape to the data.
  std::vector<std::vector<std::int64_t>> shapes;
  std::vector<int> channels;
  bool channels_given = false;  // written in the sweep or its defaults (real data checks it)
  std::vector<std::int64_t> fields;
  std::vector<Mode> modes;
  std::vector<datasets::FieldSource> data;
  std::vector<std::int64_t> queries;  // 0: prefilter only
  std::vector<datasets::QueryPattern> patterns;
  std::vector<int> threads;
};

struct SuiteSpec {
  std::string name;
  std::string origin;  // the file it came from (prefixes error messages)
  std::string description;
  int repetitions = 9;
  int warmups = 2;
  std::vector<SweepSpec> sweeps;
  nlohmann::json source;  // the definition as read, kept in the run manifest
};

// Parses a suite definition. `origin` (a file name) prefixes error messages.
SuiteSpec parse_suite(const nlohmann::json& doc, const std::string& origin);

// Reads JSON text of a suite: like nlohmann::json::parse, but a key written twice in
// one object is a splinebench::Error (naming `origin`, the key and the object) rather
// than silently the last value.
nlohmann::json parse_suite_json(std::istream& in, const std::string& origin);

// A suite file as read (duplicate keys refused), before any system parses it.
struct SuiteDocument {
  nlohmann::json doc;
  std::string origin;  // the file
};
SuiteDocument read_suite_file(const std::filesystem::path& path);
// Finds `<name>.json` on suite_search_path(); the error lists the suites that exist.
SuiteDocument find_named_suite(const std::string& name);

// Reads and parses a grid suite file (parse_suite_json, then parse_suite).
SuiteSpec load_suite_file(const std::filesystem::path& path);

// Folders searched for `<name>.json`: $SPLINEBENCH_SUITES_DIR if set, then the
// source tree's harness/suites (baked in at configure time).
std::vector<std::filesystem::path> suite_search_path();
// Finds and parses suite `name`; the error lists the suites that exist.
SuiteSpec load_named_suite(const std::string& name);

// The most threads a case or a command may ask for (splinebench/user_arrays.hpp).
int max_threads();

// What a suite's "max" threads means: the machine's hardware threads (at least 1).
int hardware_threads();

// A count written as an integer or as a small product of powers: 1048576, "2^20",
// "64^4", "3*2^10". Throws splinebench::Error (naming `what`) on anything else.
std::int64_t parse_count(const nlohmann::json& value, const std::string& what);

}  // namespace splinebench::runner
