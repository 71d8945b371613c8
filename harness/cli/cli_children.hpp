// Child processes of one command (`run --devices`): each started in a process group of
// its own with its output to a log file, killed with its group if this process is
// interrupted (io::InterruptCleanup), and waited for.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace splinebench::cli {

struct ChildSpec {
  std::vector<std::string> argv;            // argv[0]: the program's path
  std::map<std::string, std::string> env;   // set on top of this process's environment
  std::filesystem::path log;                // stdout and stderr
};

// Starts every child, then waits for all; returns each one's exit status (128 + n when
// signal n ended it). Throws splinebench::Error when one cannot be started (the ones
// already started are killed first).
std::vector<int> run_children(const std::vector<ChildSpec>& children);

}  // namespace splinebench::cli
