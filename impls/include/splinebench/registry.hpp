// The list of implementations. Adding one is a folder under impls/ plus one line in
// impls/registry.def.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "splinebench/implementation.hpp"

namespace splinebench {

struct RegistryEntry {
  std::string name;
  Device device;
  ImplementationPtr (*make)();
  // Registered only in test builds (SPLINEBENCH_TEST_IMPLS); suites' "all"/"cpu"/"gpu"
  // selectors skip it, naming it selects it.
  bool test_only = false;
};

const std::vector<RegistryEntry>& registry();
std::vector<std::string> implementation_names();
// Throws splinebench::Error listing the known names when `name` is unknown.
ImplementationPtr make_implementation(std::string_view name);

}  // namespace splinebench
