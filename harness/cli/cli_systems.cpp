#include "cli_systems.hpp"

#include "cli_suite_of_suites.hpp"
#include "splinebench/error.hpp"
#include "splinebench/runner/grid_system.hpp"
#if SPLINEBENCH_WITH_SCATTERED
#include "splinebench/scattered/harness.hpp"
#endif
#if SPLINEBENCH_WITH_IIR2D
#include "splinebench/iir2d/harness.hpp"
#endif

namespace splinebench::cli {

const std::vector<runner::SystemPtr>& systems() {
  static const std::vector<runner::SystemPtr> all = [] {
    std::vector<runner::SystemPtr> v;
    v.push_back(runner::make_grid_system());
#if SPLINEBENCH_WITH_SCATTERED
    v.push_back(scattered::make_scattered_system());
#endif
#if SPLINEBENCH_WITH_IIR2D
    v.push_back(iir2d::make_iir2d_system());
#endif
    v.push_back(std::make_unique<SuitesSystem>());
    return v;
  }();
  return all;
}

const runner::System& system_named(const std::string& name, const std::string& origin) {
  std::string known;
  for (const auto& s : systems()) {
    if (s->name() == name) return *s;
    known += (known.empty() ? "" : ", ") + s->name();
  }
  throw Error(origin + ": system: unknown system '" + name + "' (known: " + known + ")");
}

std::unique_ptr<runner::SystemRun> replan(const nlohmann::json& suite, const std::string& origin,
                                          const nlohmann::json& options) {
  const runner::RunRequest request = runner::request_from_options(options, origin);
  return system_named(runner::suite_system(suite, origin), origin).prepare(suite, origin, request, options);
}

}  // namespace splinebench::cli
