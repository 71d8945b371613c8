#include "splinebench/error.hpp"

namespace splinebench {

void fail(const std::string& what) { throw Error(what); }

}  // namespace splinebench
