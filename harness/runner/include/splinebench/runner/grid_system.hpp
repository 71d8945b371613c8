// The grid-interpolation system: the implementations of impls/ (registry.def) on the
// suites of harness/suites/ whose "system" is "grid" (the default).
#pragma once

#include "splinebench/runner/system.hpp"

namespace splinebench::runner {

SystemPtr make_grid_system();

}  // namespace splinebench::runner
