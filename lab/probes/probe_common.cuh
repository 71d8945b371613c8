// Scaffolding shared by the standalone load probes (probe_xy_loads.cu, probe_yx_tma.cu,
// probe_yx_cluster.cu): a checked CUDA call, the clean L2 state before every timed run
// (the same 256 MiB read as bench/gpu_prefilter's "clean" state), medians of event-timed
// runs, the N^3 test field every probe streams and a tensor map over it, and the
// block-side pieces the lone-block kernels share (stage barriers, tickets; the cluster
// probe takes a ticket per cluster and shares its barriers across blocks, so it has its
// own). Header-only, so each probe still builds with one nvcc line.
#pragma once

#include <cuda.h>
#include <cuda/ptx>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                                 \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

// Reads n float4 that nothing writes: afterwards L2 holds only clean lines.
__global__ void probe_read_everything(const float4* p, std::size_t n, float* out) {
  float s = 0;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += p[i].x;
  if (s == -1.0f) *out = s;
}

// Median of 11 runs of op(), each after the clean-state read, timed with CUDA events.
class CleanTimer {
 public:
  CleanTimer() {
    CK(cudaMalloc(&flush_, kFlushFloat4 * 16));
    CK(cudaMemset(flush_, 0, kFlushFloat4 * 16));
    CK(cudaMalloc(&junk_, 4));
    CK(cudaEventCreate(&e0_));
    CK(cudaEventCreate(&e1_));
  }
  template <class Op>
  float median_ms(Op&& op) {
    std::vector<float> t;
    for (int r = 0; r < 11; ++r) {
      probe_read_everything<<<1024, 256>>>(flush_, kFlushFloat4, junk_);
      CK(cudaGetLastError());
      CK(cudaEventRecord(e0_));
      op();
      CK(cudaEventRecord(e1_));
      CK(cudaEventSynchronize(e1_));
      float ms;
      CK(cudaEventElapsedTime(&ms, e0_, e1_));
      t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }

 private:
  static constexpr std::size_t kFlushFloat4 = (256u << 20) / 16;
  float4* flush_ = nullptr;
  float* junk_ = nullptr;
  cudaEvent_t e0_{}, e1_{};
};

// An N^3 float field on the device (values in [0, 1), not constant) and its host copy.
struct ProbeField {
  std::size_t values = 0;
  std::vector<float> host;
  float* src = nullptr;
  float* dst = nullptr;
  explicit ProbeField(int n) : values(static_cast<std::size_t>(n) * n * n), host(values) {
    for (std::size_t i = 0; i < values; ++i) host[i] = static_cast<float>((i * 2654435761u) % 1000) * 1e-3f;
    CK(cudaMalloc(&src, values * 4));
    CK(cudaMalloc(&dst, values * 4));
    CK(cudaMemcpy(src, host.data(), values * 4, cudaMemcpyHostToDevice));
  }
  ~ProbeField() {
    cudaFree(src);
    cudaFree(dst);
  }
  ProbeField(const ProbeField&) = delete;
  ProbeField& operator=(const ProbeField&) = delete;
  // Values of dst that differ from the source (after runs that write every value once).
  std::size_t dst_differences() const {
    std::vector<float> back(values);
    CK(cudaMemcpy(back.data(), dst, values * 4, cudaMemcpyDeviceToHost));
    std::size_t bad = 0;
    for (std::size_t i = 0; i < values; ++i) bad += back[i] != host[i];
    return bad;
  }
};

// A tiled tensor map over the N^3 float field at src (x fastest), `box` values per copy
// (x, y, z), zeros outside the field; false where the driver refuses the encoding.
// (Inline and header-only: a probe that never calls it needs no -lcuda.)
inline bool encode_cube_map(CUtensorMap* map, const float* src, int n, const cuuint32_t (&box)[3],
                            CUtensorMapSwizzle swizzle) {
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(n), static_cast<cuuint64_t>(n), static_cast<cuuint64_t>(n)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(n) * 4, static_cast<cuuint64_t>(n) * n * 4};
  const cuuint32_t unit[3] = {1, 1, 1};
  return cuTensorMapEncodeTiled(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, const_cast<float*>(src), dims, strides, box,
                                unit, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// The block's `stages` mbarriers (one arrival each), initialised by thread 0 and made
// visible to the async proxy (bulk and tensor copies) before any thread goes on.
__device__ inline void init_stage_barriers(std::uint64_t* bars, int stages) {
  if (threadIdx.x == 0)
    for (int k = 0; k < stages; ++k) cuda::ptx::mbarrier_init(bars + k, 1u);
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  __syncthreads();
}

// The block's next tile from the global ticket counter: thread 0 takes it into the
// shared `slot`, and every thread returns it.
__device__ inline int take_ticket(unsigned* ticket, int* slot) {
  if (threadIdx.x == 0) *slot = static_cast<int>(atomicAdd(ticket, 1u));
  __syncthreads();
  return *slot;
}
