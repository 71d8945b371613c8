#include "splinebench/registry.hpp"

#include <sstream>

#include "splinebench/error.hpp"
#include "unbuilt.hpp"

namespace splinebench::impls {
#define SPLINEBENCH_CPU_IMPL(name) ImplementationPtr make_##name();
#if SPLINEBENCH_WITH_CUDA
#define SPLINEBENCH_GPU_IMPL(name) ImplementationPtr make_##name();
#else
#define SPLINEBENCH_GPU_IMPL(name)
#endif
#if SPLINEBENCH_WITH_TEST_IMPLS
#define SPLINEBENCH_TEST_IMPL(name) ImplementationPtr make_##name();
#else
#define SPLINEBENCH_TEST_IMPL(name)
#endif
#include "registry.def"
#undef SPLINEBENCH_CPU_IMPL
#undef SPLINEBENCH_GPU_IMPL
#undef SPLINEBENCH_TEST_IMPL
}  // namespace splinebench::impls

namespace splinebench {

const std::vector<RegistryEntry>& registry() {
  static const std::vector<RegistryEntry> entries = {
#define SPLINEBENCH_CPU_IMPL(name) {#name, Device::cpu, &impls::make_##name},
#if SPLINEBENCH_WITH_CUDA
#define SPLINEBENCH_GPU_IMPL(name) {#name, Device::gpu, &impls::make_##name},
#else
#define SPLINEBENCH_GPU_IMPL(name) \
  {#name, Device::gpu, [] { return impls::make_unbuilt(#name, Device::gpu, "not built: no CUDA compiler at configure time"); }},
#endif
// Test-only implementations run on the CPU and are absent from product builds.
#if SPLINEBENCH_WITH_TEST_IMPLS
#define SPLINEBENCH_TEST_IMPL(name) {#name, Device::cpu, &impls::make_##name, true},
#else
#define SPLINEBENCH_TEST_IMPL(name)
#endif
#include "registry.def"
#undef SPLINEBENCH_CPU_IMPL
#undef SPLINEBENCH_GPU_IMPL
#undef SPLINEBENCH_TEST_IMPL
  };
  return entries;
}

std::vector<std::string> implementation_names() {
  std::vector<std::string> names;
  for (const auto& e : registry()) names.push_back(e.name);
  return names;
}

ImplementationPtr make_implementation(std::string_view name) {
  for (const auto& e : registry())
    if (e.name == name) return e.make();
  std::ostringstream msg;
  msg << "unknown implementation '" << name << "'; known:";
  for (const auto& e : registry()) msg << ' ' << e.name;
  throw Error(msg.str());
}

}  // namespace splinebench
