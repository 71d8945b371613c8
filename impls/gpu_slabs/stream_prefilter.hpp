// The exact cubic B-spline prefilter of a field that may be larger than the device,
// streamed through ONE device slab by slab along axis 0 in one sweep, so each value
// crosses the host link once each way: oracle::prefilter_streamed's schedule
// (slab_streamed.hpp) with the slab buffer on the GPU.
//
//   pin        the caller's array registered with cudaHostRegister for the call (or
//              used as it is when already page-locked; pinned staging buffers when
//              registration fails or is declined), unregistered on every way out;
//   pre-pass   the causal initial value from the planes whose float weight is nonzero
//              (about 80 at each end of axis 0), uploaded, their inner axes filtered,
//              weighted and summed on the device;
//   sweep      slab s: upload; axes 1..D-1; the causal recursion continued from slab
//              s-1's last plane (a device-side plane copy); periodic's anti-causal share
//              accumulated; at the last slab the anti-causal initial value; the
//              anti-causal recursion from zero state at the slab's end; download. Upload
//              of slab s+1, compute of slab s and download of slab s-1 on three streams
//              ordered by events, over `buffers` slab buffers;
//   host       the anti-causal carries backwards, one plane per slab, and each slab's
//              last correction_depth<float>() planes corrected in host memory
//              (stream_plan.hpp, OpenMP).
// Plain C++ header; the implementation needs CUDA (stream_prefilter.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "splinebench/types.hpp"

namespace splinebench::gpu::slabs {

struct StreamOptions {
  int device = 0;
  // Planes per slab; 0 chooses them (stream_plan.hpp's choose_slab_planes): as many as
  // fit `buffers` times in memory_fraction of the device's free memory, at most
  // max_slab_bytes per slab.
  std::int64_t slab_planes = 0;
  // Slab buffers on the device, >= 2. Three let the upload of slab s+1, the compute of
  // slab s and the download of slab s-1 all run at once; with two, an upload waits for
  // the download of the slab two back, which shares its buffer.
  int buffers = 3;
  double memory_fraction = 0.8;  // in (0, 1]
  // Cap of the automatic thickness in bytes (0: none). A thick slab lengthens the
  // pipeline's fill and drain (the first upload and the last download overlap nothing);
  // a thin one adds host corrections (correction_depth planes per slab boundary).
  std::int64_t max_slab_bytes = std::int64_t{2} << 30;
  // false: never register the caller's array; stage every slab through pinned buffers.
  bool register_host = true;
};

struct StreamReport {
  // Wall seconds: cudaHostRegister (pin) and cudaHostUnregister (unpin), the pre-pass,
  // the sweep (first upload to last download, staging copies included), the host
  // corrections, and the whole call.
  double pin_seconds = 0;
  double unpin_seconds = 0;
  double prepass_seconds = 0;
  double sweep_seconds = 0;
  double host_correction_seconds = 0;
  double total_seconds = 0;
  std::int64_t bytes_to_device = 0;  // pre-pass planes + every slab
  std::int64_t bytes_to_host = 0;    // every slab
  std::int64_t prepass_planes = 0;   // planes the pre-pass uploaded
  std::int64_t corrected_planes = 0;  // planes the host corrections changed
  std::int64_t slabs = 0;
  std::int64_t slab_planes = 0;
  int buffers = 0;
  // "registered", "already page-locked", or "staged: <why>" (registration failed or
  // was declined, so every slab went through pinned staging buffers).
  std::string host_memory;
};

// In place on `host_volume` (one field of `shape`, C order, channels innermost; D >= 1),
// axis 0 streamed. Throws splinebench::Error for invalid arguments, Unsupported when the
// device is missing or its memory cannot hold the buffers. Every buffer, stream, event
// and the registration are released on every path.
void prefilter_streamed(float* host_volume, const GridShape& shape, Mode mode, const StreamOptions& options,
                        StreamReport& report);

}  // namespace splinebench::gpu::slabs
