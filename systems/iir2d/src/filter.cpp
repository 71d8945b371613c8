#include "splinebench/iir2d/filter.hpp"

#include <cmath>
#include <sstream>

#include "splinebench/error.hpp"

namespace splinebench::iir2d {

double Window::abs_sum() const {
  double s = 0;
  for (float v : b) s += std::fabs(static_cast<double>(v));
  return s;
}

Quadrant parse_quadrant(const std::string& name) {
  if (name == "++") return Quadrant::pp;
  if (name == "+-") return Quadrant::pm;
  if (name == "-+") return Quadrant::mp;
  if (name == "--") return Quadrant::mm;
  throw Error("iir2d: unknown quadrant '" + name + "' (expected ++, +-, -+ or --)");
}

const char* quadrant_name(Quadrant q) {
  switch (q) {
    case Quadrant::pp: return "++";
    case Quadrant::pm: return "+-";
    case Quadrant::mp: return "-+";
    case Quadrant::mm: return "--";
  }
  return "?";
}

Validation validate(const Shape& shape, const Window& window) {
  if (shape.rows <= 0 || shape.cols <= 0) {
    std::ostringstream m;
    m << "iir2d: empty image (" << shape.rows << " x " << shape.cols << "); both extents must be >= 1";
    throw Error(m.str());
  }
  if (window.M < 1 || window.M > kMaxWindow)
    throw Error("iir2d: window size M = " + std::to_string(window.M) + " is outside [1, " +
                std::to_string(kMaxWindow) + "]");
  const std::size_t want = static_cast<std::size_t>(window.M) * static_cast<std::size_t>(window.M);
  if (window.b.size() != want)
    throw Error("iir2d: b has " + std::to_string(window.b.size()) + " coefficients, M x M = " +
                std::to_string(want) + " expected");
  for (int k = 0; k < window.M; ++k)
    for (int l = 0; l < window.M; ++l)
      if (!std::isfinite(window.at(k, l)))
        throw Error("iir2d: coefficient b(" + std::to_string(k) + ", " + std::to_string(l) + ") is not finite");
  if (window.at(0, 0) != 0.0f)
    throw Error("iir2d: b(0, 0) must be 0 (a non-zero b(0, 0) makes y(i, j) depend on itself)");
  Validation v;
  v.gain = window.abs_sum();
  if (v.gain >= 1.0) {
    v.possibly_unstable = true;
    std::ostringstream m;
    m << "sum |b| = " << v.gain << " >= 1: the filter may be unstable (output can grow without bound)";
    v.warning = m.str();
  }
  return v;
}

const char* status_name(Status s) { return s == Status::ok ? "ok" : "unstable"; }

template <typename T>
static Status status_of(const T* y, std::int64_t count) {
  for (std::int64_t n = 0; n < count; ++n)
    if (!std::isfinite(y[n])) return Status::unstable;
  return Status::ok;
}
Status output_status(const float* y, std::int64_t count) { return status_of(y, count); }
Status output_status(const double* y, std::int64_t count) { return status_of(y, count); }

}  // namespace splinebench::iir2d
