#include "measurement.hpp"

#include "benchmark.hpp"

namespace splinebench::bench {

std::string_view to_string(L2State state) {
  switch (state) {
    case L2State::hot: return "hot";
    case L2State::cold: return "cold";
    case L2State::clean: return "clean";
  }
  return "?";
}

std::optional<L2State> parse_l2_state(std::string_view text) {
  for (L2State s : {L2State::hot, L2State::cold, L2State::clean})
    if (text == to_string(s)) return s;
  return std::nullopt;
}

nlohmann::json to_json(const TimingSettings& s) {
  return {{"warmups", s.warmups},
          {"repetitions", s.repetitions},
          {"hold_us", s.hold_us},
          {"method",
           "CUDA events around the region only; a blocking kernel of hold_us ahead of each start event hides the "
           "host's enqueue; statistics over the repetitions after the warm-ups (quantiles: linear interpolation, "
           "as NumPy)"},
          {"l2_states",
           {{"hot", "right after the previous timed run"},
            {"cold", "after a memset of max(256 MiB, 4 x L2) bytes: L2 full of dirty lines of zeros"},
            {"clean", "after reading max(256 MiB, 4 x L2) bytes that nothing writes: L2 full of clean lines"}}}};
}

nlohmann::json to_json(const Measurement& m) {
  nlohmann::json j = stats_json(m.gpu);
  j["host_enqueue_median"] = m.enqueue.median;
  j["enqueue_outlasted_hold"] = m.enqueue_outlasted_hold;
  return j;
}

}  // namespace splinebench::bench
