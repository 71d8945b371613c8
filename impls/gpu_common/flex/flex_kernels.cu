// The gpu_flex kernels and their launches.
//
// Flexible allocation (seed 004, applied to the B-spline recursions): ONE launch runs
// every pass of the prefilter for every field of the batch. Blocks are not pinned to
// work: each block takes a ticket from a global atomic counter, runs the tile that
// ticket names, and takes the next ticket, until the tickets run out. Tickets name
// tiles pass after pass (or in another order that puts every tile after the tiles it
// depends on: LaunchOptions::order). The only waits: a tile of pass k > 0 of field f
// waits until every tile of pass k - 1 of field f has finished (per-field counters,
// released after the tile's writes and acquired before the dependent tile's reads).
//
// Progress, under any order in which the hardware schedules or starves blocks:
//  (1) a block holds at most one ticket at a time, and only while it is running: it
//      takes a ticket when it is already executing and gives it up only by finishing
//      the tile;
//  (2) tickets are handed out in increasing order, and every tile a tile waits for has
//      a smaller ticket (pass k - 1 precedes pass k in every order we use);
//  (3) let t be the smallest ticket whose tile is not finished. Every tile it waits for
//      has a smaller ticket, hence is finished, so t's tile does not wait; it has been
//      taken (tickets below the counter are all taken, and t is below it once any
//      larger ticket was handed out) by a running block, which therefore finishes it.
//      By induction every taken tile finishes, and blocks keep taking tickets until
//      none are left. A block the GPU never schedules holds no ticket, so nobody can
//      wait for it; no assumption about residency or block order is needed.
// This holds for every plan the planner makes: a chain of passes, each waiting only on
// the pass before it, pass k - 1 of a field numbered before pass k of that field.
// The fixed baseline launches each pass separately with tile = blockIdx.x (the
// classic allocation): the same tile code, one launch per axis.
// The launch state (the ticket counter, the per-field pass counters and a count of the
// blocks that have left) is zero before every launch and the launch leaves it zero: the
// last block to leave resets it (flex_kernel's exit), so a runner's next launch needs no
// memset. Why that holds, on the stream the runner enqueues on:
//  (a) every block leaves exactly once, after its last access to the counters (the ticket
//      that ran out comes after every fetch_add of its tiles' pass counters and every wait
//      of its own), and counts itself out with an acq_rel fetch_add on `exited`; the block
//      that counts gridDim.x has acquired every other block's counting-out, so all their
//      accesses happen before its reset stores (they reach it through thread 0's acquire
//      and the block's barrier), and no block touches the counters after it;
//  (b) the next launch on the stream starts after this one has finished, its writes
//      visible (stream order), so it finds zeros; launches of one runner on two streams
//      at once were a race before too (the memset on one stream against the other's
//      kernel): a runner is for one stream at a time (the module keeps one per stream);
//  (c) a launch that fails to start runs no block and changes nothing; a kernel that
//      faults mid-run leaves the counters as they are, but such an error is sticky: the
//      context and every allocation in it, the counters included, are unusable until the
//      device is reset, so no later launch reads them. Host-side throws in run() come
//      before the launch and change nothing either;
//  (d) the runner zeroes a counter buffer when it allocates it (grow_state): the first
//      launch and any launch needing more counters than before start from zeros; a
//      launch uses and resets only the first 16 + 4 * passes * fields bytes, the rest stays
//      as the memset left it.
// Between its tiles a block keeps the bulk tile's mbarriers valid (BulkBars,
// tile/stream_only_bulk.cuh, in static shared memory); it retires them before a tile that
// reuses their memory (bulk_bars_before_tile) and before it returns. A fixed_kernel
// block runs one tile: its bulk tile initialises, uses and retires them.
#include <cuda/atomic>

#include <algorithm>
#include <climits>
#include <mutex>
#include <vector>

#include "gpu_common/flex/flex_launch.hpp"
#include "gpu_common/flex/flex_tile.cuh"
#include "splinebench/cuda/adversarial_pause.cuh"
#include "splinebench/cuda/check.hpp"
#include "splinebench/error.hpp"

namespace splinebench::gpu::flex {
namespace {

struct FlexArgs {
  LaunchDesc launch;
  unsigned long long* ticket;
  unsigned int* exited;        // blocks that have left (the last resets the launch state)
  unsigned int* done;          // [pass][field] tiles finished
  const std::int64_t* order;   // ticket -> tile, or null (ticket order)
  std::uint64_t seed;
  int adversarial;
};

template <int C>
__global__ void __launch_bounds__(kThreads) flex_kernel(const __grid_constant__ FlexArgs a) {
  extern __shared__ float4 flex_smem[];
  float* smem = reinterpret_cast<float*>(flex_smem);
  __shared__ long long s_ticket;
  __shared__ int s_last;
  const DeviceBlock blk;
  const LaunchDesc& L = a.launch;
  const long long total = L.pass_begin[L.passes];
  // The block's bulk mbarriers from tile to tile (flex_bulk_bars, tile/stream_only_bulk.cuh):
  // none yet (read after the loop's first barrier).
  if (threadIdx.x == 0) flex_bulk_bars = BulkBars{};
  for (;;) {
    if (threadIdx.x == 0) {
      if (a.adversarial) adversarial_pause(a.seed, blockIdx.x, 0);
      s_ticket = static_cast<long long>(atomicAdd(a.ticket, 1ull));
    }
    __syncthreads();
    const long long ticket = s_ticket;
    if (ticket >= total) {  // the same for every thread of the block
      bulk_bars_retire(blk, smem, flex_bulk_bars, nullptr);
      // Counts the block out; the last one leaves the launch state zero for the next
      // launch on the stream (the file's header says why that is safe).
      if (threadIdx.x == 0) {
        cuda::atomic_ref<unsigned int, cuda::thread_scope_device> exited(*a.exited);
        s_last = exited.fetch_add(1u, cuda::memory_order_acq_rel) + 1u == gridDim.x;
      }
      __syncthreads();
      if (s_last) {
        const long long counters = static_cast<long long>(L.passes) * L.fields;
        for (long long i = threadIdx.x; i < counters; i += blockDim.x) a.done[i] = 0u;
        if (threadIdx.x == 0) {
          *a.ticket = 0ull;
          *a.exited = 0u;
        }
      }
      return;
    }
    const long long tile = a.order ? a.order[ticket] : ticket;
    int k = 0;
    while (k + 1 < L.passes && tile >= L.pass_begin[k + 1]) ++k;
    const PassDesc& P = L.pass[k];
    const long long local = tile - L.pass_begin[k];
    const long long field = tile_field(P, local);
    // The bulk barriers this tile does not keep are retired (all threads are done with
    // the previous tile: it ended with a barrier).
    bulk_bars_before_tile(blk, P, local, smem, &flex_bulk_bars);
    if (threadIdx.x == 0) {
      if (a.adversarial) adversarial_pause(a.seed, ticket, 1);
      if (k > 0) {
        // Waits only for tiles with smaller tickets (see the progress argument above).
        cuda::atomic_ref<unsigned int, cuda::thread_scope_device> done(
            a.done[(k - 1) * L.fields + wait_field(L.pass[k - 1], field)]);
        const unsigned int need = static_cast<unsigned int>(tiles_per_field(L.pass[k - 1]));
        unsigned int backoff = 32;
        while (done.load(cuda::memory_order_acquire) < need) {
          __nanosleep(backoff);
          if (backoff < 4096) backoff *= 2;
        }
      }
    }
    // Thread 0 also issues the bulk copies (the async proxy) of the stream_only tiles: the
    // generic-proxy writes of the tiles it acquired above are ordered before them.
    if (threadIdx.x == 0 && k > 0) cuda::ptx::fence_proxy_async(cuda::ptx::space_global);
    // The block starts reading the previous pass's output only after the acquire above;
    // this barrier also keeps thread 0 from overwriting s_ticket while others read it.
    __syncthreads();
    run_tile<C>(blk, P, local, smem, &flex_bulk_bars);  // ends with a barrier: all its writes are issued
    if (threadIdx.x == 0 && L.passes > 1) {
      __threadfence();
      cuda::atomic_ref<unsigned int, cuda::thread_scope_device> done(a.done[k * L.fields + field]);
      done.fetch_add(1u, cuda::memory_order_release);
    }
  }
}

template <int C>
__global__ void __launch_bounds__(kThreads) fixed_kernel(const __grid_constant__ PassDesc P) {
  extern __shared__ float4 flex_smem[];
  // One tile per block: no bulk barriers to keep (the bulk tile retires its own).
  run_tile<C>(DeviceBlock{}, P, static_cast<std::int64_t>(blockIdx.x), reinterpret_cast<float*>(flex_smem), nullptr);
}

using FlexKernel = void (*)(FlexArgs);
using FixedKernel = void (*)(PassDesc);

FlexKernel flex_kernel_for(int channels) {
  switch (channels) {
    case 1: return &flex_kernel<1>;
    case 2: return &flex_kernel<2>;
    case 4: return &flex_kernel<4>;
  }
  throw Error("gpu_flex: channels must be 1, 2 or 4");
}

FixedKernel fixed_kernel_for(int channels) {
  switch (channels) {
    case 1: return &fixed_kernel<1>;
    case 2: return &fixed_kernel<2>;
    case 4: return &fixed_kernel<4>;
  }
  throw Error("gpu_flex: channels must be 1, 2 or 4");
}

const void* kernel_for(Variant v, int channels) {
  return v == Variant::flexible ? reinterpret_cast<const void*>(flex_kernel_for(channels))
                                : reinterpret_cast<const void*>(fixed_kernel_for(channels));
}

// The dynamic shared memory limit of each kernel on each device, as allow_smem last set
// it. A kernel's limit is the process's, per device, and every runner sets it before each
// launch to what that launch needs (a runner of another problem may have set another value
// since): the value a launch sees is the same as before this cache, only the call is
// skipped when the limit already has it (cudaFuncSetAttribute is a driver call of about a
// microsecond on every run). The kernels are this file's own, so nothing else sets their
// limits; a cudaDeviceReset would reset them, but it also frees every runner's buffers, so
// no runner outlives it in working order anyway.
struct SmemLimit {
  int device;
  const void* kernel;
  int bytes;
};
std::mutex smem_limits_mutex;
std::vector<SmemLimit> smem_limits;  // guarded by smem_limits_mutex

// Sets `kernel`'s limit on the current device to `bytes` (unless it has it). The caller
// holds smem_limits_mutex through its launch, so that another thread's runner cannot
// change the limit between the two (which could fail the launch).
void allow_smem_locked(const void* kernel, int bytes) {
  int device = 0;
  SB_CUDA_CHECK(cudaGetDevice(&device));
  auto it = std::find_if(smem_limits.begin(), smem_limits.end(),
                         [&](const SmemLimit& l) { return l.device == device && l.kernel == kernel; });
  if (it != smem_limits.end() && it->bytes == bytes) return;
  if (it != smem_limits.end()) it->bytes = -1;  // unknown until the call succeeds
  SB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  if (it != smem_limits.end())
    it->bytes = bytes;
  else
    smem_limits.push_back({device, kernel, bytes});
}

void allow_smem(const void* kernel, int bytes) {
  const std::lock_guard<std::mutex> lock(smem_limits_mutex);
  allow_smem_locked(kernel, bytes);
}

template <typename T>
void grow(DeviceBuffer<T>& buffer, std::size_t count) {
  if (buffer.size() < count) buffer.resize(count);
}

// The launch state of at least `bytes`: a new buffer is zeroed on `stream` (ahead of the
// launch); one already there is zero, as every launch leaves it (the file's header).
void grow_state(DeviceBuffer<unsigned char>& state, std::size_t bytes, cudaStream_t stream) {
  if (state.size() >= bytes) return;
  state.resize(bytes);
  SB_CUDA_CHECK(cudaMemsetAsync(state.data(), 0, state.size(), stream));
}

struct DeviceFacts {
  int sms = 0;
  int smem_optin = 0;
};

DeviceFacts device_facts() {
  DeviceFacts f;
  int dev = 0;
  SB_CUDA_CHECK(cudaGetDevice(&dev));
  SB_CUDA_CHECK(cudaDeviceGetAttribute(&f.sms, cudaDevAttrMultiProcessorCount, dev));
  SB_CUDA_CHECK(cudaDeviceGetAttribute(&f.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  return f;
}

// Blocks of `kernel` resident on the whole device with `smem_bytes` each.
int resident_blocks(const void* kernel, int smem_bytes, int sms) {
  allow_smem(kernel, std::max(smem_bytes, 1));
  int per_sm = 0;
  SB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, smem_bytes));
  if (per_sm < 1) throw Unsupported("gpu_flex: kernel cannot be resident with " + std::to_string(smem_bytes) + " bytes");
  return per_sm * sms;
}

}  // namespace

Plan FlexRunner::plan(Variant variant, const GridShape& shape, std::int64_t fields, Mode mode,
                      const DeviceShare& share) const {
  const DeviceFacts f = device_facts();
  DeviceLimits lim;
  lim.smem_bytes = f.smem_optin - 64;  // room for the kernel's static shared memory
  if (share.smem_bytes > 0) lim.smem_bytes = std::min(lim.smem_bytes, share.smem_bytes);
  lim.resident_blocks = f.sms;
  const Plan first = make_plan(shape, fields, mode, variant, lim);  // shared memory does not depend on it
  const void* kernel = kernel_for(variant, shape.channels);
  lim.resident_blocks = share.blocks > 0 ? share.blocks : resident_blocks(kernel, first.smem_floats * 4, f.sms);
  return make_plan(shape, fields, mode, variant, lim);
}

std::int64_t FlexRunner::tmp_values(Variant variant, const GridShape& shape, std::int64_t fields, Mode mode) {
  return planned(variant, shape, fields, mode, DeviceShare{}).plan.needs_tmp() ? shape.values() * fields : 0;
}

const FlexRunner::Planned& FlexRunner::planned(Variant variant, const GridShape& shape, std::int64_t fields, Mode mode,
                                               const DeviceShare& share) {
  int device = 0;
  SB_CUDA_CHECK(cudaGetDevice(&device));
  for (std::size_t i = 0; i < planned_.size(); ++i) {
    const Planned& k = planned_[i];
    if (k.device == device && k.variant == variant && k.shape == shape && k.fields == fields && k.mode == mode &&
        k.share == share) {
      std::rotate(planned_.begin(), planned_.begin() + static_cast<std::ptrdiff_t>(i),
                  planned_.begin() + static_cast<std::ptrdiff_t>(i) + 1);
      return planned_.front();
    }
  }
  Planned n;  // a planning that throws changes nothing
  n.device = device;
  n.variant = variant;
  n.shape = shape;
  n.fields = fields;
  n.mode = mode;
  n.share = share;
  n.plan = plan(variant, shape, fields, mode, share);
  if (variant == Variant::flexible)
    n.resident = resident_blocks(kernel_for(variant, shape.channels), n.plan.smem_floats * 4, device_facts().sms);
  n.description = describe(n.plan);
  if (planned_.size() == kPlansKept) planned_.pop_back();
  planned_.insert(planned_.begin(), std::move(n));
  return planned_.front();
}

void FlexRunner::run(Variant variant, const GridShape& shape, std::int64_t fields, Mode mode, const float* d_in,
                     float* d_out, float* d_tmp, cudaStream_t stream, const LaunchOptions& options) {
  const Planned& cached = planned(variant, shape, fields, mode, options.share);
  Plan p = cached.plan;
  bind_buffers(p, d_in, d_out, d_tmp);
  description_ = cached.description;
  const int smem_bytes = p.smem_floats * 4;

  if (variant == Variant::fixed) {
    const FixedKernel kernel = fixed_kernel_for(shape.channels);
    // Per run: a runner of another problem may have set the kernel's limit since.
    const std::lock_guard<std::mutex> lock(smem_limits_mutex);
    allow_smem_locked(reinterpret_cast<const void*>(kernel), smem_bytes);
    for (const PassDesc& P : p.passes) {
      if (P.tiles > INT_MAX) throw Unsupported("gpu_flex_fixed: more than 2^31 - 1 tiles in one pass");
      kernel<<<static_cast<int>(P.tiles), kThreads, static_cast<std::size_t>(P.smem.total) * 4, stream>>>(P);
      SB_CUDA_CHECK_LAUNCH("gpu_flex fixed_kernel");
    }
    return;
  }

  const LaunchDesc L = make_launch(p);
  const std::int64_t total = L.pass_begin[L.passes];
  // ticket (8 bytes), exited (4), padding (4), done (4 per pass and field): zero already
  // (no memset per run: the last block of every launch resets it, the header says why).
  const std::size_t state_bytes = 16 + 4 * static_cast<std::size_t>(L.passes * L.fields);
  grow_state(state_, state_bytes, stream);

  FlexArgs args{};
  args.launch = L;
  args.ticket = reinterpret_cast<unsigned long long*>(state_.data());
  args.exited = reinterpret_cast<unsigned int*>(state_.data() + 8);
  args.done = reinterpret_cast<unsigned int*>(state_.data() + 16);
  args.order = nullptr;
  args.seed = options.seed;
  args.adversarial = options.adversarial ? 1 : 0;
  if (!options.order.empty()) {
    const std::vector<std::int64_t>& order = options.order;
    if (static_cast<std::int64_t>(order.size()) != total) throw Error("gpu_flex: the ticket order has the wrong length");
    grow(order_, order.size());
    // Synchronous: the caller's vector may go once run() returns.
    SB_CUDA_CHECK(cudaStreamSynchronize(stream));
    SB_CUDA_CHECK(cudaMemcpy(order_.data(), order.data(), order.size() * sizeof(std::int64_t), cudaMemcpyHostToDevice));
    args.order = order_.data();
  }

  const FlexKernel kernel = flex_kernel_for(shape.channels);
  const std::lock_guard<std::mutex> lock(smem_limits_mutex);  // through the launch, as for the fixed kernel
  allow_smem_locked(reinterpret_cast<const void*>(kernel), std::max(smem_bytes, 1));
  const int resident = cached.resident;
  std::int64_t grid = options.share.blocks > 0 ? options.share.blocks : resident;
  if (options.adversarial) grid = 8LL * resident;  // more than can be resident
  grid = std::max<std::int64_t>(1, std::min<std::int64_t>(grid, total));
  kernel<<<static_cast<int>(grid), kThreads, static_cast<std::size_t>(smem_bytes), stream>>>(args);
  SB_CUDA_CHECK_LAUNCH("gpu_flex flex_kernel");
}

}  // namespace splinebench::gpu::flex
