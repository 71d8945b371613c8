// The systems `splinebench run` knows, in the order `splinebench list` shows them:
// grid interpolation always, scattered reconstruction and the 2-D IIR experiment
// (systems/) in every build. A suite names its system ("system", default "grid").
#pragma once

#include <string>
#include <vector>

#include "splinebench/runner/system.hpp"

namespace splinebench::cli {

const std::vector<runner::SystemPtr>& systems();
// The system called `name`; the error lists the systems.
const runner::System& system_named(const std::string& name, const std::string& origin);

}  // namespace splinebench::cli
