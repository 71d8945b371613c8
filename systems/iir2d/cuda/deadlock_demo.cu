// The hazard flexible allocation exists to avoid: rows pinned to blocks, each block
// spinning until the row above is ahead of it. With more blocks than can be resident
// and rows handed out in reverse launch order, the resident blocks wait for rows whose
// blocks cannot start until a resident one leaves: a deadlock. The CUDA programming
// model gives no forward-progress guarantee to blocks that are not resident. Here a
// host timeout raises a flag in mapped host memory; spinning blocks read it and leave.
#include <chrono>
#include <thread>

#include <cuda/atomic>

#include "cuda_check.hpp"
#include "splinebench/iir2d/gpu.hpp"

namespace splinebench::iir2d {

namespace {

constexpr int kCols = 64;

__global__ void __launch_bounds__(32) pinned_rows(int* progress, const volatile unsigned* abort,
                                                  unsigned long long* gave_up, std::int64_t rows) {
  if (threadIdx.x != 0) return;
  const std::int64_t row = rows - 1 - blockIdx.x;  // reverse launch order
  for (int j = 0; j < kCols; ++j) {
    if (row > 0) {
      cuda::atomic_ref<int, cuda::thread_scope_device> up(progress[row - 1]);
      while (up.load(cuda::memory_order_acquire) < j + 1) {
        if (*abort) {
          atomicAdd(gave_up, 1ull);
          return;
        }
        __nanosleep(1000);
      }
    }
    cuda::atomic_ref<int, cuda::thread_scope_device>(progress[row]).store(j + 1, cuda::memory_order_release);
  }
}

}  // namespace

DeadlockDemo run_deadlock_demo(double timeout_s) {
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) throw Unsupported("iir2d: " + why);
  DeadlockDemo d;
  int device = 0, sms = 0, per_sm = 0;
  IIR2D_CUDA(cudaGetDevice(&device));
  IIR2D_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  IIR2D_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, pinned_rows, 32, 0));
  d.resident_capacity = static_cast<std::int64_t>(sms) * per_sm;
  d.blocks = 4 * d.resident_capacity;

  int* progress = nullptr;
  unsigned long long* gave_up = nullptr;
  unsigned* abort_host = nullptr;
  unsigned* abort_dev = nullptr;
  IIR2D_CUDA(cudaMalloc(&progress, static_cast<std::size_t>(d.blocks) * sizeof(int)));
  IIR2D_CUDA(cudaMalloc(&gave_up, sizeof(unsigned long long)));
  IIR2D_CUDA(cudaHostAlloc(&abort_host, sizeof(unsigned), cudaHostAllocMapped));
  *abort_host = 0;
  IIR2D_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&abort_dev), abort_host, 0));
  IIR2D_CUDA(cudaMemset(progress, 0, static_cast<std::size_t>(d.blocks) * sizeof(int)));
  IIR2D_CUDA(cudaMemset(gave_up, 0, sizeof(unsigned long long)));

  cudaStream_t stream = nullptr;
  IIR2D_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const auto start = std::chrono::steady_clock::now();
  pinned_rows<<<static_cast<unsigned>(d.blocks), 32, 0, stream>>>(progress, abort_dev, gave_up, d.blocks);
  IIR2D_CUDA(cudaGetLastError());
  for (;;) {
    const cudaError_t q = cudaStreamQuery(stream);
    if (q == cudaSuccess) break;
    if (q != cudaErrorNotReady) IIR2D_CUDA(q);
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > timeout_s) {
      d.deadlocked = true;
      *reinterpret_cast<volatile unsigned*>(abort_host) = 1;  // the device reads it through the mapping
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  IIR2D_CUDA(cudaStreamSynchronize(stream));
  d.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  unsigned long long n = 0;
  IIR2D_CUDA(cudaMemcpy(&n, gave_up, sizeof(n), cudaMemcpyDeviceToHost));
  d.gave_up = static_cast<std::int64_t>(n);
  cudaStreamDestroy(stream);
  cudaFree(progress);
  cudaFree(gave_up);
  cudaFreeHost(abort_host);
  return d;
}

}  // namespace splinebench::iir2d
