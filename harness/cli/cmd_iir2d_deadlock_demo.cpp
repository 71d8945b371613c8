// `splinebench iir2d-deadlock-demo`: the hazard flexible allocation avoids
// (systems/iir2d/README.md): rows pinned to blocks, more blocks than can be resident,
// rows handed out in reverse launch order. Resident blocks wait for rows whose blocks
// cannot start; after --timeout seconds the host raises an abort flag the spinning
// blocks read, so the demonstration always ends. Exits 0 when the deadlock showed,
// non-zero when it did not (or there is no device). Built with the iir2d system
// (SPLINEBENCH_WITH_IIR2D, harness/cli/CMakeLists.txt).
#if SPLINEBENCH_WITH_IIR2D
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "splinebench/error.hpp"
#include "splinebench/iir2d/gpu.hpp"

namespace splinebench::cli {
namespace {

void register_iir2d_deadlock_demo(CLI::App& app) {
  auto timeout = std::make_shared<double>(5.0);
  auto* cmd = app.add_subcommand("iir2d-deadlock-demo",
                                 "Show the deadlock of IIR rows pinned to blocks without co-residency (2-D IIR "
                                 "experiment; a host timeout ends it)");
  cmd->add_option("--timeout", *timeout, "Seconds before the host raises the abort flag")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 3600.0));
  cmd->callback([timeout] {
    const iir2d::DeadlockDemo d = iir2d::run_deadlock_demo(*timeout);
    std::cout << "blocks " << d.blocks << ", resident capacity " << d.resident_capacity << ", "
              << (d.deadlocked ? "deadlocked: the host timeout raised the abort flag" : "completed") << ", "
              << d.gave_up << " blocks gave up, " << d.seconds << " s\n";
    if (!d.deadlocked)
      throw Error("iir2d-deadlock-demo: the pinned rows completed without a deadlock (" + std::to_string(d.blocks) +
                  " blocks against a resident capacity of " + std::to_string(d.resident_capacity) +
                  "): the demonstration did not show the hazard on this device");
  });
}

}  // namespace

SPLINEBENCH_COMMAND(register_iir2d_deadlock_demo);

}  // namespace splinebench::cli

#endif  // SPLINEBENCH_WITH_IIR2D
