// Vocabulary shared by every part of splinebench: boundary modes, devices, and the
// shape of a batch of sampled fields. Conventions: ../../docs in README ("Conventions").
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace splinebench {

// Largest dimensionality any implementation may be asked for.
inline constexpr int kMaxDims = 6;

// Boundary extension of the samples (and, identically, of the coefficients).
//   mirror   : whole-sample symmetric, f[-k] = f[k]        (SciPy 'mirror')
//   half     : half-sample symmetric,  f[-1-k] = f[k]      (SciPy 'reflect'/'grid-mirror')
//   periodic : f[k + N] = f[k]                              (SciPy 'grid-wrap')
enum class Mode { mirror, half, periodic };
inline constexpr std::array<Mode, 3> kAllModes{Mode::mirror, Mode::half, Mode::periodic};

std::string_view to_string(Mode mode);
std::optional<Mode> parse_mode(std::string_view text);

enum class Device { cpu, gpu };
std::string_view to_string(Device device);

// Shape of one field: `dims` axes in C order (last axis contiguous), each sample a
// vector of `channels` values stored innermost. A batch holds `fields` such fields
// back to back.
struct GridShape {
  int dims = 0;
  std::array<std::int64_t, kMaxDims> extent{};  // extent[0..dims-1]
  int channels = 1;

  static GridShape make(const std::vector<std::int64_t>& extents, int channels = 1);

  std::int64_t points() const;                 // product of extents
  std::int64_t values() const { return points() * channels; }
  // Distance, in values (floats), between neighbours along `axis`.
  std::int64_t stride(int axis) const;
  std::vector<std::int64_t> extents() const;
  std::string to_string() const;  // e.g. "128x128x128" (channels not included)

  // Throws splinebench::Error naming the problem (dims out of [1, kMaxDims], an
  // extent < 1, channels < 1).
  void validate() const;

  friend bool operator==(const GridShape&, const GridShape&) = default;
};

// Extents written as text, joined by 'x' as GridShape::to_string writes them ("64x64",
// "256x128x128", "7"): each a decimal integer >= 1, no sign, no spaces. Throws Error
// naming `what` (the option or field the text came from) and the text otherwise. It does
// not limit the number of axes: GridShape::make(parse_extents(text, "--shape")) does.
std::vector<std::int64_t> parse_extents(std::string_view text, std::string_view what);

}  // namespace splinebench
