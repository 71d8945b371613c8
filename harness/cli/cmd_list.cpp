// `splinebench list`: every registered implementation, whether it can run on this
// machine, and why not. `--json` prints the same list as the array a run records in
// its context ("registry"), for scripts and tests that need the registered names.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "splinebench/registry.hpp"
#include "splinebench/runner/run_context.hpp"

namespace splinebench::cli {

namespace {
void register_list(CLI::App& app) {
  auto* cmd = app.add_subcommand("list", "List implementations and whether they can run here");
  auto as_json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *as_json, "Print a JSON array of {name, device, available, reason, evaluation}, in registry order");
  cmd->callback([as_json] {
    if (*as_json) {
      std::cout << runner::registry_list().dump(2) << '\n';
      return;
    }
    // The name column fits the longest name (a name glued to the next column reads as one word).
    int name_width = 16;
    for (const auto& entry : registry()) name_width = std::max(name_width, static_cast<int>(entry.name.size()) + 2);
    std::cout << std::left << std::setw(name_width) << "name" << std::setw(6) << "dev" << std::setw(6) << "arith"
              << std::setw(10) << "status" << "details\n";
    for (const auto& entry : registry()) {
      const auto impl = entry.make();
      const auto avail = impl->availability();
      const auto caps = impl->capabilities();
      std::cout << std::left << std::setw(name_width) << entry.name << std::setw(6) << to_string(entry.device)
                << std::setw(6) << caps.arithmetic << std::setw(10) << (avail.ok ? "ok" : "no")
                << (avail.ok ? std::string(impl->description()) : avail.reason) << '\n';
    }
  });
}
}  // namespace

SPLINEBENCH_COMMAND(register_list);

}  // namespace splinebench::cli
