// Subcommands of the `splinebench` executable. Each cmd_*.cpp file registers itself
// with SPLINEBENCH_COMMAND(fn), where fn adds a CLI11 subcommand and its callback;
// adding a subcommand is adding one file. Errors are thrown as splinebench::Error and
// reported by main with a non-zero exit.
#pragma once

#include <CLI/CLI.hpp>
#include <vector>

namespace splinebench::cli {

using RegisterFn = void (*)(CLI::App&);

std::vector<RegisterFn>& command_registry();

struct CommandRegistrar {
  explicit CommandRegistrar(RegisterFn fn) { command_registry().push_back(fn); }
};

}  // namespace splinebench::cli

#define SPLINEBENCH_COMMAND(fn) \
  static const ::splinebench::cli::CommandRegistrar splinebench_command_registrar_##fn(&fn)
