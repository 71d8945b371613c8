// Jacobi and coloured Gauss-Seidel on the device (gpu_stationary.hpp).
//
// Layout: the unknowns are visited in "positions", colour by colour (the identity for
// Jacobi), each colour's run padded to a whole group of 32 / L positions with dummies (no
// unknown). A position's off-diagonal entries are summed by L lanes of one warp; entry
// k * L + l of the positions of warp w lies at (w * steps + k) * 32 + lane, so every load
// of a warp reads 128 consecutive bytes. Rows shorter than the widest are padded with
// zero values.
//   Jacobi, L = 1: a sweep covers the whole grid, one thread per unknown has parallelism
//     to spare, and 32 consecutive rows gather x from consecutive words.
//   Gauss-Seidel, L = 8: a colour of a 512^2 image is 16 384 (true multicolour) or
//     32 768 (gs8x) rows; one thread per row is too few warps to hide the latency of 48
//     dependent loads each (sgs_mc took 41 ms for 100 iterations that way, 18 ms with 8
//     lanes; lab/NOTES.md).
// The loop never waits for the host inside a check interval: the residual norm goes to a
// device history, a one-warp kernel decides the stop, and every later kernel of the
// interval returns at once when the state is set; the host reads the state every
// kCheckEvery iterations and keeps a copy of the iterate there, which is what a diverged
// run returns.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "block_sums.cuh"
#include "cuda_support.cuh"
#include "device_stationary.hpp"

namespace splinebench::scattered::gpu::detail {

namespace {

enum State : int { kRunning = 0, kConverged = 1, kDiverged = 2 };
constexpr int kCheckEvery = 16;
constexpr int kNormBlocks = 264;  // two waves of an H100's 132 SMs; a fixed count: the sums repeat bit for bit
constexpr int kJacobiLanes = 1;
constexpr int kColourLanes = 8;  // 2-D rows have 48 off-diagonal entries, 3-D rows 342

struct Ell {
  int rows;               // unknowns
  int positions;          // a multiple of 32 / lanes
  int steps;              // ceil(width / lanes)
  const int* col;         // [positions * steps * lanes], in the warp layout above
  const float* value;
  const float* diagonal;  // by position (1 for a dummy)
  const float* rhs;       // by position (0 for a dummy)
  const int* row_of;      // position -> unknown (-1: a dummy); nullptr: the identity (dummies past rows)
};

__device__ inline int row_at(const Ell& a, int pos) { return a.row_of ? a.row_of[pos] : pos < a.rows ? pos : -1; }

// rhs - (off-diagonal entries) . x at position t / Lanes, on the lane with t % Lanes == 0
// (the others hold partial sums). Every lane of the warp must call it.
template <int Lanes>
__device__ inline float off_diagonal_residual(const Ell& a, long long t, const float* x) {
  const long long warp = t / 32;
  const int lane = static_cast<int>(t % 32);
  float s = 0.f;
#pragma unroll(Lanes == 1 ? 4 : 2)
  for (int k = 0; k < a.steps; ++k) {
    const long long e = (warp * a.steps + k) * 32 + lane;
    s = fmaf(-a.value[e], x[a.col[e]], s);
  }
  for (int off = Lanes / 2; off > 0; off /= 2) s += __shfl_down_sync(0xffffffffu, s, off, Lanes);
  return s + a.rhs[t / Lanes];
}

__global__ void jacobi_step(Ell a, float omega, const float* __restrict__ x, float* __restrict__ next,
                            const int* state) {
  if (*state != kRunning) return;
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= static_cast<long long>(a.positions) * kJacobiLanes) return;  // whole warps
  const float off = off_diagonal_residual<kJacobiLanes>(a, t, x);
  const int pos = static_cast<int>(t / kJacobiLanes);
  if (t % kJacobiLanes != 0 || pos >= a.rows) return;
  const float s = fmaf(-a.diagonal[pos], x[pos], off);
  next[pos] = fmaf(omega / a.diagonal[pos], s, x[pos]);
}

// One colour's new values, positions [first, first + count) (count a multiple of the
// group), for grid-stride threads starting at `thread` with stride `stride` (whole warps):
// written to x where no two members couple (a true multicolouring), else to next for
// write_colour (the seed's gs8x, whose members couple along the other axes and must all
// see the same x).
__device__ inline void update_colour(const Ell& a, int first, int count, bool in_place, float* x, float* next,
                                     long long thread, long long stride) {
  for (long long m = thread; m < static_cast<long long>(count) * kColourLanes; m += stride) {
    const long long t = static_cast<long long>(first) * kColourLanes + m;
    const float off = off_diagonal_residual<kColourLanes>(a, t, x);
    if (t % kColourLanes != 0) continue;
    const int pos = static_cast<int>(t / kColourLanes);
    const float v = off / a.diagonal[pos];
    if (!in_place) {
      next[pos - first] = v;
    } else if (const int row = row_at(a, pos); row >= 0) {
      x[row] = v;
    }
  }
}

__device__ inline void write_colour(const Ell& a, int first, int count, const float* next, float* x,
                                    long long thread, long long stride) {
  for (long long m = thread; m < count; m += stride)
    if (const int row = row_at(a, first + static_cast<int>(m)); row >= 0) x[row] = next[m];
}

// One colour per launch.
__global__ void colour_update(Ell a, int first, int count, bool in_place, float* x, float* next, const int* state) {
  if (*state != kRunning) return;
  update_colour(a, first, count, in_place, x, next, static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x,
                static_cast<long long>(gridDim.x) * blockDim.x);
}

__global__ void colour_write(Ell a, int first, int count, const float* next, float* x, const int* state) {
  if (*state != kRunning) return;
  write_colour(a, first, count, next, x, static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x,
               static_cast<long long>(gridDim.x) * blockDim.x);
}

// Per-block partial sums of ||b - A x||^2 in f64, in a fixed grid-stride order.
template <int Lanes>
__global__ void residual_norm_partial(Ell a, const float* __restrict__ x, double* partial, const int* state) {
  if (*state != kRunning) return;
  double sum = 0;
  const long long total = static_cast<long long>(a.positions) * Lanes;  // whole warps
  for (long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += static_cast<long long>(gridDim.x) * blockDim.x) {
    const float off = off_diagonal_residual<Lanes>(a, t, x);
    const int pos = static_cast<int>(t / Lanes);
    const int row = row_at(a, pos);
    if (t % Lanes == 0 && row >= 0) {
      const float r = fmaf(-a.diagonal[pos], x[row], off);
      sum += static_cast<double>(r) * r;
    }
  }
  store_block_sum<kThreads>(sum, partial);
}

// One warp: the partials summed in a fixed order into history[it] (||r||, not squared),
// then the stop of iteration `it`: not finite or above `limit` diverges, at most
// `converge_at` (when positive) converges.
__global__ void residual_decide(const double* partial, double* history, int it, double limit, double converge_at,
                                int* state) {
  if (*state != kRunning) return;
  const double t = warp_sum_of_partials<kNormBlocks>(partial);
  if (threadIdx.x != 0) return;
  const double norm = sqrt(t);
  history[it] = norm;
  if (!isfinite(norm) || norm > limit) {
    state[0] = kDiverged;
    state[1] = it;
  } else if (converge_at > 0 && norm <= converge_at) {
    state[0] = kConverged;
    state[1] = it;
  }
}

template <typename T>
void upload_vector(DeviceBuffer<T>& buf, const std::vector<T>& host) {
  buf.resize(host.size());
  if (!host.empty()) buf.upload(host.data());
}

// The arrays on the host in the warp layout for `lanes` lanes per position, positions in
// colour order; each colour's first position and padded count; whether every colour is
// free of internal couplings (so its members can be written in place).
struct HostEll {
  int lanes = 1, positions = 0, steps = 0;
  std::vector<int> col, row_of, colour_first, colour_count;
  std::vector<float> value, diagonal, rhs;
  bool independent_colours = true;
};

HostEll build_ell(const StationaryInput& in, int lanes) {
  const int n = in.n;
  const int group = 32 / lanes;
  HostEll h;
  h.lanes = lanes;
  const bool coloured = !in.colour_offset.empty();
  std::vector<int> colour_of;
  if (coloured) {
    colour_of.assign(static_cast<std::size_t>(n), -1);
    for (std::size_t c = 0; c + 1 < in.colour_offset.size(); ++c) {
      h.colour_first.push_back(static_cast<int>(h.row_of.size()));
      for (int m = in.colour_offset[c]; m < in.colour_offset[c + 1]; ++m) {
        const int row = in.members[static_cast<std::size_t>(m)];
        colour_of[static_cast<std::size_t>(row)] = static_cast<int>(c);
        h.row_of.push_back(row);
      }
      while (h.row_of.size() % static_cast<std::size_t>(group)) h.row_of.push_back(-1);
      h.colour_count.push_back(static_cast<int>(h.row_of.size()) - h.colour_first.back());
    }
    h.positions = static_cast<int>(h.row_of.size());
  } else {
    h.positions = (n + group - 1) / group * group;
  }
  auto row_of = [&](int pos) { return coloured ? h.row_of[static_cast<std::size_t>(pos)] : pos < n ? pos : -1; };
  int width = 0;
  for (int row = 0; row < n; ++row) {
    int off = 0;
    for (int j = in.outer[row]; j < in.outer[row + 1]; ++j) off += in.inner[j] != row;
    width = std::max(width, off);
  }
  h.steps = (width + lanes - 1) / lanes;
  const auto per_warp = static_cast<std::size_t>(h.steps) * 32;
  const std::size_t slots = static_cast<std::size_t>(h.positions / group) * per_warp;
  h.col.assign(slots, 0);
  h.value.assign(slots, 0.f);
  h.diagonal.assign(static_cast<std::size_t>(h.positions), 1.f);
  h.rhs.assign(static_cast<std::size_t>(h.positions), 0.f);
  for (int pos = 0; pos < h.positions; ++pos) {
    const int row = row_of(pos);
    if (row < 0) continue;
    h.diagonal[static_cast<std::size_t>(pos)] = in.diagonal[row];
    h.rhs[static_cast<std::size_t>(pos)] = in.rhs[row];
    const std::size_t base =
        static_cast<std::size_t>(pos / group) * per_warp + static_cast<std::size_t>(pos % group) * lanes;
    int k = 0;
    for (int j = in.outer[row]; j < in.outer[row + 1]; ++j) {
      const int c = in.inner[j];
      if (c == row) continue;
      if (coloured && colour_of[static_cast<std::size_t>(c)] == colour_of[static_cast<std::size_t>(row)])
        h.independent_colours = false;
      const std::size_t e = base + static_cast<std::size_t>(k / lanes) * 32 + static_cast<std::size_t>(k % lanes);
      h.col[e] = c;
      h.value[e] = in.value[j];
      ++k;
    }
  }
  return h;
}

// The colour order of a Gauss-Seidel iteration (the first, and every later one). An
// in-place colour update right after the same colour's recomputes the same values from
// the same neighbours (the symmetric sweep's turn, and the start of the next iteration):
// it is left out, so the iterates are those of the full sweeps, bit for bit.
std::vector<int> colour_order(int colours, bool symmetric, bool in_place, bool first_iteration) {
  std::vector<int> order;
  for (int c = 0; c < colours; ++c) order.push_back(c);
  if (symmetric)
    for (int c = colours - 1; c >= 0; --c) order.push_back(c);
  if (!in_place) return order;
  std::vector<int> kept;
  int last = first_iteration || !symmetric ? -1 : 0;  // a symmetric iteration ends on colour 0
  for (int c : order) {
    if (c == last) continue;
    kept.push_back(c);
    last = c;
  }
  return kept;
}

}  // namespace

struct DeviceStationary::State {
  int n = 0;
  bool coloured = false;
  double omega = 1, bnorm = 0;
  HostEll host;  // the layout's shape and colours (its arrays are on the device)
  std::vector<int> order_first, order_next;
  DeviceBuffer<int> col, row_of, state{2};
  DeviceBuffer<float> value, diagonal, rhs, x, other, snapshot, next;
  DeviceBuffer<double> partial{kNormBlocks};
  DeviceBuffer<double> history;  // per iteration; sized by the budget (kept while it stays the same)
};

DeviceStationary::DeviceStationary(const StationaryInput& in) : s_(new State) {
  using Clock = std::chrono::steady_clock;
  State& st = *s_;
  st.n = in.n;
  st.coloured = !in.colour_offset.empty();
  st.omega = in.omega;
  st.bnorm = in.bnorm;
  st.host = build_ell(in, st.coloured ? kColourLanes : kJacobiLanes);
  const int colours = static_cast<int>(st.host.colour_first.size());
  st.order_first = colour_order(colours, in.symmetric, st.host.independent_colours, true);
  st.order_next = colour_order(colours, in.symmetric, st.host.independent_colours, false);
  const auto t0 = Clock::now();
  const auto un = static_cast<std::size_t>(in.n);
  upload_vector(st.col, st.host.col);
  upload_vector(st.value, st.host.value);
  upload_vector(st.diagonal, st.host.diagonal);
  upload_vector(st.rhs, st.host.rhs);
  upload_vector(st.row_of, st.host.row_of);
  st.x.resize(un);
  st.other.resize(un);
  st.snapshot.resize(un);
  st.next.resize(static_cast<std::size_t>(st.host.positions) + 1);
  sync_this_thread();
  upload_s = std::chrono::duration<double>(Clock::now() - t0).count();
  // The host copies are on the device now; only the shape and colours stay.
  st.host.col = {};
  st.host.value = {};
  st.host.diagonal = {};
  st.host.rhs = {};
}

DeviceStationary::~DeviceStationary() = default;

StationaryOutput DeviceStationary::run(int max_iterations_asked, double tolerance, double divergence_factor) {
  using Clock = std::chrono::steady_clock;
  State& st = *s_;
  StationaryOutput out;
  const int n = st.n;
  const auto un = static_cast<std::size_t>(n);
  const bool coloured = st.coloured;
  const HostEll& host = st.host;
  const std::vector<int>& order_first = st.order_first;
  const std::vector<int>& order_next = st.order_next;
  const int max_iterations = std::max(max_iterations_asked, 0);
  DeviceBuffer<double>& history = st.history;
  history.resize(static_cast<std::size_t>(max_iterations) + 1);
  DeviceBuffer<double>& partial = st.partial;
  DeviceBuffer<int>& state = st.state;
  // Every solve starts from x = 0 (the snapshot too: a divergence before the first check
  // returns x0).
  SB_CUDA_CHECK(cudaMemset(st.x.data(), 0, un * sizeof(float)));
  SB_CUDA_CHECK(cudaMemset(st.snapshot.data(), 0, un * sizeof(float)));
  SB_CUDA_CHECK(cudaMemset(state.data(), 0, 2 * sizeof(int)));
  sync_this_thread();

  const Ell a{n, host.positions, host.steps, st.col.data(), st.value.data(), st.diagonal.data(), st.rhs.data(),
              st.row_of.data()};
  const int* d_state = state.data();
  float* cur = st.x.data();
  float* alt = st.other.data();
  float* next_values = st.next.data();

  auto sweep = [&](bool first_iteration) {
    const std::vector<int>& order = first_iteration ? order_first : order_next;
    for (int c : order) {
      const int first = host.colour_first[static_cast<std::size_t>(c)];
      const int count = host.colour_count[static_cast<std::size_t>(c)];
      if (count == 0) continue;
      colour_update<<<blocks_for(static_cast<long long>(count) * kColourLanes), kThreads>>>(
          a, first, count, host.independent_colours, cur, next_values, d_state);
      SB_CUDA_CHECK_LAUNCH("colour_update");
      if (host.independent_colours) continue;
      colour_write<<<blocks_for(count), kThreads>>>(a, first, count, next_values, cur, d_state);
      SB_CUDA_CHECK_LAUNCH("colour_write");
    }
  };
  auto residual_norm = [&](const float* v) {
    if (coloured) residual_norm_partial<kColourLanes><<<kNormBlocks, kThreads>>>(a, v, partial.data(), d_state);
    else residual_norm_partial<kJacobiLanes><<<kNormBlocks, kThreads>>>(a, v, partial.data(), d_state);
    SB_CUDA_CHECK_LAUNCH("residual_norm_partial");
  };
  // x0 = 0, so ||r0|| = ||b||.
  const double bnorm = st.bnorm;
  const double scale = bnorm > 0 ? bnorm : 1.0;
  const double limit = divergence_factor * bnorm;
  const double converge_at = tolerance > 0 ? tolerance * scale : 0.0;
  // With a tolerance every iterate's residual is measured (the history); a run of a fixed
  // count measures it only where the host checks, for the divergence rule.
  const bool every_iteration = tolerance > 0;

  Event start, stop;
  start.record();
  int state_host[2] = {kRunning, 0};
  int checked = 0;  // the iterate held in `snapshot`
  int launched = 0;
  while (launched < max_iterations && state_host[0] == kRunning) {
    const int batch = std::min(kCheckEvery, max_iterations - launched);
    for (int k = 1; k <= batch; ++k) {
      const int it = launched + k;
      if (!coloured) {
        jacobi_step<<<blocks_for(static_cast<long long>(host.positions) * kJacobiLanes), kThreads>>>(
            a, static_cast<float>(st.omega), cur, alt, d_state);
        SB_CUDA_CHECK_LAUNCH("jacobi_step");
        // A stopped state leaves alt unwritten: keep the iterate where the state stopped.
        std::swap(cur, alt);
      } else {
        sweep(it == 1);
      }
      if (every_iteration || k == batch) {
        residual_norm(cur);
        residual_decide<<<1, 32>>>(partial.data(), history.data(), it, limit, converge_at, state.data());
        SB_CUDA_CHECK_LAUNCH("residual_decide");
      }
    }
    launched += batch;
    SB_CUDA_CHECK(cudaMemcpy(state_host, state.data(), 2 * sizeof(int), cudaMemcpyDeviceToHost));
    if (state_host[0] == kRunning || state_host[0] == kConverged) {
      checked = state_host[0] == kRunning ? launched : state_host[1];
      if (state_host[0] == kRunning)
        SB_CUDA_CHECK(cudaMemcpyAsync(st.snapshot.data(), cur, un * sizeof(float), cudaMemcpyDeviceToDevice));
    }
  }
  stop.record();
  out.solve_s = stop.seconds_since(start);

  // Jacobi's kernels after a stop leave both buffers alone but the host still swapped:
  // the stopped iterate is the one written at the stop's iteration.
  if (!coloured && state_host[0] != kRunning && (launched - state_host[1]) % 2 == 1) std::swap(cur, alt);
  std::vector<double> hist(static_cast<std::size_t>(max_iterations) + 1, 0.0);
  history.download(hist.data());
  const float* result = cur;
  if (state_host[0] == kDiverged) {
    out.status = StationaryOutput::diverged;
    std::ostringstream msg;
    msg << "diverged at iteration " << state_host[1] << ": ||r|| = " << hist[static_cast<std::size_t>(state_host[1])]
        << " against ||b|| = " << bnorm << "; the iterate of iteration " << checked << " returned";
    out.message = msg.str();
    out.iterations = checked;
    result = st.snapshot.data();
  } else {
    out.status = state_host[0] == kConverged ? StationaryOutput::converged : StationaryOutput::max_iterations;
    out.iterations = state_host[0] == kConverged ? state_host[1] : launched;
  }
  if (every_iteration)
    for (int it = 1; it <= out.iterations; ++it) out.history.push_back(hist[static_cast<std::size_t>(it)] / scale);
  const auto t0 = Clock::now();
  out.x.assign(un, std::nanf(""));  // poisoned: every entry must come back
  SB_CUDA_CHECK(cudaMemcpy(out.x.data(), result, un * sizeof(float), cudaMemcpyDeviceToHost));
  out.readback_s = std::chrono::duration<double>(Clock::now() - t0).count();
  return out;
}

}  // namespace splinebench::scattered::gpu::detail
