// The gpu_lines kernels (one per pass kind, segment length S and index width; bodies in
// lines_body.hpp) and LinesRunner (lines_launch.hpp): planning for the device, the graph
// of the D passes, and its replay.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "gpu_lines/lines_body.hpp"
#include "gpu_lines/lines_launch.hpp"
#include "splinebench/cuda/check.hpp"
#include "splinebench/error.hpp"

namespace splinebench::gpu::lines {
namespace {

// Programmatic dependent launch: every pass waits for the grid before it (immediate
// unless launched with programmatic stream serialization) before its first load or store,
// then lets the next pass launch at once; the next pass's blocks wait in the same place
// until this grid has completed and flushed its writes. A pass thus never reads a buffer
// before the pass that writes it has finished, nor writes one that an earlier pass still
// reads (each wait is for a grid that itself waited for its predecessor). Compiled for
// sm_90 and later only; older devices are never launched with the attribute.
__device__ __forceinline__ void wait_for_previous_pass() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void let_next_pass_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

template <int S, typename Index>
__global__ void __launch_bounds__(kThreads)
    strided_kernel(const float* __restrict__ in, float* __restrict__ out, Pass P, int mode) {
  wait_for_previous_pass();
  let_next_pass_launch();
  const Index t = static_cast<Index>(blockIdx.x) * static_cast<Index>(kThreads) + static_cast<Index>(threadIdx.x);
  if (t < static_cast<Index>(P.tasks)) strided_task<S, true>(in, out, P, mode, t);
}

template <int S, typename Index>
__global__ void __launch_bounds__(kThreads)
    staged_kernel(const float* __restrict__ in, float* __restrict__ out, Pass P, int mode) {
  extern __shared__ float sm[];
  wait_for_previous_pass();
  let_next_pass_launch();
  const Index b = static_cast<Index>(blockIdx.x);
  const int tid = static_cast<int>(threadIdx.x);
  staged_load<true>(in, P, b, tid, sm);
  __syncthreads();
  float c[S];
  const bool active = staged_lane<S>(P, b, tid, sm, mode, c);
  __syncthreads();
  if (active) staged_put<S>(P, b, tid, c, sm);
  __syncthreads();
  staged_store(P, b, tid, sm, out);
}

// What the runner needs of a device, asked once per device per process. The staged
// kernels are allowed the shared-memory budget there, so that no kernel attribute is set
// while a graph is captured.
struct DeviceFacts {
  int device = -1;
  int staged_budget_bytes = 0;
  bool pdl = false;  // compute capability 9.0 or later
};

template <typename Index>
void allow_shared_memory(int bytes) {
  for (const int S : kSegmentLengths)
    with_segment(S, [&](auto Sc) {
      SB_CUDA_CHECK(cudaFuncSetAttribute(staged_kernel<decltype(Sc)::value, Index>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    });
}

DeviceFacts device_facts(int device) {
  static std::mutex mutex;
  static std::vector<DeviceFacts> known;
  const std::lock_guard<std::mutex> lock(mutex);
  for (const DeviceFacts& f : known)
    if (f.device == device) return f;
  DeviceFacts f;
  f.device = device;
  int optin = 0, major = 0;
  SB_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  SB_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  f.staged_budget_bytes = std::min(kStagedBudgetBytes, optin);
  f.pdl = major >= 9;
  allow_shared_memory<std::uint32_t>(f.staged_budget_bytes);
  allow_shared_memory<std::uint64_t>(f.staged_budget_bytes);
  known.push_back(f);
  return f;
}

void launch_pass(const Pass& q, bool wide, const float* src, float* dst, int mode, cudaStream_t stream, bool pdl) {
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(static_cast<unsigned>(q.blocks));
  cfg.blockDim = dim3(kThreads);
  cfg.dynamicSmemBytes = q.staged ? q.smem_bytes : 0;
  cfg.stream = stream;
  cfg.attrs = pdl ? attr : nullptr;
  cfg.numAttrs = pdl ? 1 : 0;
  with_segment(q.S, [&](auto Sc) {
    constexpr int S = decltype(Sc)::value;
    if (wide) {
      if (q.staged)
        SB_CUDA_CHECK(cudaLaunchKernelEx(&cfg, staged_kernel<S, std::uint64_t>, src, dst, q, mode));
      else
        SB_CUDA_CHECK(cudaLaunchKernelEx(&cfg, strided_kernel<S, std::uint64_t>, src, dst, q, mode));
    } else {
      if (q.staged)
        SB_CUDA_CHECK(cudaLaunchKernelEx(&cfg, staged_kernel<S, std::uint32_t>, src, dst, q, mode));
      else
        SB_CUDA_CHECK(cudaLaunchKernelEx(&cfg, strided_kernel<S, std::uint32_t>, src, dst, q, mode));
    }
  });
  SB_CUDA_CHECK_LAUNCH("a gpu_lines pass");
}

}  // namespace

LinesRunner::~LinesRunner() = default;

const Plan& LinesRunner::plan_for(int device, const GridShape& shape, std::int64_t fields) {
  if (planned_ && plan_device_ == device && plan_shape_ == shape && plan_fields_ == fields) return plan_;
  const DeviceFacts facts = device_facts(device);
  PlanOptions options;
  options.staged_budget_bytes = facts.staged_budget_bytes;
  planned_ = false;
  plan_ = make_plan(shape, fields, options);
  plan_device_ = device;
  plan_shape_ = shape;
  plan_fields_ = fields;
  planned_ = true;
  return plan_;
}

std::int64_t LinesRunner::tmp_values(const GridShape& shape, std::int64_t fields) {
  int device = 0;
  SB_CUDA_CHECK(cudaGetDevice(&device));
  const Plan& plan = plan_for(device, shape, fields);
  return plan.count > 1 ? plan.values : 0;
}

void LinesRunner::launch_passes(const Problem& p, bool pdl) const {
  const float* bufs[3] = {p.in, p.out, p.tmp};
  for (int k = 0; k < plan_.count; ++k) {
    const float* src = bufs[src_buffer(plan_.count, k)];
    float* dst = dst_buffer(plan_.count, k) == 1 ? p.out : p.tmp;
    launch_pass(plan_.pass[k], plan_.wide, src, dst, static_cast<int>(p.mode), p.stream, pdl && k > 0);
  }
}

void LinesRunner::ready(const GridShape& shape, std::int64_t fields, Mode mode, const float* d_in, float* d_out,
                        float* d_tmp, cudaStream_t stream) {
  Problem p;
  SB_CUDA_CHECK(cudaGetDevice(&p.device));
  p.shape = shape;
  p.fields = fields;
  p.mode = mode;
  p.in = d_in;
  p.out = d_out;
  p.tmp = d_tmp;
  p.stream = stream;
  if (ready_ && problem_ == p) return;

  const Plan& plan = plan_for(p.device, shape, fields);
  if (!d_in || !d_out) throw Error("gpu_lines: null input or output buffer");
  if (plan.count > 1 && !d_tmp) throw Error("gpu_lines: a plan of several passes needs a temporary buffer");
  if (d_in == d_out || (d_tmp && (d_tmp == d_in || d_tmp == d_out)))
    throw Error("gpu_lines: input, output and temporary must be distinct buffers (no pass is in place)");
  for (const void* ptr : {static_cast<const void*>(d_in), static_cast<const void*>(d_out),
                          static_cast<const void*>(d_tmp)})
    if (reinterpret_cast<std::uintptr_t>(ptr) % 16 != 0)
      throw Error("gpu_lines: buffers must be 16-byte aligned (the staged pass loads float4s)");

  forget();
  description_ = describe(plan);
  const DeviceFacts facts = device_facts(p.device);
  std::string why_not_pdl = "compute capability below 9.0";
  if (facts.pdl) {
    graph_ = std::make_unique<CapturedGraph>(stream, [&] { launch_passes(p, true); });
    if (graph_->captured()) {
      launch_ = "graph with PDL";
    } else {
      why_not_pdl = graph_->why();
      graph_.reset();
    }
  }
  if (!graph_) {
    graph_ = std::make_unique<CapturedGraph>(stream, [&] { launch_passes(p, false); });
    if (graph_->captured()) {
      launch_ = "graph (no PDL: " + why_not_pdl + ")";
    } else {
      launch_ = "launches (no graph: " + graph_->why() + ")";
      graph_.reset();
    }
  }
  problem_ = p;
  ready_ = true;
}

void LinesRunner::run(const GridShape& shape, std::int64_t fields, Mode mode, const float* d_in, float* d_out,
                      float* d_tmp, cudaStream_t stream) {
  ready(shape, fields, mode, d_in, d_out, d_tmp, stream);
  if (graph_)
    graph_->replay();
  else
    launch_passes(problem_, false);
}

void LinesRunner::forget() {
  graph_.reset();
  ready_ = false;
}

}  // namespace splinebench::gpu::lines
