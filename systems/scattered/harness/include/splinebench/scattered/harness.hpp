// Scattered reconstruction (seed 003) as a system of the one harness: suites whose
// "system" is "scattered" (harness/suites/scattered*.json; format in
// systems/scattered/README.md), run by `splinebench run`, one record per case in the
// common envelope with the system's own fields.
#pragma once

#include "splinebench/runner/system.hpp"

namespace splinebench::scattered {

runner::SystemPtr make_scattered_system();

}  // namespace splinebench::scattered
