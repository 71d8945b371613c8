#include "cli_run_selection.hpp"

#include <filesystem>

#include "splinebench/error.hpp"
#include "splinebench/runner/run_context.hpp"

namespace splinebench::cli {

void add_selection_options(CLI::App& cmd, RunSelection& s) {
  cmd.add_option("--suite", s.suite,
                 "Suite name: harness/suites/<name>.json (grid: quick, full, thesis, ruijters, gpu, nightly; "
                 "scattered: scattered, scattered-quick; 2-D IIR: iir2d, iir2d-quick)");
  cmd.add_option("--suite-file", s.suite_file, "Suite definition file (instead of --suite)");
  cmd.add_option("--impl", s.impls,
                 "Only these entries (comma-separated): implementations, scattered solvers or IIR schemes, as the "
                 "suite's system has them (splinebench list)")
      ->delimiter(',');
  cmd.add_option("--repetitions", s.repetitions, "Timed repetitions per case (default: the suite's, >= 9)");
  cmd.add_option("--warmups", s.warmups, "Untimed repetitions before them (default: the suite's, 2)");
  cmd.add_option("--threads", s.threads, "Threads for entries that take them (replaces the suite's)");
  cmd.add_option("--filter", s.filter, "Only cases whose case_id matches this regular expression");
}

std::vector<std::string> selection_argv(const RunSelection& s) {
  std::vector<std::string> out;
  if (!s.suite.empty()) out.insert(out.end(), {"--suite", s.suite});
  if (!s.suite_file.empty()) out.insert(out.end(), {"--suite-file", std::filesystem::absolute(s.suite_file).string()});
  if (!s.impls.empty()) {
    std::string list;
    for (const auto& e : s.impls) list += (list.empty() ? "" : ",") + e;
    out.insert(out.end(), {"--impl", list});
  }
  if (!s.filter.empty()) out.insert(out.end(), {"--filter", s.filter});
  if (s.threads) out.insert(out.end(), {"--threads", std::to_string(*s.threads)});
  if (s.repetitions) out.insert(out.end(), {"--repetitions", std::to_string(*s.repetitions)});
  if (s.warmups) out.insert(out.end(), {"--warmups", std::to_string(*s.warmups)});
  return out;
}

std::string machine_label(const std::optional<std::string>& asked) {
  if (asked && asked->empty())
    throw Error("--machine: empty label; give the name of the results/<machine>/ folder, or leave --machine out "
                "for the short host name (" + runner::host_name() + ")");
  const std::string label = asked.value_or(runner::host_name());
  runner::validate_machine_label(label);
  return label;
}

}  // namespace splinebench::cli
