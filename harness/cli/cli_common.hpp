// Pieces shared by the subcommands that work on the user's own .npy files
// (`prefilter`, `interpolate`): option parsing, checks with clear messages, and
// the float32/float64 conversions with a note on stderr whenever precision changes.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "splinebench/implementation.hpp"
#include "splinebench/io/npy.hpp"
#include "splinebench/types.hpp"
#include "splinebench/user_arrays.hpp"  // require_runnable, shared with the Python module

namespace splinebench::cli {

// Options every data subcommand takes.
struct DataOptions {
  std::string impl;
  std::string mode;
  int channels = 1;
  int threads = 0;  // 0: the implementation's default
};

// Adds --impl, --mode, --channels, --threads to `cmd`.
void add_data_options(CLI::App* cmd, DataOptions& options);

// "splinebench: note: <text>" on stderr: information that does not stop the run.
void note(const std::string& text);

// Parses --mode; the error lists the modes with their SciPy names.
Mode parse_mode_option(const std::string& text);

// Checks --channels (1, 2 or 4) and --threads (0 for the default, up to
// runner::max_threads()).
void check_channels(int channels);
void check_threads(int threads);

// Whether `impl` is the double-precision oracle, which the CLI runs directly in
// double (float64 files stay float64 end to end).
bool is_reference(const Implementation& impl);

// Passes --threads on: to implementations that honour it, to OpenMP for the
// reference; otherwise notes that it is ignored.
void apply_threads(Implementation& impl, int threads);

// Fails early (before any computation) when the output cannot be written: its
// directory is missing, or it names a directory or a kind of file outputs never go
// to (io::check_output).
void check_output_path(const std::filesystem::path& out);

// Reads a .npy file and shows the reader's conversion notes.
npy::Array read_array(const std::filesystem::path& path);

// The grid of an array of samples/coefficients of shape `shape`: the shape without
// the trailing channel axis when channels > 1. Throws for a 0-d array, more than
// kMaxDims grid axes, a zero-length axis, or a channel axis of the wrong length.
GridShape grid_of(const std::vector<std::int64_t>& shape, int channels, const std::string& what);

// Refuse, before the inputs are read, a job that needs more host memory than this
// process can have (runner::require_memory): the peak of reading the .npy inputs,
// converting them to the precision `impl` computes in, the outputs, and the
// implementation's own buffers. `coords` is null for prefilter.
void check_memory(const Implementation& impl, const GridShape& grid, const std::string& input,
                  const npy::ArrayInfo& field, const npy::ArrayInfo* coords);

// The values as float32 / float64. Narrowing float64 to float32 prints a note naming
// `what` and `why`; values beyond the float32 range (which become infinite) are
// counted in the note.
std::vector<float> as_float32(npy::Array& array, const std::string& what, const std::string& why);
std::vector<double> as_float64(npy::Array& array);

// Throws if an implementation left any of `values` NaN where the inputs were finite
// (outputs are poisoned with NaN before the call, so this catches unwritten values).
void require_written(const std::vector<float>& values, const std::string& impl, const std::string& what);

}  // namespace splinebench::cli
