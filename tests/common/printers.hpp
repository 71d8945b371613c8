// GoogleTest printers for the core's value types, so that a parameterized test prints
// its parameters as "mirror" or "noise" (in ctest's list and in failure messages), not
// as "4-byte object <00-00 00-00>". GoogleTest finds a PrintTo by argument-dependent
// lookup, so each is declared in its type's namespace; a test file whose parameters
// hold these types includes this header.
#pragma once

#include <ostream>

#include "splinebench/datasets.hpp"
#include "splinebench/types.hpp"

namespace splinebench {

inline void PrintTo(Mode mode, std::ostream* os) { *os << to_string(mode); }

inline void PrintTo(const GridShape& shape, std::ostream* os) {
  *os << shape.to_string() << " C" << shape.channels;
}

namespace datasets {

inline void PrintTo(FieldKind kind, std::ostream* os) { *os << to_string(kind); }
inline void PrintTo(QueryPattern pattern, std::ostream* os) { *os << to_string(pattern); }

}  // namespace datasets
}  // namespace splinebench
