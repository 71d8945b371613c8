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
// Between its tiles a block keeps the bulk tile's mbarriers valid (BulkBars,
// tile/stream_only_bulk.cuh, in static shared memory); it retires them before a tile that
// reuses their memory (bulk_bars_before_tile) and before it returns. A fixed_kernel
// block runs one tile: its bulk tile initialises, uses and retires them.
#include <cuda/atomic>

#include <algorithm>
#include <climits>
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

void allow_smem(const void* kernel, int bytes) {
  SB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
}

template <typename T>
void grow(DeviceBuffer<T>& buffer, std::size_t count) {
  if (buffer.size() < count) buffer.resize(count);
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

std::int64_t FlexRunner::tmp_values(Variant variant, const GridShape& shape, std::int64_t fields, Mode mode) const {
  DeviceLimits lim;  // the number of passes does not depend on the limits
  lim.smem_bytes = INT_MAX / 2;
  return make_plan(shape, fields, mode, variant, lim).needs_tmp() ? shape.values() * fields : 0;
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
    // Per run: a runner of another problem may have set the kernel's limit since (cheap).
    allow_smem(reinterpret_cast<const void*>(kernel), smem_bytes);
    for (const PassDesc& P : p.passes) {
      if (P.tiles > INT_MAX) throw Unsupported("gpu_flex_fixed: more than 2^31 - 1 tiles in one pass");
      kernel<<<static_cast<int>(P.tiles), kThreads, static_cast<std::size_t>(P.smem.total) * 4, stream>>>(P);
      SB_CUDA_CHECK_LAUNCH("gpu_flex fixed_kernel");
    }
    return;
  }

  const LaunchDesc L = make_launch(p);
  const std::int64_t total = L.pass_begin[L.passes];
  const std::size_t state_bytes = 8 + 4 * static_cast<std::size_t>(L.passes * L.fields);
  grow(state_, state_bytes);
  SB_CUDA_CHECK(cudaMemsetAsync(state_.data(), 0, state_bytes, stream));

  FlexArgs args{};
  args.launch = L;
  args.ticket = reinterpret_cast<unsigned long long*>(state_.data());
  args.done = reinterpret_cast<unsigned int*>(state_.data() + 8);
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
  allow_smem(reinterpret_cast<const void*>(kernel), std::max(smem_bytes, 1));  // as for the fixed kernel
  const int resident = cached.resident;
  std::int64_t grid = options.share.blocks > 0 ? options.share.blocks : resident;
  if (options.adversarial) grid = 8LL * resident;  // more than can be resident
  grid = std::max<std::int64_t>(1, std::min<std::int64_t>(grid, total));
  kernel<<<static_cast<int>(grid), kThreads, static_cast<std::size_t>(smem_bytes), stream>>>(args);
  SB_CUDA_CHECK_LAUNCH("gpu_flex flex_kernel");
}

}  // namespace splinebench::gpu::flex
