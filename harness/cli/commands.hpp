// Subcommands of the `splinebench` executable. Each registers its options and a
// callback; errors are thrown as splinebench::Error and reported by main.
#pragma once

#include <CLI/CLI.hpp>

namespace splinebench::cli {

void register_list(CLI::App& app);

}  // namespace splinebench::cli
