#include "splinebench/error.hpp"
#include "splinebench/iir2d/gpu.hpp"

namespace splinebench::iir2d {

const char* scheme_name(Scheme s) {
  switch (s) {
    case Scheme::fixed: return "fixed";
    case Scheme::fixed_graph: return "fixed_graph";
    case Scheme::flex_locks: return "flex_locks";
    case Scheme::flex_tiles: return "flex_tiles";
    case Scheme::flex_tiles16: return "flex_tiles16";
  }
  return "?";
}

Scheme parse_scheme(const std::string& name) {
  for (Scheme s : {Scheme::fixed, Scheme::fixed_graph, Scheme::flex_locks, Scheme::flex_tiles, Scheme::flex_tiles16})
    if (name == scheme_name(s)) return s;
  throw Error("iir2d: unknown scheme '" + name + "' (fixed, fixed_graph, flex_locks, flex_tiles, flex_tiles16)");
}

}  // namespace splinebench::iir2d
