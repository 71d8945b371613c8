#include "splinebench/io/npy_header.hpp"

#include <cctype>
#include <cstring>
#include <limits>
#include <optional>

#include "splinebench/error.hpp"
#include "splinebench/io/npy.hpp"

namespace splinebench::npy {
namespace {

const char* const kSupported = "supported: <f4, <f8, and integer dtypes (converted to float64)";

[[noreturn]] void refuse(std::string_view descr, const std::string& why) {
  throw Error("dtype '" + std::string(descr) + "' (" + why + ") is not supported; " + kSupported);
}

// Reads a little-endian unsigned integer of `bytes` bytes.
std::uint64_t read_le(std::string_view text, std::size_t offset, int bytes) {
  std::uint64_t v = 0;
  for (int b = bytes - 1; b >= 0; --b)
    v = (v << 8) | static_cast<unsigned char>(text[offset + static_cast<std::size_t>(b)]);
  return v;
}

// Recursive-descent parser for the header dict: a Python literal with string keys
// and string / bool / tuple-of-int values. Anything else is an error that says
// where it went wrong.
class DictParser {
 public:
  explicit DictParser(std::string_view text) : text_(text) {}

  void parse(Header& header) {
    skip_space();
    expect('{');
    bool have_descr = false, have_order = false, have_shape = false;
    while (true) {
      skip_space();
      if (peek() == '}') {
        ++pos_;
        break;
      }
      const std::string key = parse_string("a key");
      skip_space();
      expect(':');
      skip_space();
      if (key == "descr") {
        if (have_descr) fail("key 'descr' appears twice");
        have_descr = true;
        if (peek() == '[') {
          // Structured dtypes are written as a list of (name, type) tuples.
          header.descr = take_bracketed('[', ']');
          throw Error("dtype " + header.descr + " (structured) is not supported; " + kSupported);
        }
        header.descr = parse_string("the 'descr' value (a dtype string)");
      } else if (key == "fortran_order") {
        if (have_order) fail("key 'fortran_order' appears twice");
        have_order = true;
        header.fortran_order = parse_bool();
      } else if (key == "shape") {
        if (have_shape) fail("key 'shape' appears twice");
        have_shape = true;
        header.shape = parse_shape();
      } else {
        fail("unexpected key '" + key + "' (expected only 'descr', 'fortran_order', 'shape')");
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
      } else if (peek() != '}') {
        fail("expected ',' or '}'");
      }
    }
    // NumPy pads the dict with spaces and ends it with a newline; nothing else may follow.
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the closing '}'");
    if (!have_descr) fail("missing key 'descr'");
    if (!have_order) fail("missing key 'fortran_order'");
    if (!have_shape) fail("missing key 'shape'");
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error("bad .npy header dict: " + what + " at byte " + std::to_string(pos_) + " of '" +
                printable(text_) + "'");
  }

  static std::string printable(std::string_view text) {
    std::string out;
    for (char ch : text.substr(0, 200)) {
      const auto u = static_cast<unsigned char>(ch);
      if (ch == '\n') out += "\\n";
      else if (u < 0x20 || u >= 0x7f) out += '?';
      else out += ch;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    if (text.size() > 200) out += "...";
    return out;
  }

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r'))
      ++pos_;
  }

  void expect(char ch) {
    if (peek() != ch) fail(std::string("expected '") + ch + "'");
    ++pos_;
  }

  std::string parse_string(const char* what) {
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail(std::string("expected ") + what + " in quotes");
    ++pos_;
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') fail("escape sequences are not expected in a .npy header");
      out += text_[pos_++];
    }
    if (pos_ >= text_.size()) fail("unterminated string");
    ++pos_;
    return out;
  }

  bool parse_bool() {
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    fail("expected True or False for 'fortran_order'");
  }

  std::vector<std::int64_t> parse_shape() {
    expect('(');
    std::vector<std::int64_t> shape;
    bool trailing_comma = false;
    while (true) {
      skip_space();
      if (peek() == ')') {
        // (3) is an integer in Python, not a tuple: one axis is written (3,).
        if (shape.size() == 1 && !trailing_comma) fail("a one-axis 'shape' must be written (n,)");
        ++pos_;
        break;
      }
      if (peek() == '-') fail("negative extent in 'shape'");
      if (!std::isdigit(static_cast<unsigned char>(peek())))
        fail("expected a non-negative integer in 'shape' (a tuple of integers)");
      std::int64_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        const int digit = peek() - '0';
        if (v > (std::numeric_limits<std::int64_t>::max() - digit) / 10) fail("extent too large in 'shape'");
        v = v * 10 + digit;
        ++pos_;
      }
      if (peek() == 'L' || peek() == 'l') ++pos_;  // written by NumPy under Python 2
      shape.push_back(v);
      skip_space();
      trailing_comma = peek() == ',';
      if (trailing_comma) {
        ++pos_;
      } else if (peek() != ')') {
        fail("expected ',' or ')' in 'shape'");
      }
    }
    return shape;
  }

  // Raw text of a balanced bracket expression (quotes respected), for messages.
  std::string take_bracketed(char open, char close) {
    const std::size_t start = pos_;
    int depth = 0;
    char quote = 0;
    for (; pos_ < text_.size(); ++pos_) {
      const char ch = text_[pos_];
      if (quote) {
        if (ch == quote) quote = 0;
      } else if (ch == '\'' || ch == '"') {
        quote = ch;
      } else if (ch == open || ch == '(') {
        ++depth;
      } else if (ch == close || ch == ')') {
        if (--depth == 0) {
          ++pos_;
          return std::string(text_.substr(start, pos_ - start));
        }
      }
    }
    fail("unterminated list");
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

std::size_t element_size(ElementType type) {
  switch (type) {
    case ElementType::i1:
    case ElementType::u1: return 1;
    case ElementType::i2:
    case ElementType::u2: return 2;
    case ElementType::f4:
    case ElementType::i4:
    case ElementType::u4: return 4;
    case ElementType::f8:
    case ElementType::i8:
    case ElementType::u8: return 8;
  }
  return 0;
}

bool is_integer(ElementType type) { return type != ElementType::f4 && type != ElementType::f8; }

ElementType parse_descr(std::string_view descr) {
  if (descr.empty()) throw Error("empty dtype in the .npy header");
  std::string_view rest = descr;
  char order = '|';
  if (rest[0] == '<' || rest[0] == '>' || rest[0] == '|' || rest[0] == '=') {
    order = rest[0];
    rest.remove_prefix(1);
  }
  if (rest.empty()) refuse(descr, "no type code");
  const char kind = rest[0];
  const std::string_view size_text = rest.substr(1);
  std::size_t size = 0;
  for (char ch : size_text) {
    if (!std::isdigit(static_cast<unsigned char>(ch)) || size > 1000) {
      size = 0;
      break;
    }
    size = size * 10 + static_cast<std::size_t>(ch - '0');
  }
  switch (kind) {
    case 'c': refuse(descr, "complex");
    case 'b':
    case '?': refuse(descr, "bool");
    case 'O': refuse(descr, "Python objects");
    case 'S':
    case 'a':
    case 'U': refuse(descr, "strings");
    case 'V': refuse(descr, "raw bytes / structured");
    case 'M':
    case 'm': refuse(descr, "datetime");
    case 'f':
    case 'i':
    case 'u': break;
    default: refuse(descr, "unknown type code");
  }
  if (kind == 'f' && size != 4 && size != 8) {
    refuse(descr, size == 2 ? "float16" : size == 16 || size == 12 ? "long double" : "float of unusual size");
  }
  if ((kind == 'i' || kind == 'u') && size != 1 && size != 2 && size != 4 && size != 8)
    refuse(descr, "integer of unusual size");
  // Byte order matters only for multi-byte elements. '=' is native, little-endian here.
  if (size > 1 && order == '>')
    throw Error("dtype '" + std::string(descr) +
                "' is big-endian; only little-endian data is read (convert it with a.astype('" +
                std::string(1, '<') + std::string(rest) + "'))");
  if (size > 1 && order == '|') refuse(descr, "multi-byte type without a byte order");
  if (kind == 'f') return size == 4 ? ElementType::f4 : ElementType::f8;
  if (kind == 'i')
    return size == 1 ? ElementType::i1 : size == 2 ? ElementType::i2 : size == 4 ? ElementType::i4 : ElementType::i8;
  return size == 1 ? ElementType::u1 : size == 2 ? ElementType::u2 : size == 4 ? ElementType::u4 : ElementType::u8;
}

std::size_t preamble_size(int major, int minor) {
  if (minor == 0 && major == 1) return 10;  // magic, 2 version bytes, uint16 length
  if (minor == 0 && (major == 2 || major == 3)) return 12;  // uint32 length
  throw Error("unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
              " (supported: 1.0, 2.0, 3.0)");
}

Preamble parse_preamble(std::string_view prefix) {
  if (prefix.size() < kMagic.size() || prefix.substr(0, kMagic.size()) != kMagic)
    throw Error("not a .npy file (the file does not start with the magic string \\x93NUMPY)");
  if (prefix.size() < 8) throw Error("truncated .npy file: the preamble ends after " +
                                     std::to_string(prefix.size()) + " bytes");
  Preamble p;
  p.major = static_cast<unsigned char>(prefix[6]);
  p.minor = static_cast<unsigned char>(prefix[7]);
  p.size = preamble_size(p.major, p.minor);
  if (prefix.size() < p.size)
    throw Error("truncated .npy file: the preamble ends after " + std::to_string(prefix.size()) + " bytes");
  p.dict_length = static_cast<std::size_t>(read_le(prefix, 8, p.major == 1 ? 2 : 4));
  if (p.dict_length > kMaxHeaderBytes)
    throw Error("the .npy header is " + std::to_string(p.dict_length) + " bytes long, over the limit of " +
                std::to_string(kMaxHeaderBytes) + " (NumPy's default max_header_size); corrupt file?");
  return p;
}

void parse_dict(std::string_view text, Header& header) { DictParser(text).parse(header); }

std::string format_header(std::string_view descr, const std::vector<std::int64_t>& shape) {
  std::string dict = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': " +
                     shape_string(shape) + ", }";
  // Pad with spaces and end with '\n' so that preamble + dict is a multiple of 64.
  const auto padded = [&](std::size_t preamble) {
    const std::size_t unpadded = preamble + dict.size() + 1;
    return dict.size() + (64 - unpadded % 64) % 64 + 1;
  };
  int major = 1;
  std::size_t length = padded(10);
  if (length > 0xffff) {
    major = 2;
    length = padded(12);
  }
  std::string out(kMagic);
  out += static_cast<char>(major);
  out += '\0';
  const int length_bytes = major == 1 ? 2 : 4;
  for (int b = 0; b < length_bytes; ++b) out += static_cast<char>((length >> (8 * b)) & 0xff);
  out += dict;
  out.append(length - dict.size() - 1, ' ');
  out += '\n';
  return out;
}

}  // namespace splinebench::npy
