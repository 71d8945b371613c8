// Does compute-sanitizer racecheck report ordered cp.async.bulk copies into one shared
// buffer as write-write hazards? One block, thread 0 copies 256 floats global -> shared
// with cp.async.bulk completing on an mbarrier; every thread waits for the phase, reads
// the buffer, block barrier; then the next copy into the same buffer. Variants:
//   same_barrier  both copies complete on one barrier (phases 0 and 1): the pattern
//                 inside one stream_only_bulk tile
//   reinit        between the copies the barrier is invalidated and initialised again
//                 (mbarrier.inval, init, fence.proxy.async, block barrier): the pattern
//                 between two tiles
//   reinit_fence  as reinit, plus fence.proxy.async before the second copy
// Every variant checks the data it read (a wrong value is counted).
// Build: nvcc -arch=sm_90 -std=c++17 -o repro repro.cu
// Run:   compute-sanitizer --tool racecheck ./repro <variant>
#include <cuda/ptx>
#include <cstdio>
#include <cstdlib>
#include <cstring>

constexpr int kFloats = 256;

__device__ void init_bar(std::uint64_t* bar) {
  cuda::ptx::mbarrier_init(bar, 1u);
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
}
__device__ void inval_bar(std::uint64_t* bar) {
  const auto addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(addr) : "memory");
}
__device__ void copy(float* dst, const float* src, std::uint64_t* bar) {
  (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                             bar, kFloats * 4u);
  cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, src, kFloats * 4u, bar);
}
__device__ void wait(std::uint64_t* bar, std::uint32_t parity) {
  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}

__global__ void kernel(const float* a, const float* b, int variant, int* wrong) {
  __shared__ alignas(128) float buf[kFloats];
  __shared__ alignas(8) std::uint64_t bar;
  const int t = threadIdx.x;
  if (t == 0) init_bar(&bar);
  __syncthreads();
  if (t == 0) copy(buf, a, &bar);
  wait(&bar, 0);
  if (buf[t] != a[t]) atomicAdd(wrong, 1);
  __syncthreads();  // every thread is done with the first copy's data
  std::uint32_t parity = 1;
  if (variant >= 1) {  // reinit, reinit_fence
    if (t == 0) {
      inval_bar(&bar);
      init_bar(&bar);
    }
    __syncthreads();
    parity = 0;
  }
  if (t == 0) {
    if (variant == 2) cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    copy(buf, b, &bar);
  }
  wait(&bar, parity);
  if (buf[t] != b[t]) atomicAdd(wrong, 1);
  __syncthreads();
  if (t == 0) inval_bar(&bar);
}

int main(int argc, char** argv) {
  const char* names[] = {"same_barrier", "reinit", "reinit_fence"};
  int variant = -1;
  for (int v = 0; v < 3; ++v)
    if (argc > 1 && std::strcmp(argv[1], names[v]) == 0) variant = v;
  if (variant < 0) {
    std::fprintf(stderr, "usage: repro same_barrier|reinit|reinit_fence\n");
    return 2;
  }
  float host[2 * kFloats];
  for (int i = 0; i < 2 * kFloats; ++i) host[i] = static_cast<float>(i) * 0.5f + 1.f;
  float* d = nullptr;
  int* wrong = nullptr;
  if (cudaMalloc(&d, sizeof(host)) != cudaSuccess || cudaMalloc(&wrong, sizeof(int)) != cudaSuccess) return 1;
  cudaMemcpy(d, host, sizeof(host), cudaMemcpyHostToDevice);
  cudaMemset(wrong, 0, sizeof(int));
  kernel<<<1, kFloats>>>(d, d + kFloats, variant, wrong);
  const cudaError_t err = cudaDeviceSynchronize();
  int w = -1;
  cudaMemcpy(&w, wrong, sizeof(int), cudaMemcpyDeviceToHost);
  std::printf("%s: %s, wrong values %d\n", names[variant], cudaGetErrorString(err), w);
  return err == cudaSuccess && w == 0 ? 0 : 1;
}
