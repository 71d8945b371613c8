// The 2-D IIR experiment as a system of the one harness (runner/system.hpp): suites
// with "system": "iir2d" (harness/suites/iir2d.json), the schemes of schemes.def as its
// entries, every case checked against the f64 oracle within the scheme's stated bound.
// Usage, the suite format and the record: systems/iir2d/README.md.
#pragma once

#include "splinebench/runner/system.hpp"

namespace splinebench::iir2d {

// The pseudo-entry of the empty launch chains (the fixed scheme's floor): not a scheme,
// but selectable with --impl like one; its records have "kind": "launch_floor".
inline constexpr const char* kLaunchFloor = "launch_floor";

runner::SystemPtr make_iir2d_system();

}  // namespace splinebench::iir2d
