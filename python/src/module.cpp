// `splinebench._core`, the native half of the Python module (python/splinebench/ is the
// public face, README.md there the contract). Every registered implementation runs on
// host arrays through its Implementation interface, and, where it offers DeviceArrays, on
// CUDA arrays in place (any DLPack producer: CuPy, PyTorch, ...) on the caller's stream.
// The Python side decides dtypes and allocates outputs; this side checks the arrays with
// the harness's messages, then runs the implementation with the GIL released.
//
// Implementations are made once per Python thread and thread count (thread_local), so
// threads calling at the same time share nothing; a host-array call releases what it
// prepared, and a device-array path keeps what it needs per stream (gpu_flex: its plans,
// ticket counters and temporary buffer) for the next call on that stream.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <omp.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "splinebench/error.hpp"
#include "splinebench/registry.hpp"
#include "splinebench/user_arrays.hpp"

namespace nb = nanobind;

namespace splinebench::python {
namespace {

// DLPack device types (dlpack.h): host memory, pinned host memory, device, managed.
constexpr int kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13;

using ReadArray = nb::ndarray<nb::ro>;
using WriteArray = nb::ndarray<>;

// What the checks need of one array, whatever its producer.
struct View {
  std::vector<std::int64_t> shape;
  bool on_device = false;
  int device = 0;
  bool f64 = false;
  void* data = nullptr;
  std::int64_t size = 1;
};

template <typename Array>
View view_of(const Array& a, const std::string& what) {
  View v;
  v.shape.resize(a.ndim());
  for (std::size_t d = 0; d < a.ndim(); ++d) {
    v.shape[d] = static_cast<std::int64_t>(a.shape(d));
    v.size *= v.shape[d];
  }
  if (a.dtype() == nb::dtype<double>())
    v.f64 = true;
  else if (a.dtype() != nb::dtype<float>())
    throw nb::type_error((what + " must be float32 or float64").c_str());
  const int type = a.device_type();
  if (type == kDLCUDA || type == kDLCUDAManaged)
    v.on_device = true;
  else if (type != kDLCPU && type != kDLCUDAHost)
    throw nb::type_error((what + " is in memory of DLPack device type " + std::to_string(type) +
                          "; splinebench takes host and CUDA arrays").c_str());
  v.device = static_cast<int>(a.device_id());
  // C order, strides in elements; an axis of length 1 (or any axis of an empty array) may
  // have any stride.
  std::int64_t expected = 1;
  for (std::size_t d = a.ndim(); v.size > 0 && d-- > 0;) {
    if (v.shape[d] != 1 && a.stride(d) != expected)
      throw Error(what + " of shape " + shape_text(v.shape) +
                  " is not C-contiguous; pass a C-order copy (numpy.ascontiguousarray, cupy.ascontiguousarray, "
                  "tensor.contiguous())");
    expected *= v.shape[d];
  }
  v.data = const_cast<void*>(static_cast<const void*>(a.data()));
  return v;
}

struct Request {
  std::string impl;
  Mode mode = Mode::mirror;
  int channels = 1;
  bool batch = false;
  int threads = 0;
  std::uintptr_t stream = 0;
};

Request request(const std::string& impl, const std::string& mode, int channels, bool batch, int threads,
                std::uintptr_t stream) {
  Request r{impl, mode_from_name(mode), channels, batch, threads, stream};
  if (channels != 1 && channels != 2 && channels != 4)
    throw Error("channels must be 1, 2 or 4, got " + std::to_string(channels));
  check_threads(threads, "threads");
  return r;
}

// The fields and grid of an input: with `batch`, axis 0 counts the fields.
std::pair<std::int64_t, GridShape> fields_and_grid(const View& v, const Request& r, const std::string& what) {
  if (!r.batch) return {1, grid_of(v.shape, r.channels, what, "channels=")};
  if (v.shape.empty())
    throw Error("with batch=True the first axis of " + what + " counts the fields; " + what + " is a 0-d array");
  if (v.shape[0] == 0)
    throw Error("with batch=True the first axis of " + what + " counts the fields; it has length 0 (shape " +
                shape_text(v.shape) + ")");
  return {v.shape[0], grid_of(std::vector<std::int64_t>(v.shape.begin() + 1, v.shape.end()), r.channels, what,
                              "channels=")};
}

void require_same_place(const View& a, const View& b, const std::string& what_a, const std::string& what_b) {
  const auto place = [](const View& v) { return v.on_device ? "cuda:" + std::to_string(v.device) : std::string("cpu"); };
  if (a.on_device != b.on_device || (a.on_device && a.device != b.device))
    throw Error(what_a + " is on " + place(a) + " but " + what_b + " on " + place(b) + "; put both on one device");
  if (a.f64 != b.f64)
    throw nb::type_error((what_a + " and " + what_b + " must have the same dtype (float32 or float64)").c_str());
}

void require_size(const View& out, std::int64_t size, const std::string& what) {
  if (out.size != size)
    throw Error(what + " has " + std::to_string(out.size) + " elements, " + std::to_string(size) + " expected");
}

// An implementation with what it answered when made: its availability and capabilities
// do not change while it lives, and asking costs a call's worth of time.
struct Made {
  ImplementationPtr impl;
  Availability availability;
  Capabilities capabilities;

  void require_runnable(const GridShape& grid, Mode mode) const {
    splinebench::require_runnable(impl->name(), availability, capabilities, grid, mode);
  }
};

// Made once per thread and thread count: an implementation configured for one count
// keeps it, and a peer's adapter process or a GPU workspace lives across calls.
Made& instance(const std::string& name, int threads) {
  thread_local std::map<std::pair<std::string, int>, Made> made;
  Made& entry = made[{name, threads}];
  if (!entry.impl) {
    ImplementationPtr fresh = make_implementation(name);
    if (threads > 0 && fresh->capabilities().threads) {
      Options options;
      options.threads = threads;
      fresh->configure(options);
    }
    entry.availability = fresh->availability();
    entry.capabilities = fresh->capabilities();
    entry.impl = std::move(fresh);
  }
  return entry;
}

// The oracle's threads are OpenMP's (as the CLI's --threads sets them): the calling
// thread's own setting, restored afterwards.
class OracleThreads {
 public:
  OracleThreads(const Implementation& impl, int threads) {
    if (threads > 0 && impl.name() == "reference") {
      previous_ = omp_get_max_threads();
      omp_set_num_threads(threads);
    }
  }
  ~OracleThreads() {
    if (previous_ > 0) omp_set_num_threads(previous_);
  }
  OracleThreads(const OracleThreads&) = delete;
  OracleThreads& operator=(const OracleThreads&) = delete;

 private:
  int previous_ = 0;
};

// The implementations that take device arrays, for the message of one that does not.
std::string device_array_implementations() {
  std::string names;
  for (const RegistryEntry& entry : registry())
    if (entry.device == Device::gpu && entry.make()->device_arrays()) names += (names.empty() ? "" : ", ") + entry.name;
  return names.empty() ? "none in this build" : names;
}

DeviceArrays& device_path(Implementation& impl, const View& v) {
  DeviceArrays* path = impl.device_arrays();
  if (!path)
    throw Error("implementation '" + std::string(impl.name()) + "' takes host arrays only (NumPy); " +
                (impl.capabilities().device == Device::gpu ? "its evaluation needs storage of its own" : "it runs on the CPU") +
                "; device arrays go to: " + device_array_implementations());
  if (v.f64 && !path->f64())
    throw nb::type_error(("implementation '" + std::string(impl.name()) +
                          "' computes in float32: give float32 device arrays (or impl='gpu_f64' for float64)")
                             .c_str());
  return *path;
}

// An output the Python side made for this call on the input's device with the input's
// dtype, C order, `size` elements, given by its address: no capsule to make and read on
// the hot path (the work goes on the producer's current stream, where the capsule would
// ask for nothing).
View made_output(const View& in, std::uintptr_t address, std::int64_t size) {
  if (!in.on_device) throw Error("an output by address is for device arrays only");
  View out;
  out.shape = {size};
  out.on_device = true;
  out.device = in.device;
  out.f64 = in.f64;
  out.data = reinterpret_cast<void*>(address);
  out.size = size;
  return out;
}

void prefilter_views(const Request& r, const View& in, const View& out) {
  require_same_place(in, out, "the input", "the output");
  require_size(out, in.size, "the output");
  const auto [fields, grid] = fields_and_grid(in, r, "the input");

  nb::gil_scoped_release unlocked;
  Made& made = instance(r.impl, r.threads);
  made.require_runnable(grid, r.mode);
  Implementation& impl = *made.impl;
  if (in.on_device) {
    DeviceArrays& path = device_path(impl, in);
    const DeviceCall call{in.device, r.stream};
    if (in.f64)
      path.prefilter_device(grid, fields, r.mode, static_cast<const double*>(in.data), static_cast<double*>(out.data),
                            call);
    else
      path.prefilter_device(grid, fields, r.mode, static_cast<const float*>(in.data), static_cast<float*>(out.data),
                            call);
    return;
  }
  const OracleThreads oracle_threads(impl, r.threads);
  PhaseTimes times;
  try {
    if (in.f64) {
      impl.prepare_f64(grid, fields, static_cast<const double*>(in.data), r.mode, true, times);
      impl.read_coefficients_f64(static_cast<double*>(out.data), times);
    } else {
      impl.prepare(grid, fields, static_cast<const float*>(in.data), r.mode, true, times);
      impl.read_coefficients(static_cast<float*>(out.data), times);
    }
  } catch (...) {
    impl.release();
    throw;
  }
  impl.release();
}

void prefilter(const std::string& impl_name, const ReadArray& input, const WriteArray& output,
               const std::string& mode, int channels, bool batch, int threads, std::uintptr_t stream) {
  const Request r = request(impl_name, mode, channels, batch, threads, stream);
  const View in = view_of(input, "the input");
  prefilter_views(r, in, view_of(output, "the output"));
}

void prefilter_at(const std::string& impl_name, const ReadArray& input, std::uintptr_t output, std::int64_t size,
                  const std::string& mode, int channels, bool batch, int threads, std::uintptr_t stream) {
  const Request r = request(impl_name, mode, channels, batch, threads, stream);
  const View in = view_of(input, "the input");
  prefilter_views(r, in, made_output(in, output, size));
}

void evaluate_views(const Request& r, const View& in, const View& x, const View& out, bool prefilter) {
  const std::string what = prefilter ? "the samples" : "the coefficients";
  require_same_place(in, x, what, "the coordinates");
  require_same_place(in, out, what, "the output");
  const auto [fields, grid] = fields_and_grid(in, r, what);
  check_coordinates_shape(x.shape, grid.dims, what,
                          r.batch ? std::vector<std::int64_t>(in.shape.begin() + 1, in.shape.end()) : in.shape);
  const std::int64_t n = x.size / grid.dims;
  require_size(out, fields * n * grid.channels, "the output");

  nb::gil_scoped_release unlocked;
  Made& made = instance(r.impl, r.threads);
  made.require_runnable(grid, r.mode);
  Implementation& impl = *made.impl;
  if (in.on_device) {
    if (prefilter) throw Error("device arrays are evaluated from coefficients: prefilter them first");
    DeviceArrays& path = device_path(impl, in);
    const DeviceCall call{in.device, r.stream};
    if (in.f64)
      path.evaluate_device(grid, fields, r.mode, static_cast<const double*>(in.data),
                           static_cast<const double*>(x.data), n, static_cast<double*>(out.data), call);
    else
      path.evaluate_device(grid, fields, r.mode, static_cast<const float*>(in.data), static_cast<const float*>(x.data),
                           n, static_cast<float*>(out.data), call);
    return;
  }
  if (n == 0) return;
  const OracleThreads oracle_threads(impl, r.threads);
  PhaseTimes times;
  try {
    if (in.f64) {
      impl.prepare_f64(grid, fields, static_cast<const double*>(in.data), r.mode, prefilter, times);
      impl.evaluate_f64(static_cast<const double*>(x.data), n, static_cast<double*>(out.data), times);
    } else {
      impl.prepare(grid, fields, static_cast<const float*>(in.data), r.mode, prefilter, times);
      impl.evaluate(static_cast<const float*>(x.data), n, static_cast<float*>(out.data), times);
    }
  } catch (...) {
    impl.release();
    throw;
  }
  impl.release();
}

void evaluate(const std::string& impl_name, const ReadArray& input, const ReadArray& coordinates,
              const WriteArray& output, const std::string& mode, bool prefilter, int channels, bool batch, int threads,
              std::uintptr_t stream) {
  const Request r = request(impl_name, mode, channels, batch, threads, stream);
  const View in = view_of(input, prefilter ? "the samples" : "the coefficients");
  const View x = view_of(coordinates, "the coordinates");
  evaluate_views(r, in, x, view_of(output, "the output"), prefilter);
}

void evaluate_at(const std::string& impl_name, const ReadArray& input, const ReadArray& coordinates,
                 std::uintptr_t output, std::int64_t size, const std::string& mode, int channels, bool batch,
                 int threads, std::uintptr_t stream) {
  const Request r = request(impl_name, mode, channels, batch, threads, stream);
  const View in = view_of(input, "the coefficients");
  const View x = view_of(coordinates, "the coordinates");
  evaluate_views(r, in, x, made_output(in, output, size), false);
}

std::vector<std::string> mode_names(const std::vector<Mode>& modes) {
  std::vector<std::string> names;
  for (const Mode m : modes) names.emplace_back(to_string(m));
  return names;
}

// The registry as dicts; availability asks each implementation (a CUDA query for the GPU
// ones, a look for the package for the peers).
nb::list implementations() {
  struct Row {
    RegistryEntry entry;
    std::string description, evaluation, reason;
    Capabilities caps;
    bool available = false, f64 = false, device_arrays = false, device_arrays_f64 = false;
  };
  std::vector<Row> rows;
  {
    nb::gil_scoped_release unlocked;
    for (const RegistryEntry& entry : registry()) {
      const ImplementationPtr impl = entry.make();
      Row row{entry, std::string(impl->description()), impl->evaluation(), {}, impl->capabilities()};
      const Availability avail = impl->availability();
      row.available = avail.ok;
      row.reason = avail.reason;
      row.f64 = impl->supports_f64();
      if (DeviceArrays* path = impl->device_arrays()) {
        row.device_arrays = true;
        row.device_arrays_f64 = path->f64();
      }
      rows.push_back(std::move(row));
    }
  }
  nb::list out;
  for (const Row& row : rows) {
    nb::dict d;
    d["name"] = row.entry.name;
    d["device"] = std::string(to_string(row.entry.device));
    d["available"] = row.available;
    d["reason"] = row.reason;
    d["description"] = row.description;
    d["arithmetic"] = row.caps.arithmetic;
    d["evaluation"] = row.evaluation;
    d["dims"] = nb::make_tuple(row.caps.min_dims, row.caps.max_dims);
    d["channels"] = row.caps.channels;
    d["modes"] = mode_names(row.caps.modes);
    d["field_batches"] = row.caps.field_batches;
    d["threads"] = row.caps.threads;
    d["f64"] = row.f64;
    d["device_arrays"] = row.device_arrays;
    d["device_arrays_f64"] = row.device_arrays_f64;
    d["test_only"] = row.entry.test_only;
    out.append(d);
  }
  return out;
}

// What the Python side needs to know of an implementation before a call, without
// asking its availability.
nb::dict describe(const std::string& impl_name) {
  const ImplementationPtr impl = make_implementation(impl_name);
  DeviceArrays* path = impl->device_arrays();
  nb::dict d;
  d["device"] = std::string(to_string(impl->capabilities().device));
  d["f64"] = impl->supports_f64();
  d["device_arrays"] = path != nullptr;
  d["device_arrays_f64"] = path != nullptr && path->f64();
  return d;
}

GridShape grid_from(const std::vector<std::int64_t>& extents, int channels) {
  if (extents.empty() || static_cast<int>(extents.size()) > kMaxDims)
    throw Error("a grid has 1 to " + std::to_string(kMaxDims) + " axes, got shape " + shape_text(extents));
  GridShape shape = GridShape::make(extents, channels);
  shape.validate();
  return shape;
}

nb::dict tolerance(const std::string& impl_name, const std::vector<std::int64_t>& extents, int channels) {
  const GridShape shape = grid_from(extents, channels);
  const Tolerance t = make_implementation(impl_name)->tolerance(shape);
  nb::dict d;
  d["prefilter_rel_l2"] = t.prefilter_rel_l2;
  d["interp_max_rel_to_maxf"] = t.interp_max_rel_to_maxf;
  d["basis"] = t.basis;
  return d;
}

std::string known_defect(const std::string& impl_name, const std::vector<std::int64_t>& extents, int channels,
                         const std::string& mode) {
  return make_implementation(impl_name)->known_defect(grid_from(extents, channels), mode_from_name(mode));
}

}  // namespace
}  // namespace splinebench::python

NB_MODULE(_core, m) {
  using namespace splinebench::python;
  m.doc() = "The native part of splinebench (use the functions of the splinebench package).";
  // Errors carry the harness's messages. Error is a ValueError; Unsupported (a case an
  // implementation cannot run: too large for the device, a limit of its kernels) is one
  // of it.
  nb::exception<splinebench::Error> error(m, "Error", PyExc_ValueError);
  nb::exception<splinebench::Unsupported>(m, "Unsupported", error.ptr());
  m.def("prefilter", &prefilter, nb::arg("impl"), nb::arg("input"), nb::arg("output"), nb::arg("mode"),
        nb::arg("channels"), nb::arg("batch"), nb::arg("threads"), nb::arg("stream"));
  m.def("evaluate", &evaluate, nb::arg("impl"), nb::arg("input"), nb::arg("coordinates"), nb::arg("output"),
        nb::arg("mode"), nb::arg("prefilter"), nb::arg("channels"), nb::arg("batch"), nb::arg("threads"),
        nb::arg("stream"));
  // The device path's outputs that the package made, by address (made_output).
  m.def("prefilter_at", &prefilter_at, nb::arg("impl"), nb::arg("input"), nb::arg("output"), nb::arg("size"),
        nb::arg("mode"), nb::arg("channels"), nb::arg("batch"), nb::arg("threads"), nb::arg("stream"));
  m.def("evaluate_at", &evaluate_at, nb::arg("impl"), nb::arg("input"), nb::arg("coordinates"), nb::arg("output"),
        nb::arg("size"), nb::arg("mode"), nb::arg("channels"), nb::arg("batch"), nb::arg("threads"),
        nb::arg("stream"));
  m.def("implementations", &implementations);
  m.def("describe", &describe, nb::arg("impl"));
  m.def("tolerance", &tolerance, nb::arg("impl"), nb::arg("shape"), nb::arg("channels"));
  m.def("known_defect", &known_defect, nb::arg("impl"), nb::arg("shape"), nb::arg("channels"), nb::arg("mode"));
  m.def("max_threads", &splinebench::max_threads);
}
