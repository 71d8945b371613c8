// Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0).
//
// Hand-written: no Debian package offers a C++ .npy reader, and the format is small
// (a magic string, a Python-literal header dict, raw data). Only what splinebench
// needs is accepted: float32/float64 read natively, integers converted to float64,
// everything else refused with a message that names the dtype.
//
// Byte order: the data of every accepted dtype is little-endian, which is also the
// byte order of every machine splinebench runs on (checked at compile time).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace splinebench::npy {

// A .npy array as read: C order (Fortran-order files are transposed on read), the
// values either float32 (`<f4` files) or float64 (`<f8` and every integer dtype).
struct Array {
  std::vector<std::int64_t> shape;  // empty for a 0-d array (one element)
  std::string descr;                // dtype as written in the file, e.g. "<f4", "|u1"
  bool fortran_order = false;       // how the file stored it (the data is C order now)
  int version_major = 1;
  bool is_float32 = false;          // data in f32 when true, else in f64
  std::vector<float> f32;
  std::vector<double> f64;
  // Conversions made while reading (integer -> float64), one sentence each, for the
  // caller to show the user.
  std::vector<std::string> notes;

  std::int64_t size() const;  // number of elements (1 for a 0-d array)
};

// Reads `path`. Throws splinebench::Error naming the file and the problem (missing
// file, corrupt magic, unsupported version, bad header dict, header over the size
// limit, unsupported dtype, truncated data or trailing bytes).
Array read(const std::filesystem::path& path);

// What read() would give, without reading the data: so a command can tell how much
// memory an input needs before it reads it. Same checks and messages as read() (the
// file's size must match its header).
struct ArrayInfo {
  std::vector<std::int64_t> shape;
  std::string descr;
  bool fortran_order = false;
  bool is_float32 = false;          // read as float32 (else float64)
  bool is_integer = false;          // widened to float64 on read
  std::size_t file_item_bytes = 4;  // bytes per element in the file
};
ArrayInfo read_info(const std::filesystem::path& path);

// Writes a C-order little-endian array (format 1.0, or 2.0 if the header needs it)
// with io::write_file_atomically: a regular file is replaced atomically (a temporary
// in the same directory, renamed over `path`); devices, FIFOs and links are written
// through (atomic_file.hpp). On any error the temporary is removed, `path` is left as
// it was, and splinebench::Error is thrown.
void write(const std::filesystem::path& path, const std::vector<std::int64_t>& shape, const float* data);
void write(const std::filesystem::path& path, const std::vector<std::int64_t>& shape, const double* data);

// Number of elements of `shape` (1 for {}); throws splinebench::Error on a negative
// extent or when the count overflows.
std::int64_t element_count(const std::vector<std::int64_t>& shape);

// "(3, 4)" / "(5,)" / "()": shapes in messages, written the way NumPy prints them.
std::string shape_string(const std::vector<std::int64_t>& shape);

}  // namespace splinebench::npy
