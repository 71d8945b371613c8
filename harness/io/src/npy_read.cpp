// .npy reader: preamble and dict (npy_header.cpp), then the data, converted to the
// two element types splinebench computes with and transposed to C order.
#include <bit>
#include <cstring>
#include <fstream>
#include <limits>

#include "splinebench/error.hpp"
#include "splinebench/user_arrays.hpp"
#include "splinebench/io/npy.hpp"
#include "splinebench/io/npy_header.hpp"

namespace splinebench::npy {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the .npy reader copies little-endian data as is; a big-endian host needs byte swaps");

const char* integer_name(ElementType type) {
  switch (type) {
    case ElementType::i1: return "int8";
    case ElementType::i2: return "int16";
    case ElementType::i4: return "int32";
    case ElementType::i8: return "int64";
    case ElementType::u1: return "uint8";
    case ElementType::u2: return "uint16";
    case ElementType::u4: return "uint32";
    case ElementType::u8: return "uint64";
    default: return "?";
  }
}

template <typename Int>
void widen(const std::vector<char>& raw, std::vector<double>& out) {
  const std::size_t n = raw.size() / sizeof(Int);
  out.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    Int v;
    std::memcpy(&v, raw.data() + i * sizeof(Int), sizeof(Int));
    out[i] = static_cast<double>(v);
  }
}

// Element (i0, ..., i_{D-1}) sits at sum_d i_d * prod_{e<d} shape[e] in a Fortran-order
// buffer; walk the destination in C order and follow that offset.
template <typename T>
std::vector<T> fortran_to_c(const std::vector<T>& src, const std::vector<std::int64_t>& shape) {
  const int D = static_cast<int>(shape.size());
  std::vector<T> dst(src.size());
  if (src.empty() || D < 2) {
    dst = src;
    return dst;
  }
  std::vector<std::int64_t> fstride(D), index(D, 0);
  fstride[0] = 1;
  for (int d = 1; d < D; ++d) fstride[d] = fstride[d - 1] * shape[d - 1];
  std::int64_t offset = 0;
  for (std::size_t out = 0; out < dst.size(); ++out) {
    dst[out] = src[static_cast<std::size_t>(offset)];
    for (int d = D - 1; d >= 0; --d) {
      offset += fstride[d];
      if (++index[d] < shape[d]) break;
      offset -= index[d] * fstride[d];
      index[d] = 0;
    }
  }
  return dst;
}

void read_exactly(std::ifstream& in, char* dst, std::size_t count, const char* what) {
  in.read(dst, static_cast<std::streamsize>(count));
  if (static_cast<std::size_t>(in.gcount()) != count)
    throw Error(std::string("read error in the ") + what + " (file changed while reading?)");
}

// A file whose header and size have been checked, positioned at its data.
struct Opened {
  std::ifstream in;
  Header header;
  ElementType type = ElementType::f4;
  std::int64_t count = 0;
  std::uint64_t data_bytes = 0;
};

Opened open_checked(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (!fs::exists(status)) throw Error("no such file");
  if (fs::is_directory(status)) throw Error("is a directory, not a .npy file");
  const auto file_size = static_cast<std::size_t>(fs::file_size(path, ec));
  if (ec) throw Error("cannot read: " + ec.message());
  Opened opened;
  std::ifstream& in = opened.in;
  in.open(path, std::ios::binary);
  if (!in) throw Error(std::string("cannot open: ") + std::strerror(errno));

  std::string prefix(std::min<std::size_t>(file_size, 12), '\0');
  read_exactly(in, prefix.data(), prefix.size(), "preamble");
  const Preamble pre = parse_preamble(prefix);
  if (file_size < pre.size + pre.dict_length)
    throw Error("truncated .npy file: the header needs " + std::to_string(pre.size + pre.dict_length) +
                " bytes, the file has " + std::to_string(file_size));

  Header& header = opened.header;
  header.version_major = pre.major;
  header.version_minor = pre.minor;
  header.data_offset = pre.size + pre.dict_length;
  std::string dict(pre.dict_length, '\0');
  in.seekg(static_cast<std::streamoff>(pre.size));
  read_exactly(in, dict.data(), dict.size(), "header");
  parse_dict(dict, header);
  const ElementType type = opened.type = parse_descr(header.descr);

  const std::int64_t count = element_count(header.shape);
  const std::size_t item = element_size(type);
  if (static_cast<std::uint64_t>(count) > std::numeric_limits<std::uint64_t>::max() / item)
    throw Error("shape " + shape_string(header.shape) + " is too large");
  const std::uint64_t need = static_cast<std::uint64_t>(count) * item;
  const std::uint64_t have = file_size - header.data_offset;
  const std::string what = "shape " + shape_string(header.shape) + " of " + header.descr;
  if (have < need)
    throw Error("truncated .npy file: " + what + " needs " + std::to_string(need) + " data bytes, the file has " +
                std::to_string(have));
  if (have > need)
    throw Error("shape/size mismatch: " + what + " needs " + std::to_string(need) + " data bytes, the file has " +
                std::to_string(have) + " (" + std::to_string(have - need) + " extra)");
  opened.count = count;
  opened.data_bytes = need;
  return opened;
}

Array read_file(const std::filesystem::path& path) {
  Opened opened = open_checked(path);
  std::ifstream& in = opened.in;
  const Header& header = opened.header;
  const ElementType type = opened.type;
  const std::int64_t count = opened.count;
  const std::uint64_t need = opened.data_bytes;

  Array array;
  array.shape = header.shape;
  array.descr = header.descr;
  array.fortran_order = header.fortran_order;
  array.version_major = header.version_major;
  const auto n = static_cast<std::size_t>(count);
  if (type == ElementType::f4) {
    array.is_float32 = true;
    array.f32.resize(n);
    read_exactly(in, reinterpret_cast<char*>(array.f32.data()), need, "data");
  } else if (type == ElementType::f8) {
    array.f64.resize(n);
    read_exactly(in, reinterpret_cast<char*>(array.f64.data()), need, "data");
  } else {
    std::vector<char> raw(static_cast<std::size_t>(need));
    read_exactly(in, raw.data(), raw.size(), "data");
    switch (type) {
      case ElementType::i1: widen<std::int8_t>(raw, array.f64); break;
      case ElementType::i2: widen<std::int16_t>(raw, array.f64); break;
      case ElementType::i4: widen<std::int32_t>(raw, array.f64); break;
      case ElementType::i8: widen<std::int64_t>(raw, array.f64); break;
      case ElementType::u1: widen<std::uint8_t>(raw, array.f64); break;
      case ElementType::u2: widen<std::uint16_t>(raw, array.f64); break;
      case ElementType::u4: widen<std::uint32_t>(raw, array.f64); break;
      case ElementType::u8: widen<std::uint64_t>(raw, array.f64); break;
      default: break;
    }
    std::string note = "converted " + std::string(integer_name(type)) + " data (dtype '" + header.descr +
                       "') to float64";
    if (type == ElementType::i8 || type == ElementType::u8) note += "; magnitudes above 2^53 are rounded";
    array.notes.push_back(note);
  }
  if (header.fortran_order && array.shape.size() > 1) {
    if (array.is_float32) array.f32 = fortran_to_c(array.f32, array.shape);
    else array.f64 = fortran_to_c(array.f64, array.shape);
  }
  return array;
}

}  // namespace

std::int64_t Array::size() const { return element_count(shape); }

std::int64_t element_count(const std::vector<std::int64_t>& shape) {
  std::int64_t count = 1;
  for (std::int64_t extent : shape) {
    if (extent < 0) throw Error("negative extent in shape " + shape_string(shape));
    if (extent != 0 && count > std::numeric_limits<std::int64_t>::max() / extent)
      throw Error("shape " + shape_string(shape) + " has too many elements");
    count *= extent;
  }
  return count;
}

// NumPy's spelling, which the harness's own messages use too (user_arrays.hpp).
std::string shape_string(const std::vector<std::int64_t>& shape) { return shape_text(shape); }

ArrayInfo read_info(const std::filesystem::path& path) {
  try {
    const Opened opened = open_checked(path);
    ArrayInfo info;
    info.shape = opened.header.shape;
    info.descr = opened.header.descr;
    info.fortran_order = opened.header.fortran_order;
    info.is_float32 = opened.type == ElementType::f4;
    info.is_integer = is_integer(opened.type);
    info.file_item_bytes = element_size(opened.type);
    return info;
  } catch (const Error& e) {
    throw Error("'" + path.string() + "': " + e.what());
  }
}

Array read(const std::filesystem::path& path) {
  try {
    return read_file(path);
  } catch (const Error& e) {
    throw Error("'" + path.string() + "': " + e.what());
  }
}

}  // namespace splinebench::npy
