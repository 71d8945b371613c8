#include "splinebench/phase_times.hpp"

namespace splinebench {

void PhaseTimes::add(const std::string& name, double seconds) {
  for (auto& [n, s] : entries_)
    if (n == name) {
      s += seconds;
      return;
    }
  entries_.emplace_back(name, seconds);
}

double PhaseTimes::get(const std::string& name) const {
  for (const auto& [n, s] : entries_)
    if (n == name) return s;
  return 0.0;
}

bool PhaseTimes::has(const std::string& name) const {
  for (const auto& [n, s] : entries_)
    if (n == name) return true;
  return false;
}

}  // namespace splinebench
