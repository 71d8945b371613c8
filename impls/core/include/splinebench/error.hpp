// One exception type for every user-facing error, so the CLI can print its message
// and exit non-zero without a stack of catch clauses.
#pragma once

#include <stdexcept>
#include <string>

namespace splinebench {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

// An implementation that cannot run a case (out of device memory, size over a
// texture limit, ...) throws this; the harness records the case as skipped with the
// message and continues with the next one.
class Unsupported : public Error {
 public:
  explicit Unsupported(const std::string& what) : Error(what) {}
};

[[noreturn]] void fail(const std::string& what);

}  // namespace splinebench
