// The scheme registry (schemes.def) as the rest of the code reads it.
#include "splinebench/error.hpp"
#include "splinebench/iir2d/gpu.hpp"
#include "splinebench/iir2d/reference.hpp"

namespace splinebench::iir2d {

const std::vector<SchemeInfo>& scheme_registry() {
  static const std::vector<SchemeInfo> r{
#define SPLINEBENCH_IIR2D_SCHEME(name, launch, tile, model, deterministic, any_m, shapes, tolerance, emulation) \
  {Scheme::name, #name, Launch::launch, tile, model, deterministic, any_m, shapes, &tolerance, &emulation},
#include "splinebench/iir2d/schemes.def"
#undef SPLINEBENCH_IIR2D_SCHEME
  };
  return r;
}

const SchemeInfo& scheme_info(Scheme s) {
  for (const SchemeInfo& i : scheme_registry())
    if (i.scheme == s) return i;
  throw Error("iir2d: scheme " + std::to_string(static_cast<int>(s)) + " is not in schemes.def");
}

const std::vector<Scheme>& all_schemes() {
  static const std::vector<Scheme> all = [] {
    std::vector<Scheme> v;
    for (const SchemeInfo& i : scheme_registry()) v.push_back(i.scheme);
    return v;
  }();
  return all;
}

std::vector<Scheme> schemes_with(Launch launch) {
  std::vector<Scheme> v;
  for (const SchemeInfo& i : scheme_registry())
    if (i.launch == launch) v.push_back(i.scheme);
  return v;
}

const char* scheme_name(Scheme s) { return scheme_info(s).name; }

std::string scheme_names() {
  std::string names;
  for (const SchemeInfo& i : scheme_registry()) names += (names.empty() ? "" : ", ") + std::string(i.name);
  return names;
}

Scheme parse_scheme(const std::string& name) {
  for (const SchemeInfo& i : scheme_registry())
    if (name == i.name) return i.scheme;
  throw Error("iir2d: unknown scheme '" + name + "' (schemes: " + scheme_names() + ")");
}

}  // namespace splinebench::iir2d
