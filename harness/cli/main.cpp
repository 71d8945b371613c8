#include <iostream>
#include <new>

#include "commands.hpp"
#include "splinebench/error.hpp"
#include "splinebench/io/atomic_file.hpp"

namespace splinebench::cli {
std::vector<RegisterFn>& command_registry() {
  static std::vector<RegisterFn> fns;
  return fns;
}
}  // namespace splinebench::cli

int main(int argc, char** argv) {
  CLI::App app{"splinebench: cubic B-spline prefilter and interpolation benchmark and validation suite.\n"
               "Systems (each run by `splinebench run --suite NAME`, listed by `splinebench list --system all`):\n"
               "  grid       prefilter and reconstruction on regular grids, D = 1..6 (implementations)\n"
               "  scattered  B-spline reconstruction from scattered samples, seed 003 (solvers)\n"
               "  iir2d      the 2-D IIR filter's fixed vs flexible allocation, seed 004 (schemes)"};
  app.require_subcommand(1);
  // Every output is written through harness/io: an interrupt removes its temporary.
  splinebench::io::install_interrupt_guard();
  for (auto fn : splinebench::cli::command_registry()) fn(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const splinebench::Error& e) {
    std::cerr << "splinebench: error: " << e.what() << '\n';
    return 1;
  } catch (const std::bad_alloc&) {
    // The need is checked before the work (runner::require_memory); this is memory
    // taken by others meanwhile, or buffers the estimate does not know.
    std::cerr << "splinebench: error: out of host memory (std::bad_alloc), although the job's estimated need "
                 "fitted when it started\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "splinebench: internal error: " << e.what() << '\n';
    return 2;
  }
  return 0;
}
