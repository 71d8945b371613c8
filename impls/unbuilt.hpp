// Stand-in for an implementation whose code was not compiled into this binary, so
// `splinebench list` can still show it and say why it cannot run.
#pragma once

#include <string>

#include "splinebench/implementation.hpp"

namespace splinebench::impls {

ImplementationPtr make_unbuilt(std::string name, Device device, std::string reason);

}  // namespace splinebench::impls
