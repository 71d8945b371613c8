// What a suite run selects, as `splinebench run` takes it on its command line; shared by
// the commands that start runs of their own (`run --devices`, `slurm`), so a child gets
// the same flags with the same meaning.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace splinebench::cli {

struct RunSelection {
  std::string suite;
  std::string suite_file;
  std::vector<std::string> impls;
  std::string filter;
  std::optional<int> threads;
  std::optional<int> repetitions;
  std::optional<int> warmups;
};

// --suite, --suite-file, --impl, --filter, --threads, --repetitions, --warmups.
void add_selection_options(CLI::App& cmd, RunSelection& selection);

// Those flags for a child `splinebench run` (a suite file by its absolute path).
std::vector<std::string> selection_argv(const RunSelection& selection);

// The results/<machine>/ label of a new run: --machine, or the short host name when it is
// not given; an empty or unsafe label is a splinebench::Error.
std::string machine_label(const std::optional<std::string>& asked);

}  // namespace splinebench::cli
