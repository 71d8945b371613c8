// An implementation that lives in another runtime: a long-lived adapter process
// (adapter_process.hpp) does the work and times it; this class writes the arrays into
// shared files, sends one request per phase, and hands outputs and phase times to the
// harness, which checks them against the oracle like any record. `scipy` and `cupy`
// (peers.cpp) are two instances.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "adapter_process.hpp"
#include "shared_file.hpp"
#include "splinebench/implementation.hpp"

namespace splinebench::external {

// What differs between the libraries behind the adapter.
struct PeerSpec {
  std::string name;         // registry name and the adapter's --library
  Device device = Device::cpu;
  std::string description;
  std::string evaluation;   // Implementation::evaluation()
  std::string arithmetic;   // Capabilities::arithmetic
  std::string tolerance_basis;  // prefixed to the f32 pass-by-pass basis
  // A documented defect of the library on (shape, mode), or empty (known_defect()).
  std::string (*defect)(const GridShape& shape, Mode mode) = nullptr;
  // Why the library's device is missing here, or "" (null: it needs none).
  std::string (*device_unavailable)() = nullptr;
};

class ExternalImplementation final : public Implementation {
 public:
  explicit ExternalImplementation(PeerSpec spec);
  ~ExternalImplementation() override;

  std::string_view name() const override { return spec_.name; }
  std::string_view description() const override { return spec_.description; }
  Capabilities capabilities() const override;
  // Whether the interpreter starts, the library's packages are installed for it and
  // its device is present (peer_probe.hpp: one short Python start per process and
  // interpreter, no import); after the adapter has started, its own hello's verdict.
  Availability availability() const override;
  Tolerance tolerance(const GridShape& shape) const override;
  std::string evaluation() const override { return spec_.evaluation; }
  // The library's and Python's versions, where the Python came from, and the
  // adapter's own cost per request: a null request's round trip (median, quartiles).
  // Starts the adapter; where it cannot run after all, "available=no" and the error.
  std::vector<std::string> run_facts() const override;
  std::string known_defect(const GridShape& shape, Mode mode) const override;

  void prepare(const GridShape& shape, std::int64_t fields, const float* input, Mode mode, bool prefilter,
               PhaseTimes& times) override;
  void read_coefficients(float* out, PhaseTimes& times) override;
  void evaluate(const float* coords, std::int64_t n, float* out, PhaseTimes& times) override;

  bool supports_f64() const override { return true; }
  void prepare_f64(const GridShape& shape, std::int64_t fields, const double* input, Mode mode, bool prefilter,
                   PhaseTimes& times) override;
  void read_coefficients_f64(double* out, PhaseTimes& times) override;
  void evaluate_f64(const double* coords, std::int64_t n, double* out, PhaseTimes& times) override;

  // Ends the case: the adapter frees its data (if it still runs) and may be restarted
  // once more in the next case.
  void release() override;

 private:
  AdapterProcess& process() const;
  // The adapter that holds this case's prepared data; throws when it has ended since.
  AdapterProcess& prepared_process();
  template <typename T>
  void prepare_as(const GridShape& shape, std::int64_t fields, const T* input, Mode mode, bool prefilter,
                  PhaseTimes& times);
  template <typename T>
  void read_coefficients_as(T* out, PhaseTimes& times);
  template <typename T>
  void evaluate_as(const T* coords, std::int64_t n, T* out, PhaseTimes& times);

  PeerSpec spec_;
  // The adapter, started on first use. One that died (killed, crashed, timed out) is
  // started again once per case (between two release() calls); a second death in the
  // same case is an error.
  mutable std::unique_ptr<AdapterProcess> process_;
  mutable bool started_once_ = false;
  mutable bool restarted_in_case_ = false;
  mutable nlohmann::json hello_;  // the adapter's hello: versions, device, timer
  // What the last prepare sent (the adapter keeps the coefficients).
  GridShape shape_{};
  std::int64_t fields_ = 0;
  std::size_t value_bytes_ = 0;  // 4 or 8; 0 before any prepare
  SharedFile input_, coefficients_, coords_, values_;
};

// Seconds the adapter reported per phase ({"phases": {"prefilter": s, ...}}), added to `times`.
void add_phases(const nlohmann::json& answer, PhaseTimes& times);

}  // namespace splinebench::external
