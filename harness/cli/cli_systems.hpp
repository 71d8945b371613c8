// The systems `splinebench run` knows, in the order `splinebench list` shows them:
// grid interpolation always, scattered reconstruction and the 2-D IIR experiment
// (systems/) in every build. A suite names its system ("system", default "grid").
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "splinebench/runner/system.hpp"

namespace splinebench::cli {

const std::vector<runner::SystemPtr>& systems();
// The system called `name`; the error lists the systems.
const runner::System& system_named(const std::string& name, const std::string& origin);
// The run of `suite` with run.json's `options` (a resume's, or a merge's unsharded plan).
std::unique_ptr<runner::SystemRun> replan(const nlohmann::json& suite, const std::string& origin,
                                          const nlohmann::json& options);

}  // namespace splinebench::cli
