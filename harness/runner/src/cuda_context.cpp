// Built with CUDA: runtime and driver versions, and the first device's properties
// when there is one. Every call is checked; a failing probe leaves its field null
// and says why in "gpu_probe_error" instead of stopping the run.
#include <cuda_runtime_api.h>

#include <string>

#include "splinebench/runner/run_context.hpp"

namespace splinebench::runner {
namespace {

std::string version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

std::string describe(cudaError_t err, const char* call) {
  return std::string(call) + ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
}

// As nvidia-smi writes it: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (names the card a
// shard ran on, whatever CUDA_VISIBLE_DEVICES renumbered).
std::string uuid_text(const cudaUUID_t& uuid) {
  static const char* hex = "0123456789abcdef";
  std::string out = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    const auto b = static_cast<unsigned char>(uuid.bytes[i]);
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

}  // namespace

nlohmann::json cuda_context() {
  nlohmann::json ctx = {{"cuda_runtime", nullptr}, {"cuda_driver", nullptr}, {"gpu", nullptr}};
  int runtime = 0, driver = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) ctx["cuda_runtime"] = version_string(runtime);
  // Driver version 0 means no driver is installed.
  if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0) ctx["cuda_driver"] = version_string(driver);

  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    (void)cudaGetLastError();  // clear the error so later CUDA calls start clean
    ctx["gpu_probe_error"] = err != cudaSuccess ? describe(err, "cudaGetDeviceCount") : "no CUDA device";
    return ctx;
  }
  int device = 0;
  if ((err = cudaGetDevice(&device)) != cudaSuccess) {
    (void)cudaGetLastError();
    ctx["gpu_probe_error"] = describe(err, "cudaGetDevice");
    return ctx;
  }
  cudaDeviceProp prop{};
  if ((err = cudaGetDeviceProperties(&prop, device)) != cudaSuccess) {
    (void)cudaGetLastError();
    ctx["gpu_probe_error"] = describe(err, "cudaGetDeviceProperties");
    return ctx;
  }
  nlohmann::json gpu = {{"name", prop.name},
                        {"device", device},
                        {"device_count", count},
                        {"compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor)},
                        {"global_memory_bytes", prop.totalGlobalMem},
                        {"uuid", uuid_text(prop.uuid)}};
  // Clocks and sizes through attributes (the deviceProp clock fields are gone in CUDA 13).
  const struct {
    const char* key;
    cudaDeviceAttr attr;
    double scale;
  } attrs[] = {{"sm_count", cudaDevAttrMultiProcessorCount, 1.0},
               {"l2_bytes", cudaDevAttrL2CacheSize, 1.0},
               {"sm_clock_mhz", cudaDevAttrClockRate, 1e-3},  // reported in kHz
               {"mem_clock_mhz", cudaDevAttrMemoryClockRate, 1e-3},
               {"mem_bus_bits", cudaDevAttrGlobalMemoryBusWidth, 1.0}};
  for (const auto& a : attrs) {
    int value = 0;
    err = cudaDeviceGetAttribute(&value, a.attr, device);
    if (err == cudaSuccess) {
      gpu[a.key] = a.scale == 1.0 ? nlohmann::json(value) : nlohmann::json(static_cast<int>(value * a.scale));
    } else {
      (void)cudaGetLastError();
      gpu[a.key] = nullptr;
      ctx["gpu_probe_error"] = describe(err, "cudaDeviceGetAttribute");
    }
  }
  // Current and maximum clocks and persistence mode: the attributes above give only
  // the peak clocks, and a GPU left at idle clocks or out of persistence mode times
  // differently.
  char pci[32] = {};
  if ((err = cudaDeviceGetPCIBusId(pci, sizeof pci, device)) == cudaSuccess) {
    gpu["pci_bus_id"] = pci;
    gpu["clocks"] = gpu_clocks(pci);
  } else {
    (void)cudaGetLastError();
    gpu["clocks"] = nullptr;
    ctx["gpu_probe_error"] = describe(err, "cudaDeviceGetPCIBusId");
  }
  ctx["gpu"] = gpu;
  return ctx;
}

}  // namespace splinebench::runner
