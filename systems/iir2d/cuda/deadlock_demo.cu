// The hazard flexible allocation exists to avoid: rows pinned to blocks, each block
// spinning until the row above is ahead of it. With more blocks than can be resident
// and rows handed out in reverse launch order, the resident blocks wait for rows whose
// blocks cannot start until a resident one leaves: a deadlock. The CUDA programming
// model gives no forward-progress guarantee to blocks that are not resident. Here a
// host timeout raises a flag in mapped host memory; spinning blocks read it and leave.
// The one spin loop also reads the device clock: a block that has waited longer than
// the timeout plus a second raises a device flag and leaves, and every block that sees
// that flag leaves too, so the kernel ends even if the host's store never became
// visible through the mapping.
#include <chrono>
#include <thread>

#include <cuda/atomic>

#include "device_common.cuh"
#include "splinebench/cuda/check.hpp"
#include "splinebench/iir2d/gpu.hpp"

namespace splinebench::iir2d {

namespace {

constexpr int kCols = 64;

__global__ void __launch_bounds__(32) pinned_rows(int* progress, const volatile unsigned* abort,
                                                  unsigned* timed_out, unsigned long long* gave_up,
                                                  std::int64_t rows, unsigned long long limit_ns) {
  if (threadIdx.x != 0) return;
  const std::int64_t row = rows - 1 - blockIdx.x;  // reverse launch order
  const std::uint64_t start = dev::global_ns();
  for (int j = 0; j < kCols; ++j) {
    if (row > 0) {
      cuda::atomic_ref<int, cuda::thread_scope_device> up(progress[row - 1]);
      while (up.load(cuda::memory_order_acquire) < j + 1) {
        const bool late = dev::global_ns() - start > limit_ns;
        if (*abort || late || *reinterpret_cast<volatile unsigned*>(timed_out)) {
          if (late) atomicExch(timed_out, 1u);
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
  SB_CUDA_CHECK(cudaGetDevice(&device));
  SB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  SB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, pinned_rows, 32, 0));
  d.resident_capacity = static_cast<std::int64_t>(sms) * per_sm;
  d.blocks = 4 * d.resident_capacity;

  if (!(timeout_s > 0) || timeout_s > 600) throw Error("iir2d: the deadlock demonstration's timeout must be in (0, 600] s");
  int* progress = nullptr;
  unsigned* timed_out = nullptr;
  unsigned long long* gave_up = nullptr;
  unsigned* abort_host = nullptr;
  unsigned* abort_dev = nullptr;
  SB_CUDA_CHECK(cudaMalloc(&progress, static_cast<std::size_t>(d.blocks) * sizeof(int)));
  SB_CUDA_CHECK(cudaMalloc(&gave_up, sizeof(unsigned long long)));
  SB_CUDA_CHECK(cudaMalloc(&timed_out, sizeof(unsigned)));
  SB_CUDA_CHECK(cudaMemset(timed_out, 0, sizeof(unsigned)));
  SB_CUDA_CHECK(cudaHostAlloc(&abort_host, sizeof(unsigned), cudaHostAllocMapped));
  *abort_host = 0;
  SB_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&abort_dev), abort_host, 0));
  SB_CUDA_CHECK(cudaMemset(progress, 0, static_cast<std::size_t>(d.blocks) * sizeof(int)));
  SB_CUDA_CHECK(cudaMemset(gave_up, 0, sizeof(unsigned long long)));

  cudaStream_t stream = nullptr;
  SB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const auto start = std::chrono::steady_clock::now();
  const auto limit_ns = static_cast<unsigned long long>((timeout_s + 1.0) * 1e9);
  pinned_rows<<<static_cast<unsigned>(d.blocks), 32, 0, stream>>>(progress, abort_dev, timed_out, gave_up, d.blocks,
                                                                   limit_ns);
  SB_CUDA_CHECK(cudaGetLastError());
  for (;;) {
    const cudaError_t q = cudaStreamQuery(stream);
    if (q == cudaSuccess) break;
    if (q != cudaErrorNotReady) SB_CUDA_CHECK(q);
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > timeout_s) {
      d.deadlocked = true;
      *reinterpret_cast<volatile unsigned*>(abort_host) = 1;  // the device reads it through the mapping
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  d.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  unsigned long long n = 0;
  SB_CUDA_CHECK(cudaMemcpy(&n, gave_up, sizeof(n), cudaMemcpyDeviceToHost));
  d.gave_up = static_cast<std::int64_t>(n);
  unsigned device_timeout = 0;
  SB_CUDA_CHECK(cudaMemcpy(&device_timeout, timed_out, sizeof(unsigned), cudaMemcpyDeviceToHost));
  d.deadlocked = d.deadlocked || device_timeout != 0;
  // Blocks that gave up returned normally: no error is pending, and the device takes the
  // next kernel (the test runs a scheme afterwards to show it).
  SB_CUDA_CHECK(cudaStreamDestroy(stream));
  SB_CUDA_CHECK(cudaFree(progress));
  SB_CUDA_CHECK(cudaFree(timed_out));
  SB_CUDA_CHECK(cudaFree(gave_up));
  SB_CUDA_CHECK(cudaFreeHost(abort_host));
  return d;
}

}  // namespace splinebench::iir2d
