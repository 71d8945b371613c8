// Defaults of the optional double-precision interface: an implementation without an
// f64 path says so by name instead of silently rounding through float32.
#include "splinebench/implementation.hpp"

#include "splinebench/error.hpp"

namespace splinebench {
namespace {

[[noreturn]] void no_f64_path(const Implementation& impl) {
  throw Error(std::string(impl.name()) + ": no f64 path (computes in " + impl.capabilities().arithmetic +
              "); implementations with one: reference, gpu_f64");
}

}  // namespace

void Implementation::prepare_f64(const GridShape&, std::int64_t, const double*, Mode, bool, PhaseTimes&) {
  no_f64_path(*this);
}

void Implementation::read_coefficients_f64(double*, PhaseTimes&) { no_f64_path(*this); }

void Implementation::evaluate_f64(const double*, std::int64_t, double*, PhaseTimes&) { no_f64_path(*this); }

void DeviceArrays::prefilter_device(const GridShape&, std::int64_t, Mode, const double*, double*, const DeviceCall&) {
  throw Error("this implementation takes float32 device arrays only");
}

void DeviceArrays::evaluate_device(const GridShape&, std::int64_t, Mode, const double*, const double*, std::int64_t,
                                   double*, const DeviceCall&) {
  throw Error("this implementation takes float32 device arrays only");
}

}  // namespace splinebench
