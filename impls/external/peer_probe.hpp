// Whether a peer library (`scipy`, `cupy`) can run here, without starting its adapter:
// one short start of the adapter's Python per process and interpreter
// (adapters/python/adapter_probe.py looks the packages up, it imports none), plus the
// device check a GPU peer names. The import, the versions and CuPy's own view of the
// device come later, from the adapter's `hello`, when the implementation is used.
//
// Freshness: verdicts live in this process's memory only (never a file), so none is
// older than the process asking. Once an adapter of a library has started, its hello
// replaces the probe's verdict for that library and interpreter for the rest of the
// process (record_hello). A probe that says "available" wrongly (a package that is
// found but does not import) makes the first use fail as an error, never pass or skip.
#pragma once

#include <string>

#include "adapter_process.hpp"
#include "splinebench/implementation.hpp"

namespace splinebench::external {

// The probe script beside the adapter: <dir of command.script>/adapter_probe.py.
std::string probe_script_for(const AdapterCommand& command);

// The verdict for command.library under command.python, reason prefixed "not available: ".
// `device_unavailable` (may be null) says why the library's device is missing, or "".
Availability probe_library(const AdapterCommand& command, std::string (*device_unavailable)());

// The adapter's hello for command.library: from now on the verdict in this process.
void record_hello(const AdapterCommand& command, const Availability& verdict);

}  // namespace splinebench::external
