// `splinebench list`: every registered implementation, whether it can run on this
// machine, and why not (a table scripts read: one row per implementation).
// `--system scattered|iir2d` lists that system's entries (solvers, schemes) instead,
// `--system all` every system's. `--json` prints the list as the array a run records in
// its context ("registry"); `--system NAME --json` a system's entries with capabilities.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>

#include "cli_systems.hpp"
#include "commands.hpp"
#include "splinebench/registry.hpp"
#include "splinebench/runner/run_context.hpp"

namespace splinebench::cli {

namespace {
void register_list(CLI::App& app) {
  auto* cmd = app.add_subcommand("list", "List implementations, scattered solvers and IIR schemes, and whether they can run here");
  auto as_json = std::make_shared<bool>(false);
  auto system = std::make_shared<std::string>();
  cmd->add_flag("--json", *as_json, "Print a JSON array of {name, device, available, reason, evaluation}, in registry order");
  cmd->add_option("--system", *system,
                  "Another system's entries instead (scattered: solvers, iir2d: schemes), or all: every system's");
  cmd->callback([as_json, system] {
    if (!system->empty() && *system != "grid" && *system != "all") {
      const runner::System& sys = system_named(*system, "--system");
      const nlohmann::json entries = sys.registry();
      if (*as_json) {
        std::cout << entries.dump(2) << '\n';
        return;
      }
      std::cout << sys.name() << ": " << sys.description() << '\n';
      for (const auto& e : entries)
        std::cout << "  " << std::left << std::setw(22) << e.value("name", "") << std::setw(6) << e.value("device", "")
                  << std::setw(6) << (e.value("available", false) ? "ok" : "no") << e.value("reason", "")
                  << (e.contains("capabilities") ? " " + e["capabilities"].dump() : "") << '\n';
      return;
    }
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
    if (*system != "all") return;
    for (const auto& sys : systems()) {
      if (sys->name() == "grid" || sys->registry().empty()) continue;
      std::cout << '\n' << sys->name() << " (" << sys->description() << "), " << sys->entry_noun() << "s:\n";
      for (const auto& e : sys->registry())
        std::cout << "  " << std::left << std::setw(22) << e.value("name", "") << std::setw(6) << e.value("device", "")
                  << (e.value("available", false) ? "ok" : "no: " + e.value("reason", std::string())) << '\n';
    }
  });
}
}  // namespace

SPLINEBENCH_COMMAND(register_list);

}  // namespace splinebench::cli
