// The interface every implementation provides. The harness drives it and never
// knows an implementation's internals.
//
// Data layout (shared with the oracle, the datasets and the .npy CLI):
//   samples/coefficients: `fields` fields back to back, each a C-order grid of
//     GridShape::extent with `channels` float32 values per sample stored innermost.
//   coordinates: (D, n) float32, axis-major like scipy.ndimage.map_coordinates:
//     coords[d * n + q] is query q's coordinate along axis d. Sample k sits at k.
//   values: [fields][n][channels] float32.
// Non-finite coordinates give NaN values. Finite coordinates outside [0, N-1] are
// evaluated on the mode's extension of the coefficients.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "splinebench/device_arrays.hpp"
#include "splinebench/phase_times.hpp"
#include "splinebench/types.hpp"

namespace splinebench {

struct Capabilities {
  int min_dims = 1;
  int max_dims = kMaxDims;
  std::vector<int> channels{1, 2, 4};
  std::vector<Mode> modes{kAllModes.begin(), kAllModes.end()};
  Device device = Device::cpu;
  bool field_batches = true;       // several fields in one prepare/evaluate
  std::string arithmetic = "f32";  // precision of the arithmetic (the oracle: "f64")
  bool threads = false;            // honours Options::threads

  bool supports(int dims, int channels, Mode mode) const;
  // Empty when supported; otherwise why not (for `splinebench list` and skips).
  std::string why_not(int dims, int channels, Mode mode) const;
};

// Whether the implementation can run on this machine, and if not, why
// (e.g. "not built: no CUDA compiler", "not available: no CUDA device").
struct Availability {
  bool ok = true;
  std::string reason;
};

// Documented accuracy of an implementation versus the double-precision oracle. A
// record passes when every measured error is within these bounds. `basis` says
// where the numbers come from (a bound, not what happened to pass).
struct Tolerance {
  double prefilter_rel_l2 = 0;       // ||c - c_ref|| / ||c_ref||
  double interp_max_rel_to_maxf = 0; // max |s - s_ref| / max |f|
  std::string basis;
};

// What the harness or CLI asks of an implementation beyond the data itself.
struct Options {
  int threads = 1;  // only for implementations with Capabilities::threads
};

class Implementation {
 public:
  virtual ~Implementation() = default;

  virtual std::string_view name() const = 0;
  virtual std::string_view description() const = 0;
  virtual Capabilities capabilities() const = 0;
  virtual Availability availability() const = 0;
  virtual Tolerance tolerance(const GridShape& shape) const = 0;
  // The evaluation arithmetic, recorded in every record beside the name: how a value is
  // formed from the coefficients, e.g. "f32 taps, global loads", "hardware linear filter
  // (8-bit weights)", "f16 coefficients, f32 taps", "f64 taps". Two implementations with
  // the same string compute the same thing (up to order of operations).
  virtual std::string evaluation() const { return capabilities().arithmetic + " taps"; }
  // Free-form facts for the run context (e.g. {"isa": "AVX2"}), "key=value" each.
  virtual std::vector<std::string> run_facts() const { return {}; }
  // Threads each phase of the last prepare/evaluate ran on, e.g. {{"prefilter", 1},
  // {"evaluate", 2}}: an implementation with Capabilities::threads may use fewer than
  // Options::threads on small work. Empty when it does not say.
  virtual std::vector<std::pair<std::string, int>> threads_used() const { return {}; }

  // A documented defect of the implementation on this case (a peer library's known bug),
  // or empty. Such a case is still run and checked; a failing record names the defect in
  // its message, and the conformance test skips the case saying why.
  virtual std::string known_defect(const GridShape& shape, Mode mode) const {
    (void)shape;
    (void)mode;
    return {};
  }

  virtual void configure(const Options& options) { (void)options; }

  // Takes `fields` fields of `shape` (see layout above). With `prefilter` true the
  // input holds samples and is turned into coefficients; with false it already
  // holds coefficients. Records upload/prefilter/bind phases into `times`. The input
  // buffer is only read; the implementation keeps its own copy.
  virtual void prepare(const GridShape& shape, std::int64_t fields, const float* input,
                       Mode mode, bool prefilter, PhaseTimes& times) = 0;

  // Copies the coefficients of the last prepare into `out` (same layout as input).
  virtual void read_coefficients(float* out, PhaseTimes& times) = 0;

  // Evaluates every prepared field at `n` coordinates; `out` is [fields][n][channels].
  virtual void evaluate(const float* coords, std::int64_t n, float* out,
                        PhaseTimes& times) = 0;

  // The double-precision interface, for implementations that compute in double
  // (supports_f64()): the same contract as prepare / read_coefficients / evaluate with
  // double samples, coefficients, coordinates and values. The default throws
  // splinebench::Error "<name>: no f64 path".
  virtual bool supports_f64() const { return false; }
  virtual void prepare_f64(const GridShape& shape, std::int64_t fields, const double* input, Mode mode,
                           bool prefilter, PhaseTimes& times);
  virtual void read_coefficients_f64(double* out, PhaseTimes& times);
  virtual void evaluate_f64(const double* coords, std::int64_t n, double* out, PhaseTimes& times);

  // Work on arrays already on a CUDA device, on the caller's stream (device_arrays.hpp),
  // or null when the implementation takes host arrays only (every CPU one, and the GPU
  // ones whose evaluation needs storage of their own, such as a texture).
  virtual DeviceArrays* device_arrays() { return nullptr; }

  // Releases device or host buffers held since prepare (the harness calls it between
  // cases so large cases do not stack up).
  virtual void release() {}
};

using ImplementationPtr = std::unique_ptr<Implementation>;

}  // namespace splinebench
