// Small fields by short, independent lanes: the N-D cubic B-spline prefilter as one short,
// wide kernel per axis, every lane computing a segment of S outputs of one line from its own
// folded samples with 16-sample halos (short_lines.hpp), the D passes replayed from one CUDA
// graph (plain, and with programmatic dependent launch between the passes), and as one
// cooperative launch with grid.sync() between the axes. Question: on fields where gpu_flex
// is latency-bound (128^3: 7.2x a copy, 48^4: 13x, 100 RGBA 160x120 frames: 0.072 ms on the
// H200), does this reach 128^3 <= 4x a copy, 48^4 <= 6x, 100 frames <= 0.04 ms? 256^3 is the
// large (bandwidth-bound) control. README.md says more.
//
// Per case: fresh random data, three plans (segment cap 16, 32, 64; cap 32 the default),
// outputs poisoned (NaN) before every checked run and compared with the double oracle (every
// mode for the default plan's passes; mirror for every plan and variant) and with the host
// emulation of the same kernels' bodies (bits, mirror); rel L2 above 2e-7 or a NaN fails
// the run (exit 1). Timing: CUDA events, medians of --reps runs (21 by default) after 3
// warm-ups, all operations interleaved in each L2 state: hot (right after the previous
// operation), cold (after a 256 MiB memset: L2 full of dirty lines), clean (after reading
// 256 MiB that nothing writes), as bench_gpu_prefilter's states.
//   nvcc -O3 -arch=sm_90 -std=c++20 -I../../../impls/core/include short_lines.cu
//     ../../../build-device/impls/core/libsplinebench_core.a -Xcompiler -fopenmp -o /tmp/short_lines
//   /tmp/short_lines [--reps N] [case ...]   (cases: 3d_128 4d_48 frames_160x120_rgba_x100 3d_256)
#include <cooperative_groups.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../probe_common.cuh"
#include "short_lines.hpp"
#include "splinebench/oracle.hpp"

namespace sb = splinebench;
namespace sl = short_lines;
namespace cg = cooperative_groups;

namespace {

constexpr double kMaxRelL2 = 2e-7;
constexpr int kCaps[] = {16, 32, 64};
constexpr int kDefaultCap = 32;
constexpr int kMaxDynamicSmem = 100 * 1024;

// ---- kernels -------------------------------------------------------------------------------
// Every pass kernel waits for the grid before it (griddepcontrol.wait: immediate unless
// launched with programmatic stream serialization) and lets the next one launch at once
// (its blocks then wait in griddepcontrol.wait for this grid's completion and memory flush).
__device__ __forceinline__ void pdl_wait() { asm volatile("griddepcontrol.wait;" ::: "memory"); }
__device__ __forceinline__ void pdl_launch_dependents() { asm volatile("griddepcontrol.launch_dependents;"); }

__global__ void empty_kernel() {}

template <int S, bool NC>
__device__ __forceinline__ void staged_block(const float* in, float* out, const sl::Pass& P, int mode, std::uint32_t b,
                                             float* sm) {
  const int tid = static_cast<int>(threadIdx.x);
  sl::staged_load<NC>(in, P, b, tid, sm);
  __syncthreads();
  float c[S];
  const bool active = sl::staged_lane<S>(P, b, tid, sm, mode, c);
  __syncthreads();
  if (active) sl::staged_put<S>(P, tid, c, sm);
  __syncthreads();
  sl::staged_store(P, b, tid, sm, out);
}

template <int S>
__global__ void __launch_bounds__(sl::kThreads) strided_kernel(const float* __restrict__ in, float* __restrict__ out,
                                                               sl::Pass P, int mode) {
  pdl_wait();
  pdl_launch_dependents();
  const std::uint32_t t = blockIdx.x * sl::kThreads + threadIdx.x;
  if (t < P.tasks) sl::strided_task<S, true>(in, out, P, mode, t);
}

template <int S>
__global__ void __launch_bounds__(sl::kThreads) staged_kernel(const float* __restrict__ in, float* __restrict__ out,
                                                              sl::Pass P, int mode) {
  extern __shared__ float sm[];
  pdl_wait();
  pdl_launch_dependents();
  staged_block<S, true>(in, out, P, mode, blockIdx.x, sm);
}

struct Buffers {
  const float* in;
  float* out;
  float* tmp;
};

// All passes in one cooperative launch: blocks loop over each pass's blocks (staged) or
// lanes (strided), grid.sync() between the axes; plain loads (L1 is not kept coherent with
// other blocks' writes for the read-only path).
template <int S>
__global__ void __launch_bounds__(sl::kThreads) coop_kernel(Buffers B, sl::Plan plan, int mode) {
  extern __shared__ float sm[];
  cg::grid_group grid = cg::this_grid();
  for (int p = 0; p < plan.count; ++p) {
    const sl::Pass P = plan.pass[p];
    const int si = sl::src_buffer(plan.count, p);
    const float* src = si == 0 ? B.in : si == 1 ? B.out : B.tmp;
    float* dst = sl::dst_buffer(plan.count, p) == 1 ? B.out : B.tmp;
    if (P.staged) {
      for (std::uint32_t b = blockIdx.x; b < P.blocks; b += gridDim.x) {
        staged_block<S, false>(src, dst, P, mode, b, sm);
        __syncthreads();
      }
    } else {
      for (std::uint32_t t = blockIdx.x * sl::kThreads + threadIdx.x; t < P.tasks; t += gridDim.x * sl::kThreads)
        sl::strided_task<S, false>(src, dst, P, mode, t);
    }
    if (p + 1 < plan.count) grid.sync();
  }
}

// ---- host side -----------------------------------------------------------------------------
struct Device {
  int sms = 0;
  bool coop = false;
};
Device g_dev;

cudaError_t launch_pass(const sl::Pass& q, const float* src, float* dst, int mode, cudaStream_t st, bool pdl) {
  cudaError_t e = cudaSuccess;
  sl::with_segment(q.S, [&](auto Sc) {
    constexpr int S = decltype(Sc)::value;
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(q.blocks);
    cfg.blockDim = dim3(sl::kThreads);
    cfg.dynamicSmemBytes = q.staged ? q.smem_bytes : 0;
    cfg.stream = st;
    cfg.attrs = pdl ? at : nullptr;
    cfg.numAttrs = pdl ? 1 : 0;
    e = q.staged ? cudaLaunchKernelEx(&cfg, staged_kernel<S>, src, dst, q, mode)
                 : cudaLaunchKernelEx(&cfg, strided_kernel<S>, src, dst, q, mode);
  });
  return e;
}

cudaError_t launch_passes(const sl::Plan& plan, const Buffers& B, int mode, cudaStream_t st, bool pdl) {
  for (int p = 0; p < plan.count; ++p) {
    const int si = sl::src_buffer(plan.count, p);
    const float* src = si == 0 ? B.in : si == 1 ? B.out : B.tmp;
    float* dst = sl::dst_buffer(plan.count, p) == 1 ? B.out : B.tmp;
    const cudaError_t e = launch_pass(plan.pass[p], src, dst, mode, st, pdl && p > 0);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

// The passes captured into one graph; an error (say, PDL edges refused in capture) is
// returned, not fatal.
cudaError_t capture(const sl::Plan& plan, const Buffers& B, int mode, cudaStream_t st, bool pdl, cudaGraphExec_t* exec) {
  *exec = nullptr;
  cudaError_t e = cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal);
  if (e != cudaSuccess) return e;
  e = launch_passes(plan, B, mode, st, pdl);
  cudaGraph_t g = nullptr;
  const cudaError_t e2 = cudaStreamEndCapture(st, &g);
  if (e == cudaSuccess) e = e2;
  if (e == cudaSuccess) e = cudaGraphInstantiate(exec, g, 0);
  if (g) cudaGraphDestroy(g);
  (void)cudaGetLastError();
  return e;
}

struct Coop {
  bool ok = false;
  std::string why;
  int S = 0;
  unsigned grid = 0;
  unsigned smem = 0;
  int per_sm = 0;
};

Coop plan_coop(const sl::Plan& plan) {
  Coop c;
  if (!g_dev.coop) return c.why = "no cooperative launch on this device", c;
  c.S = plan.uniform_S();
  if (!c.S) return c.why = "the passes' segment lengths differ", c;
  for (int p = 0; p < plan.count; ++p)
    if (plan.pass[p].staged) c.smem = std::max(c.smem, plan.pass[p].smem_bytes);
  unsigned need = 0;
  for (int p = 0; p < plan.count; ++p) need = std::max(need, plan.pass[p].blocks);
  sl::with_segment(c.S, [&](auto Sc) {
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&c.per_sm, coop_kernel<decltype(Sc)::value>, sl::kThreads,
                                                     c.smem));
  });
  if (c.per_sm < 1) return c.why = "no block fits on an SM", c;
  c.grid = std::min<unsigned>(need, static_cast<unsigned>(c.per_sm * g_dev.sms));
  c.ok = true;
  return c;
}

void launch_coop(const Coop& c, const sl::Plan& plan, Buffers B, int mode, cudaStream_t st) {
  sl::Plan P = plan;
  void* args[] = {&B, &P, &mode};
  sl::with_segment(c.S, [&](auto Sc) {
    CK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(coop_kernel<decltype(Sc)::value>), dim3(c.grid),
                                   dim3(sl::kThreads), args, c.smem, st));
  });
}

void print_kernel_resources() {
  std::printf("\nKernel resources (cudaFuncGetAttributes; local bytes > 0 means a stack or spills, see ptxas -v):\n\n"
              "| S | strided regs / local B | staged regs / local B | coop regs / local B |\n|---|---|---|---|\n");
  for (int S : sl::kSegSizes)
    sl::with_segment(S, [&](auto Sc) {
      constexpr int s = decltype(Sc)::value;
      cudaFuncAttributes a, b, c;
      CK(cudaFuncGetAttributes(&a, strided_kernel<s>));
      CK(cudaFuncGetAttributes(&b, staged_kernel<s>));
      CK(cudaFuncGetAttributes(&c, coop_kernel<s>));
      std::printf("| %d | %d / %zu | %d / %zu | %d / %zu |\n", s, a.numRegs, a.localSizeBytes, b.numRegs,
                  b.localSizeBytes, c.numRegs, c.localSizeBytes);
    });
}

void allow_shared_memory() {
  for (int S : sl::kSegSizes)
    sl::with_segment(S, [&](auto Sc) {
      constexpr int s = decltype(Sc)::value;
      CK(cudaFuncSetAttribute(staged_kernel<s>, cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxDynamicSmem));
      CK(cudaFuncSetAttribute(coop_kernel<s>, cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxDynamicSmem));
    });
}

// Spins for ns nanoseconds of the global timer (the benchmark's stream hold).
__global__ void hold_spin(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct CaseDef {
  const char* name;
  std::vector<std::int64_t> ext;
  int C;
  std::int64_t fields;
  double target_ratio;  // probe / copy (hot) at most; 0: none
  double target_ms;     // probe ms (hot) at most; 0: none
  const char* target;
};

const std::vector<CaseDef> kCases = {
    {"3d_128", {128, 128, 128}, 1, 1, 4.0, 0, "<= 4x copy"},
    {"4d_48", {48, 48, 48, 48}, 1, 1, 6.0, 0, "<= 6x copy"},
    {"frames_160x120_rgba_x100", {120, 160}, 4, 100, 0, 0.04, "<= 0.04 ms"},
    {"3d_256", {256, 256, 256}, 1, 1, 0, 0, "(control)"},
};

enum State { kHot, kCold, kClean, kStates };

struct L2Conditioner {
  static constexpr std::size_t kBytes = std::size_t{256} << 20;
  float* dirty = nullptr;
  float4* clean = nullptr;
  float* sink = nullptr;
  L2Conditioner() {
    CK(cudaMalloc(&dirty, kBytes));
    CK(cudaMalloc(&clean, kBytes));
    CK(cudaMalloc(&sink, 4));
    CK(cudaMemset(clean, 0, kBytes));
    CK(cudaMemset(dirty, 0, kBytes));
    CK(cudaDeviceSynchronize());
  }
  void operator()(State s, cudaStream_t st) const {
    if (s == kCold) CK(cudaMemsetAsync(dirty, 0, kBytes, st));
    if (s == kClean) {
      probe_read_everything<<<1024, 256, 0, st>>>(clean, kBytes / 16, sink);
      CK(cudaGetLastError());
    }
  }
};

struct Op {
  std::string plan, variant;
  std::function<void()> run;
  float ms[kStates] = {0, 0, 0};
};

struct Summary {
  std::string row, states_row;
  bool accuracy_ok = true;
};

Summary run_case(const CaseDef& cd, int reps, const L2Conditioner& l2, cudaStream_t st) {
  Summary sum;
  const sb::GridShape shape = sb::GridShape::make(cd.ext, cd.C);
  const std::size_t total = static_cast<std::size_t>(shape.values() * cd.fields);
  const std::size_t bytes = total * 4;
  std::printf("\n## %s: %s, %d channel(s), %lld field(s), %.1f MB\n", cd.name, shape.to_string().c_str(), cd.C,
              static_cast<long long>(cd.fields), bytes / 1e6);
  std::mt19937_64 rng(std::hash<std::string>{}(cd.name) ^ 20261130u);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> h(total);
  for (float& v : h) v = u(rng);
  float *d_in, *d_out, *d_tmp, *d_copy;
  CK(cudaMalloc(&d_in, bytes));
  CK(cudaMalloc(&d_out, bytes));
  CK(cudaMalloc(&d_tmp, bytes));
  CK(cudaMalloc(&d_copy, bytes));
  CK(cudaMemcpy(d_in, h.data(), bytes, cudaMemcpyHostToDevice));
  const Buffers B{d_in, d_out, d_tmp};

  // Plans and their executables (mirror).
  struct PlanRun {
    sl::Plan plan;
    cudaGraphExec_t graph = nullptr, pdl = nullptr;
    std::string pdl_why;
    Coop coop;
  };
  std::vector<PlanRun> runs;
  for (int cap : kCaps) {
    PlanRun r;
    r.plan = sl::make_plan(cd.ext, cd.C, cd.fields, cap);
    std::printf("plan cap %d%s:\n", cap, cap == kDefaultCap ? " (default)" : "");
    for (int p = 0; p < r.plan.count; ++p) std::printf("  pass %d: %s\n", p, sl::describe(r.plan.pass[p]).c_str());
    CK(capture(r.plan, B, 0, st, false, &r.graph));
    const cudaError_t e = capture(r.plan, B, 0, st, true, &r.pdl);
    if (e != cudaSuccess) r.pdl_why = cudaGetErrorString(e);
    r.coop = plan_coop(r.plan);
    if (r.coop.ok)
      std::printf("  cooperative: S %d, %u blocks (%d per SM), %u B shared\n", r.coop.S, r.coop.grid, r.coop.per_sm,
                  r.coop.smem);
    else
      std::printf("  cooperative: not run (%s)\n", r.coop.why.c_str());
    if (!r.pdl_why.empty()) std::printf("  graph with PDL: not run (%s)\n", r.pdl_why.c_str());
    runs.push_back(r);
  }

  // Accuracy: poisoned outputs, oracle in f64, every mode for the default plan, mirror for all.
  std::vector<float> got(total);
  auto check = [&](const char* what, const std::function<void()>& run, const std::vector<double>& ref,
                   const std::vector<float>* emul, double* rel_out) {
    CK(cudaMemsetAsync(d_out, 0xFF, bytes, st));
    CK(cudaMemsetAsync(d_tmp, 0xFF, bytes, st));
    run();
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(st));
    CK(cudaMemcpy(got.data(), d_out, bytes, cudaMemcpyDeviceToHost));
    long double num = 0, den = 0;
    long long nans = 0, differ = 0;
    for (std::size_t k = 0; k < total; ++k) {
      if (!std::isfinite(got[k])) {
        ++nans;
        continue;
      }
      const long double d = static_cast<long double>(got[k]) - ref[k];
      num += d * d;
      den += static_cast<long double>(ref[k]) * ref[k];
      if (emul) differ += got[k] != (*emul)[k];
    }
    const double rel = nans ? INFINITY : static_cast<double>(std::sqrt(num / den));
    const bool ok = nans == 0 && rel <= kMaxRelL2;
    if (!ok) sum.accuracy_ok = false;
    if (rel_out) *rel_out = rel;
    std::printf("  %-46s rel L2 %.3e %s, %lld NaN", what, rel, ok ? "ok" : "FAIL", nans);
    if (emul) std::printf(", %lld of %zu differ from the host emulation's bits", differ, total);
    std::printf("\n");
  };
  std::vector<double> rel_mirror(runs.size(), NAN);
  std::printf("accuracy (limit rel L2 %.0e):\n", kMaxRelL2);
  for (const sb::Mode mode : sb::kAllModes) {
    std::vector<double> ref(h.begin(), h.end());
    sb::oracle::prefilter(shape, cd.fields, ref.data(), mode);
    const int m = static_cast<int>(mode);
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const sl::Plan& plan = runs[r].plan;
      const std::string tag = "cap " + std::to_string(plan.cap) + " " + std::string(sb::to_string(mode)) + " ";
      if (plan.cap == kDefaultCap)
        check((tag + "passes (stream)").c_str(), [&] { CK(launch_passes(plan, B, m, st, false)); }, ref, nullptr,
              nullptr);
      if (mode != sb::Mode::mirror) continue;
      std::vector<float> emul(total), etmp(total);
      sl::emulate_plan(plan, h.data(), emul.data(), etmp.data(), m);
      check((tag + "graph").c_str(), [&] { CK(cudaGraphLaunch(runs[r].graph, st)); }, ref, &emul, &rel_mirror[r]);
      if (runs[r].pdl)
        check((tag + "graph + PDL").c_str(), [&] { CK(cudaGraphLaunch(runs[r].pdl, st)); }, ref, &emul, nullptr);
      if (runs[r].coop.ok)
        check((tag + "cooperative").c_str(), [&] { launch_coop(runs[r].coop, plan, B, m, st); }, ref, &emul, nullptr);
    }
  }

  // Timing (mirror), interleaved.
  std::vector<Op> ops;
  ops.push_back({"-", "empty launch", [&] {
                   empty_kernel<<<1, 32, 0, st>>>();
                   CK(cudaGetLastError());
                 }});
  ops.push_back({"-", "copy", [&] { CK(cudaMemcpyAsync(d_copy, d_in, bytes, cudaMemcpyDeviceToDevice, st)); }});
  for (PlanRun& r : runs) {
    const std::string pn = "cap " + std::to_string(r.plan.cap);
    ops.push_back({pn, "graph", [&r, st] { CK(cudaGraphLaunch(r.graph, st)); }});
    if (r.pdl) ops.push_back({pn, "graph + PDL", [&r, st] { CK(cudaGraphLaunch(r.pdl, st)); }});
    if (r.coop.ok) ops.push_back({pn, "cooperative", [&r, B, st] { launch_coop(r.coop, r.plan, B, 0, st); }});
    for (int p = 0; p < r.plan.count; ++p)
      ops.push_back({pn, "pass " + std::to_string(p) + " alone (axis " + std::to_string(r.plan.pass[p].axis) + ")",
                     [&r, B, st, p] {
                       const int si = sl::src_buffer(r.plan.count, p);
                       const float* src = si == 0 ? B.in : si == 1 ? B.out : B.tmp;
                       float* dst = sl::dst_buffer(r.plan.count, p) == 1 ? B.out : B.tmp;
                       CK(launch_pass(r.plan.pass[p], src, dst, 0, st, false));
                     }});
  }
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<std::vector<std::vector<float>>> t(ops.size(), std::vector<std::vector<float>>(kStates));
  const int warm = 3;
  for (int rep = 0; rep < warm + reps; ++rep)
    for (int s = 0; s < kStates; ++s)
      for (std::size_t o = 0; o < ops.size(); ++o) {
        l2(static_cast<State>(s), st);
        // The hold, as bench_gpu_prefilter's: the stream is busy while the operation is
        // enqueued, so the events time the device's work, not the host's launch.
        hold_spin<<<1, 1, 0, st>>>(1000000ull);
        CK(cudaGetLastError());
        CK(cudaEventRecord(e0, st));
        ops[o].run();
        CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (rep >= warm) t[o][s].push_back(ms);
      }
  CK(cudaGetLastError());
  for (std::size_t o = 0; o < ops.size(); ++o)
    for (int s = 0; s < kStates; ++s) ops[o].ms[s] = median(t[o][s]);
  const float* copy = ops[1].ms;
  std::printf("\ntimes (medians of %d; ratios to the copy in the same L2 state):\n\n"
              "| plan | operation | hot ms | cold ms | clean ms | hot / copy | cold / copy | clean / copy |\n"
              "|---|---|---|---|---|---|---|---|\n",
              reps);
  for (const Op& op : ops)
    std::printf("| %s | %s | %.4f | %.4f | %.4f | %.2f | %.2f | %.2f |\n", op.plan.c_str(), op.variant.c_str(),
                op.ms[kHot], op.ms[kCold], op.ms[kClean], op.ms[kHot] / copy[kHot], op.ms[kCold] / copy[kCold],
                op.ms[kClean] / copy[kClean]);

  // The summary row: the fastest whole-prefilter operation (hot) over plans and variants.
  int best = -1;
  for (std::size_t o = 2; o < ops.size(); ++o)
    if (ops[o].variant.rfind("pass", 0) != 0 && (best < 0 || ops[o].ms[kHot] < ops[best].ms[kHot]))
      best = static_cast<int>(o);
  std::string passes;
  double rel = NAN;
  for (std::size_t r = 0; r < runs.size(); ++r)
    if ("cap " + std::to_string(runs[r].plan.cap) == ops[best].plan) rel = rel_mirror[r];
  for (const Op& op : ops)
    if (op.plan == ops[best].plan && op.variant.rfind("pass", 0) == 0) {
      char b[32];
      std::snprintf(b, sizeof b, "%s%.4f", passes.empty() ? "" : " / ", op.ms[kHot]);
      passes += b;
    }
  const double ms = ops[best].ms[kHot], ratio = ms / copy[kHot];
  const bool met = cd.target_ratio > 0 ? ratio <= cd.target_ratio : cd.target_ms > 0 ? ms <= cd.target_ms : true;
  char row[512];
  std::snprintf(row, sizeof row, "| %s | %.4f | %.4f | %.4f | %.2f | %s | %.2e | %s, %s | %s %s |", cd.name,
                ops[0].ms[kHot], copy[kHot], ms, ratio, passes.c_str(), rel, ops[best].plan.c_str(),
                ops[best].variant.c_str(), cd.target, cd.target_ratio > 0 || cd.target_ms > 0 ? (met ? "met" : "missed") : "");
  sum.row = row;
  std::snprintf(row, sizeof row, "| %s | %s, %s | %.4f / %.2f | %.4f / %.2f | %.4f / %.2f |", cd.name,
                ops[best].plan.c_str(), ops[best].variant.c_str(), ops[best].ms[kHot], ratio, ops[best].ms[kCold],
                ops[best].ms[kCold] / copy[kCold], ops[best].ms[kClean], ops[best].ms[kClean] / copy[kClean]);
  sum.states_row = row;

  for (PlanRun& r : runs) {
    CK(cudaGraphExecDestroy(r.graph));
    if (r.pdl) CK(cudaGraphExecDestroy(r.pdl));
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  CK(cudaFree(d_in));
  CK(cudaFree(d_out));
  CK(cudaFree(d_tmp));
  CK(cudaFree(d_copy));
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 21;
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = std::max(15, std::atoi(argv[++i]));
    else
      only.push_back(argv[i]);
  }
  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));
  int coop = 0;
  CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
  g_dev.sms = prop.multiProcessorCount;
  g_dev.coop = coop != 0;
  std::printf("# short_lines: %s, %d SMs, L2 %d MB, cooperative launch %s\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20, coop ? "yes" : "no");
  allow_shared_memory();
  print_kernel_resources();
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  const L2Conditioner l2;
  std::vector<Summary> rows;
  for (const CaseDef& c : kCases)
    if (only.empty() || std::find(only.begin(), only.end(), c.name) != only.end()) rows.push_back(run_case(c, reps, l2, st));
  std::printf("\n## Summary (hot L2; probe = the fastest of the plans and variants above; per-pass = that plan's "
              "passes launched alone, x first; rel L2 = that plan's graph, mirror)\n\n"
              "| case | empty launch ms | copy ms | probe ms | probe / copy | per-pass ms | rel L2 | which | target |\n"
              "|---|---|---|---|---|---|---|---|---|\n");
  bool ok = true;
  for (const Summary& s : rows) {
    std::printf("%s\n", s.row.c_str());
    ok = ok && s.accuracy_ok;
  }
  std::printf("\nThe same operation in each L2 state (ms / ratio to the copy in that state):\n\n"
              "| case | which | hot | cold | clean |\n|---|---|---|---|---|\n");
  for (const Summary& s : rows) std::printf("%s\n", s.states_row.c_str());
  std::printf("\naccuracy: %s\n", ok ? "all checks within 2e-7, no NaN" : "FAILED (see the case sections)");
  CK(cudaStreamDestroy(st));
  return ok ? 0 : 1;
}
