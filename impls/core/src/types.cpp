#include "splinebench/types.hpp"

#include <algorithm>
#include <charconv>
#include <sstream>

#include "splinebench/error.hpp"
#include "splinebench/implementation.hpp"

namespace splinebench {

std::string_view to_string(Mode mode) {
  switch (mode) {
    case Mode::mirror: return "mirror";
    case Mode::half: return "half";
    case Mode::periodic: return "periodic";
  }
  return "?";
}

std::optional<Mode> parse_mode(std::string_view text) {
  for (Mode m : kAllModes)
    if (to_string(m) == text) return m;
  return std::nullopt;
}

std::string_view to_string(Device device) { return device == Device::cpu ? "cpu" : "gpu"; }

GridShape GridShape::make(const std::vector<std::int64_t>& extents, int channels) {
  GridShape s;
  s.dims = static_cast<int>(extents.size());
  s.channels = channels;
  for (int d = 0; d < s.dims && d < kMaxDims; ++d) s.extent[d] = extents[d];
  s.validate();
  return s;
}

std::int64_t GridShape::points() const {
  std::int64_t p = 1;
  for (int d = 0; d < dims; ++d) p *= extent[d];
  return p;
}

std::int64_t GridShape::stride(int axis) const {
  std::int64_t s = channels;
  for (int d = dims - 1; d > axis; --d) s *= extent[d];
  return s;
}

std::vector<std::int64_t> GridShape::extents() const {
  return {extent.begin(), extent.begin() + dims};
}

std::string GridShape::to_string() const {
  std::ostringstream out;
  for (int d = 0; d < dims; ++d) out << (d ? "x" : "") << extent[d];
  return out.str();
}

std::vector<std::int64_t> parse_extents(std::string_view text, std::string_view what) {
  const auto refuse = [&] {
    throw Error(std::string(what) + " must be integers >= 1 joined by 'x' (e.g. 64x64); got '" +
                std::string(text) + "'");
  };
  std::vector<std::int64_t> extents;
  std::size_t at = 0;
  for (;;) {
    const std::size_t x = std::min(text.find('x', at), text.size());
    const std::string_view part = text.substr(at, x - at);
    // from_chars alone would take a leading '-' and say nothing of a '+': digits only.
    if (part.empty() || part.find_first_not_of("0123456789") != std::string_view::npos) refuse();
    std::int64_t value = 0;
    const auto [end, err] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (err != std::errc() || end != part.data() + part.size() || value < 1) refuse();  // out of range, or 0
    extents.push_back(value);
    if (x == text.size()) return extents;
    at = x + 1;
  }
}

void GridShape::validate() const {
  if (dims < 1 || dims > kMaxDims) {
    std::ostringstream msg;
    msg << "number of dimensions must be in [1, " << kMaxDims << "], got " << dims;
    throw Error(msg.str());
  }
  for (int d = 0; d < dims; ++d)
    if (extent[d] < 1) {
      std::ostringstream msg;
      msg << "axis " << d << " has length " << extent[d] << "; every axis needs at least 1 sample";
      throw Error(msg.str());
    }
  if (channels < 1) throw Error("channels must be >= 1, got " + std::to_string(channels));
}

// Answered without building the message: every call of an implementation asks it.
bool Capabilities::supports(int dims, int ch, Mode mode) const {
  return dims >= min_dims && dims <= max_dims && std::find(channels.begin(), channels.end(), ch) != channels.end() &&
         std::find(modes.begin(), modes.end(), mode) != modes.end();
}

std::string Capabilities::why_not(int dims, int ch, Mode mode) const {
  if (supports(dims, ch, mode)) return {};
  std::ostringstream msg;
  if (dims < min_dims || dims > max_dims)
    msg << "D=" << dims << " outside [" << min_dims << ", " << max_dims << "]";
  else if (std::find(channels.begin(), channels.end(), ch) == channels.end())
    msg << "channels=" << ch << " not supported";
  else if (std::find(modes.begin(), modes.end(), mode) == modes.end())
    msg << "mode " << to_string(mode) << " not supported";
  return msg.str();
}

}  // namespace splinebench
