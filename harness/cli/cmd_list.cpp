// `splinebench list`: every registered implementation, whether it can run on this
// machine, and why not.
#include <iomanip>
#include <iostream>

#include "commands.hpp"
#include "splinebench/registry.hpp"

namespace splinebench::cli {

namespace {
void register_list(CLI::App& app) {
  auto* cmd = app.add_subcommand("list", "List implementations and whether they can run here");
  cmd->callback([] {
    std::cout << std::left << std::setw(16) << "name" << std::setw(6) << "dev" << std::setw(6) << "arith"
              << std::setw(10) << "status" << "details\n";
    for (const auto& entry : registry()) {
      const auto impl = entry.make();
      const auto avail = impl->availability();
      const auto caps = impl->capabilities();
      std::cout << std::left << std::setw(16) << entry.name << std::setw(6) << to_string(entry.device)
                << std::setw(6) << caps.arithmetic << std::setw(10) << (avail.ok ? "ok" : "no")
                << (avail.ok ? std::string(impl->description()) : avail.reason) << '\n';
    }
  });
}
}  // namespace

SPLINEBENCH_COMMAND(register_list);

}  // namespace splinebench::cli
