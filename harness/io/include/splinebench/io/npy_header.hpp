// The .npy header: magic, version, and the Python-literal dict
// {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }. Split from npy.hpp so
// tests can feed the parser and the dtype rules hand-made headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace splinebench::npy {

// The six bytes every .npy file starts with.
inline constexpr std::string_view kMagic{"\x93NUMPY", 6};

// Largest header dict accepted, in bytes. NumPy refuses longer headers by default
// (`max_header_size`, 10000) because parsing them is not known to be safe; an array
// of at most a few axes needs about 128 bytes, so a longer one means a corrupt file.
inline constexpr std::size_t kMaxHeaderBytes = 10000;

struct Header {
  int version_major = 1;
  int version_minor = 0;
  std::string descr;
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
  std::size_t data_offset = 0;  // bytes before the data (magic + length field + dict)
};

// Element types the reader accepts (file byte order little-endian or, for one byte,
// irrelevant).
enum class ElementType { f4, f8, i1, i2, i4, i8, u1, u2, u4, u8 };

std::size_t element_size(ElementType type);
bool is_integer(ElementType type);

// Maps a descr string to an element type, or throws splinebench::Error naming the
// dtype and why it is refused (big-endian, complex, bool, object, string, ...).
ElementType parse_descr(std::string_view descr);

// Length of the preamble (magic + version + length field) for a format version, or
// throws for versions other than 1.0, 2.0, 3.0.
std::size_t preamble_size(int major, int minor);

// Parses the preamble of `prefix` (at least preamble bytes) and returns the version
// and the dict length. Throws on a bad magic string or version, or a dict longer
// than kMaxHeaderBytes.
struct Preamble {
  int major = 0;
  int minor = 0;
  std::size_t dict_length = 0;
  std::size_t size = 0;  // bytes of the preamble itself
};
Preamble parse_preamble(std::string_view prefix);

// Parses the header dict text (the bytes after the preamble). Throws
// splinebench::Error on anything that is not exactly the three keys with values of
// the right types. The descr is returned as written (checked by parse_descr).
void parse_dict(std::string_view text, Header& header);

// The full header (preamble + dict + padding + '\n') for a C-order array, padded so
// the data starts on a 64-byte boundary as NumPy does. Version 1.0 unless the dict
// needs more than 65535 bytes.
std::string format_header(std::string_view descr, const std::vector<std::int64_t>& shape);

}  // namespace splinebench::npy
