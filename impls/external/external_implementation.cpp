#include "external_implementation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <sstream>

#include "peer_probe.hpp"
#include "splinebench/error.hpp"
#include "splinebench/f32_accuracy.hpp"

namespace splinebench::external {
namespace {

const char* dtype_name(std::size_t bytes) { return bytes == 8 ? "f64" : "f32"; }

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(at);
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (at - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(digits);
  s << v;
  return s.str();
}

}  // namespace

void add_phases(const nlohmann::json& answer, PhaseTimes& times) {
  const auto phases = answer.find("phases");
  if (phases == answer.end() || !phases->is_object()) throw Error("adapter answer without \"phases\"");
  for (const auto& [name, seconds] : phases->items()) {
    if (!seconds.is_number() || !(seconds.get<double>() >= 0))
      throw Error("adapter phase '" + name + "' is not a non-negative number: " + seconds.dump());
    times.add(name, seconds.get<double>());
  }
}

ExternalImplementation::ExternalImplementation(PeerSpec spec) : spec_(std::move(spec)) {}

ExternalImplementation::~ExternalImplementation() = default;

Capabilities ExternalImplementation::capabilities() const {
  Capabilities caps;
  caps.device = spec_.device;
  caps.arithmetic = spec_.arithmetic;
  return caps;
}

Availability ExternalImplementation::availability() const {
  return probe_library(locate_adapter(spec_.name), spec_.device_unavailable);
}

Tolerance ExternalImplementation::tolerance(const GridShape& shape) const {
  Tolerance t = f32_accuracy::pass_by_pass_tolerance(shape);
  t.basis = spec_.tolerance_basis + "; " + t.basis;
  return t;
}

std::string ExternalImplementation::known_defect(const GridShape& shape, Mode mode) const {
  return spec_.defect ? spec_.defect(shape, mode) : std::string();
}

AdapterProcess& ExternalImplementation::process() const {
  if (process_ && !process_->alive()) process_.reset();
  if (!process_ && started_once_) {
    if (restarted_in_case_)
      throw Error(spec_.name + ": the adapter died again in this case after one restart; not restarted twice");
    restarted_in_case_ = true;
  }
  if (!process_) {
    const Availability avail = availability();
    if (!avail.ok) throw Unsupported(spec_.name + ": " + avail.reason);
    const AdapterCommand command = locate_adapter(spec_.name);
    auto started = std::make_unique<AdapterProcess>(command);
    // The import and the device as the library itself sees them. The probe found the
    // packages, so a library that then does not import or finds no device is an error
    // (a broken installation), not a case to skip; later asks in this process get
    // the adapter's reason.
    nlohmann::json hello = started->request({{"op", "hello"}});
    if (!hello.value("available", false)) {
      const std::string reason = hello.value("reason", std::string("the adapter says it cannot run")) +
                                 " (Python: " + command.python + ", " + command.python_source + ")";
      record_hello(command, {false, "not available: " + reason});
      throw Error(spec_.name + ": the probe found its packages, but the adapter cannot run it: " + reason);
    }
    record_hello(command, {});
    hello_ = std::move(hello);
    process_ = std::move(started);
    started_once_ = true;
  }
  return *process_;
}

AdapterProcess& ExternalImplementation::prepared_process() {
  if (!process_ || !process_->alive()) {
    process_.reset();
    value_bytes_ = 0;
    throw Error(spec_.name + ": the adapter ended since this case's prepare (killed or crashed); its prepared data "
                "is gone, and a new adapter starts with the next prepare");
  }
  return *process_;
}

std::vector<std::string> ExternalImplementation::run_facts() const {
  if (!availability().ok) return {"available=no"};
  std::vector<std::string> facts;
  AdapterProcess* started = nullptr;
  try {
    started = &process();
  } catch (const std::exception& e) {
    // The run goes on without this implementation: its cases then skip with the
    // adapter's reason (availability() now reports it).
    return {"available=no", std::string("adapter_error=") + e.what()};
  }
  AdapterProcess& adapter = *started;
  facts.push_back("python=" + hello_.value("python", std::string("?")) + " (" + adapter.command().python + ", " +
                  adapter.command().python_source + ")");
  const nlohmann::json versions = hello_.value("versions", nlohmann::json::object());
  for (const auto& [package, version] : versions.items())
    facts.push_back(package + "=" + (version.is_string() ? version.get<std::string>() : version.dump()));
  if (hello_.contains("gpu")) facts.push_back("gpu=" + hello_["gpu"].get<std::string>());
  facts.push_back("timer=" + hello_.value("timer", std::string("?")));
  // The adapter's own cost per request, outside every timed phase: the round trip of a
  // request that does nothing (JSON both ways, the socket, the Python loop).
  constexpr int kWarmups = 20, kCalls = 200;
  std::vector<double> us;
  for (int i = 0; i < kWarmups + kCalls; ++i) {
    const auto start = std::chrono::steady_clock::now();
    adapter.request({{"op", "null"}});
    const auto end = std::chrono::steady_clock::now();
    if (i >= kWarmups) us.push_back(std::chrono::duration<double, std::micro>(end - start).count());
  }
  facts.push_back("adapter_null_request_us=median " + fixed(quantile(us, 0.5), 1) + ", q1 " +
                  fixed(quantile(us, 0.25), 1) + ", q3 " + fixed(quantile(us, 0.75), 1) + " (" +
                  std::to_string(kCalls) + " calls)");
  return facts;
}

template <typename T>
void ExternalImplementation::prepare_as(const GridShape& shape, std::int64_t fields, const T* input, Mode mode,
                                        bool prefilter, PhaseTimes& times) {
  shape.validate();
  if (fields < 1) throw Error(spec_.name + ": fields must be >= 1");
  AdapterProcess& adapter = process();
  const std::size_t count = static_cast<std::size_t>(shape.values() * fields);
  ensure_size(input_, spec_.name + "-input", count * sizeof(T));
  std::memcpy(input_.data(), input, count * sizeof(T));
  value_bytes_ = 0;  // nothing prepared until the adapter says so
  // Work: each sample filtered along each axis, plus the copies in and out.
  const double work = static_cast<double>(count) * (shape.dims + 2);
  const auto answer = adapter.request({{"op", "prepare"},
                                       {"shape", shape.extents()},
                                       {"fields", fields},
                                       {"channels", shape.channels},
                                       {"dtype", dtype_name(sizeof(T))},
                                       {"mode", std::string(to_string(mode))},
                                       {"prefilter", prefilter},
                                       {"input", input_.path()}},
                                      work);
  add_phases(answer, times);
  shape_ = shape;
  fields_ = fields;
  value_bytes_ = sizeof(T);
}

template <typename T>
void ExternalImplementation::read_coefficients_as(T* out, PhaseTimes& times) {
  if (value_bytes_ != sizeof(T)) throw Error(spec_.name + ": read_coefficients without a matching prepare");
  const std::size_t count = static_cast<std::size_t>(shape_.values() * fields_);
  ensure_size(coefficients_, spec_.name + "-coefficients", count * sizeof(T));
  add_phases(prepared_process().request({{"op", "read_coefficients"}, {"output", coefficients_.path()}},
                               static_cast<double>(count)),
             times);
  std::memcpy(out, coefficients_.data(), count * sizeof(T));
}

template <typename T>
void ExternalImplementation::evaluate_as(const T* coords, std::int64_t n, T* out, PhaseTimes& times) {
  if (value_bytes_ != sizeof(T)) throw Error(spec_.name + ": evaluate without a matching prepare");
  if (n < 0) throw Error(spec_.name + ": query count must be >= 0");
  const std::size_t in_count = static_cast<std::size_t>(n) * shape_.dims;
  const std::size_t out_count = static_cast<std::size_t>(n * fields_ * shape_.channels);
  ensure_size(coords_, spec_.name + "-coords", in_count * sizeof(T));
  ensure_size(values_, spec_.name + "-values", out_count * sizeof(T));
  std::memcpy(coords_.data(), coords, in_count * sizeof(T));
  // Work: 4^D taps per value, plus reading the coordinates.
  const double work = static_cast<double>(out_count) * std::pow(4.0, shape_.dims) + static_cast<double>(in_count);
  add_phases(prepared_process().request({{"op", "evaluate"}, {"coords", coords_.path()}, {"n", n},
                                {"output", values_.path()}},
                               work),
             times);
  std::memcpy(out, values_.data(), out_count * sizeof(T));
}

void ExternalImplementation::prepare(const GridShape& shape, std::int64_t fields, const float* input, Mode mode,
                                     bool prefilter, PhaseTimes& times) {
  prepare_as(shape, fields, input, mode, prefilter, times);
}
void ExternalImplementation::read_coefficients(float* out, PhaseTimes& times) { read_coefficients_as(out, times); }
void ExternalImplementation::evaluate(const float* coords, std::int64_t n, float* out, PhaseTimes& times) {
  evaluate_as(coords, n, out, times);
}
void ExternalImplementation::prepare_f64(const GridShape& shape, std::int64_t fields, const double* input, Mode mode,
                                         bool prefilter, PhaseTimes& times) {
  prepare_as(shape, fields, input, mode, prefilter, times);
}
void ExternalImplementation::read_coefficients_f64(double* out, PhaseTimes& times) {
  read_coefficients_as(out, times);
}
void ExternalImplementation::evaluate_f64(const double* coords, std::int64_t n, double* out, PhaseTimes& times) {
  evaluate_as(coords, n, out, times);
}

void ExternalImplementation::release() {
  restarted_in_case_ = false;
  value_bytes_ = 0;
  input_ = SharedFile();
  coefficients_ = SharedFile();
  coords_ = SharedFile();
  values_ = SharedFile();
  if (process_ && process_->alive()) process_->request({{"op", "release"}});
}

}  // namespace splinebench::external
