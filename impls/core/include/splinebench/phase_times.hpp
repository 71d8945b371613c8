// Per-phase wall times of one prepare/evaluate cycle. Implementations record the
// phases they have; the harness aggregates repetitions per phase name.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace splinebench {

// Phase names the harness, reports and tables agree on.
namespace phase {
inline constexpr const char* upload = "upload";              // samples host -> device
inline constexpr const char* prefilter = "prefilter";        // samples -> coefficients
inline constexpr const char* bind = "bind";                  // e.g. copy to CUDA array + texture object
inline constexpr const char* query_upload = "query_upload";  // coordinates host -> device
inline constexpr const char* evaluate = "evaluate";          // reconstruction at the queries
inline constexpr const char* download = "download";          // values device -> host
inline constexpr const char* readback = "readback";          // coefficients device -> host
// One axis of the prefilter ("prefilter_axis0", ...), recorded in addition to the total
// `prefilter` by implementations that filter axis by axis (per-axis tables).
inline const char* prefilter_axis(int axis) {
  static constexpr const char* names[] = {"prefilter_axis0", "prefilter_axis1", "prefilter_axis2",
                                          "prefilter_axis3", "prefilter_axis4", "prefilter_axis5"};
  return axis >= 0 && axis < 6 ? names[axis] : "prefilter_axis?";
}
}  // namespace phase

class PhaseTimes {
 public:
  // Adds `seconds` to `name` (a phase may be recorded in pieces).
  void add(const std::string& name, double seconds);
  // Seconds recorded for `name`, or 0 when never recorded.
  double get(const std::string& name) const;
  bool has(const std::string& name) const;
  const std::vector<std::pair<std::string, double>>& entries() const { return entries_; }
  void clear() { entries_.clear(); }

 private:
  std::vector<std::pair<std::string, double>> entries_;
};

// Host wall clock for CPU implementations: times the scope it lives in.
class ScopedPhase {
 public:
  ScopedPhase(PhaseTimes& times, const char* name)
      : times_(times), name_(name), start_(std::chrono::steady_clock::now()) {}
  ~ScopedPhase() {
    const auto end = std::chrono::steady_clock::now();
    times_.add(name_, std::chrono::duration<double>(end - start_).count());
  }
  ScopedPhase(const ScopedPhase&) = delete;
  ScopedPhase& operator=(const ScopedPhase&) = delete;

 private:
  PhaseTimes& times_;
  const char* name_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace splinebench
