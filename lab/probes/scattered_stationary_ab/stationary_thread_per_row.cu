// Jacobi and coloured Gauss-Seidel on the device (gpu_stationary.hpp).
//
// Layout: the unknowns are visited in "positions", colour by colour (the identity for
// Jacobi), and the off-diagonal entries are stored ELL-style, slot-major
// (entry s of position p at s * n + p), so the threads of a warp read consecutive words:
// a row of the 2-D system has 48 off-diagonal entries, and one thread per row over a CSR
// row-major layout reads 32 rows' worth of scattered words per load. Rows shorter than
// the widest are padded with their own column and a zero value.
//
// The loop never waits for the host inside a check interval: the residual norm goes to a
// device history, a one-warp kernel decides the stop, and every later kernel of the
// interval returns at once when the state is set; the host reads the state every
// kCheckEvery iterations and keeps a copy of the iterate there, which is what a diverged
// run returns.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "cuda_support.cuh"
#include "device_stationary.hpp"

namespace splinebench::scattered::gpu::detail {

namespace {

enum State : int { kRunning = 0, kConverged = 1, kDiverged = 2 };
constexpr int kCheckEvery = 16;
constexpr int kNormBlocks = 264;  // two waves of an H100's 132 SMs; a fixed count: the sums repeat bit for bit

struct Ell {
  int n;
  int width;               // off-diagonal slots per position
  const int* col;          // [width * n], slot-major
  const float* value;      // [width * n], slot-major
  const float* diagonal;   // by position
  const float* rhs;        // by position
  const int* row_of;       // position -> unknown; nullptr: the identity
};

__device__ inline int row_at(const Ell& a, int pos) { return a.row_of ? a.row_of[pos] : pos; }

// rhs - (off-diagonal entries) . x at a position.
__device__ inline float off_diagonal_residual(const Ell& a, int pos, const float* x) {
  float s = a.rhs[pos];
#pragma unroll 4
  for (int k = 0; k < a.width; ++k) {
    const long long e = static_cast<long long>(k) * a.n + pos;
    s = fmaf(-a.value[e], x[a.col[e]], s);
  }
  return s;
}

__global__ void jacobi_step(Ell a, float omega, const float* __restrict__ x, float* __restrict__ next,
                            const int* state) {
  if (*state != kRunning) return;
  const int pos = blockIdx.x * blockDim.x + threadIdx.x;
  if (pos >= a.n) return;
  const float s = fmaf(-a.diagonal[pos], x[pos], off_diagonal_residual(a, pos, x));
  next[pos] = fmaf(omega / a.diagonal[pos], s, x[pos]);
}

// Colour members at positions [first, first + count): in place where no two members
// couple (a true multicolouring), else into `next` for colour_write (the seed's gs8x,
// whose members couple along the other axes and must all see the same x).
__global__ void colour_in_place(Ell a, int first, int count, float* x, const int* state) {
  if (*state != kRunning) return;
  const int m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= count) return;
  const int pos = first + m;
  x[row_at(a, pos)] = off_diagonal_residual(a, pos, x) / a.diagonal[pos];
}

__global__ void colour_values(Ell a, int first, int count, const float* x, float* next, const int* state) {
  if (*state != kRunning) return;
  const int m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m < count) next[m] = off_diagonal_residual(a, first + m, x) / a.diagonal[first + m];
}

__global__ void colour_write(Ell a, int first, int count, const float* __restrict__ next, float* x,
                             const int* state) {
  if (*state != kRunning) return;
  const int m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m < count) x[row_at(a, first + m)] = next[m];
}

// Per-block partial sums of ||b - A x||^2 in f64, in a fixed grid-stride order.
__global__ void residual_norm_partial(Ell a, const float* __restrict__ x, double* partial, const int* state) {
  if (*state != kRunning) return;
  __shared__ double warp_sums[kThreads / 32];
  double sum = 0;
  for (int pos = blockIdx.x * blockDim.x + threadIdx.x; pos < a.n; pos += gridDim.x * blockDim.x) {
    const float r = fmaf(-a.diagonal[pos], x[row_at(a, pos)], off_diagonal_residual(a, pos, x));
    sum += static_cast<double>(r) * r;
  }
  for (int off = 16; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffu, sum, off);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    double t = 0;
    for (int w = 0; w < kThreads / 32; ++w) t += warp_sums[w];
    partial[blockIdx.x] = t;
  }
}

// One warp: the partials summed in a fixed order into history[it] (||r||, not squared),
// then the stop of iteration `it`: not finite or above `limit` diverges, at most
// `converge_at` (when positive) converges.
__global__ void residual_decide(const double* partial, double* history, int it, double limit, double converge_at,
                                int* state) {
  if (*state != kRunning) return;
  const int lane = static_cast<int>(threadIdx.x);
  double t = 0;
#pragma unroll
  for (int i = 0; i < (kNormBlocks + 31) / 32; ++i)
    if (i * 32 + lane < kNormBlocks) t += partial[i * 32 + lane];
  for (int off = 16; off > 0; off /= 2) t += __shfl_xor_sync(0xffffffffu, t, off);
  if (lane != 0) return;
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

// The ELL arrays on the host, positions in colour order; also whether every colour is
// free of internal couplings (so its members can be written in place).
struct HostEll {
  int width = 0;
  std::vector<int> col, row_of;
  std::vector<float> value, diagonal, rhs;
  bool independent_colours = true;
};

HostEll build_ell(const StationaryInput& in) {
  const int n = in.n;
  const auto un = static_cast<std::size_t>(n);
  HostEll h;
  const bool coloured = !in.colour_offset.empty();
  std::vector<int> colour_of;
  if (coloured) {
    h.row_of = in.members;
    colour_of.assign(un, -1);
    for (std::size_t c = 0; c + 1 < in.colour_offset.size(); ++c)
      for (int m = in.colour_offset[c]; m < in.colour_offset[c + 1]; ++m)
        colour_of[static_cast<std::size_t>(in.members[static_cast<std::size_t>(m)])] = static_cast<int>(c);
  }
  auto row_of = [&](int pos) { return coloured ? h.row_of[static_cast<std::size_t>(pos)] : pos; };
  for (int row = 0; row < n; ++row) {
    int off = 0;
    for (int j = in.outer[row]; j < in.outer[row + 1]; ++j) off += in.inner[j] != row;
    h.width = std::max(h.width, off);
  }
  const std::size_t slots = static_cast<std::size_t>(h.width) * un;
  h.col.resize(slots);
  h.value.assign(slots, 0.f);
  h.diagonal.resize(un);
  h.rhs.resize(un);
  for (int pos = 0; pos < n; ++pos) {
    const int row = row_of(pos);
    h.diagonal[static_cast<std::size_t>(pos)] = in.diagonal[row];
    h.rhs[static_cast<std::size_t>(pos)] = in.rhs[row];
    std::size_t k = 0;
    for (int j = in.outer[row]; j < in.outer[row + 1]; ++j) {
      const int c = in.inner[j];
      if (c == row) continue;
      if (coloured && colour_of[static_cast<std::size_t>(c)] == colour_of[static_cast<std::size_t>(row)])
        h.independent_colours = false;
      h.col[k * un + static_cast<std::size_t>(pos)] = c;
      h.value[k * un + static_cast<std::size_t>(pos)] = in.value[j];
      ++k;
    }
    for (; k < static_cast<std::size_t>(h.width); ++k) h.col[k * un + static_cast<std::size_t>(pos)] = row;
  }
  return h;
}

}  // namespace

StationaryOutput run_stationary(const StationaryInput& in) {
  using Clock = std::chrono::steady_clock;
  StationaryOutput out;
  const int n = in.n;
  const auto un = static_cast<std::size_t>(n);
  const HostEll host = build_ell(in);
  auto t0 = Clock::now();
  DeviceBuffer<int> col, row_of, state(2);
  DeviceBuffer<float> value, diagonal, rhs, x(un), other(un), snapshot(un), next(un + 1);
  upload_vector(col, host.col);
  upload_vector(value, host.value);
  upload_vector(diagonal, host.diagonal);
  upload_vector(rhs, host.rhs);
  upload_vector(row_of, host.row_of);
  const int max_iterations = std::max(in.max_iterations, 0);
  DeviceBuffer<double> partial(kNormBlocks), history(static_cast<std::size_t>(max_iterations) + 1);
  SCG_CUDA(cudaMemset(x.get(), 0, un * sizeof(float)));
  SCG_CUDA(cudaMemset(snapshot.get(), 0, un * sizeof(float)));
  SCG_CUDA(cudaMemset(state.get(), 0, 2 * sizeof(int)));
  SCG_CUDA(cudaDeviceSynchronize());
  out.upload_s = std::chrono::duration<double>(Clock::now() - t0).count();

  const Ell a{n, host.width, col.get(), value.get(), diagonal.get(), rhs.get(), row_of.get()};
  const int colours = in.colour_offset.empty() ? 0 : static_cast<int>(in.colour_offset.size()) - 1;
  const int* d_state = state.get();
  float* cur = x.get();
  float* alt = other.get();
  auto sweep = [&](bool forward) {
    for (int step = 0; step < colours; ++step) {
      const int c = forward ? step : colours - 1 - step;
      const int first = in.colour_offset[static_cast<std::size_t>(c)];
      const int count = in.colour_offset[static_cast<std::size_t>(c) + 1] - first;
      if (count == 0) continue;
      if (host.independent_colours) {
        colour_in_place<<<blocks_for(count), kThreads>>>(a, first, count, cur, d_state);
        SCG_LAUNCH("colour_in_place");
      } else {
        colour_values<<<blocks_for(count), kThreads>>>(a, first, count, cur, next.get(), d_state);
        SCG_LAUNCH("colour_values");
        colour_write<<<blocks_for(count), kThreads>>>(a, first, count, next.get(), cur, d_state);
        SCG_LAUNCH("colour_write");
      }
    }
  };
  // x0 = 0, so ||r0|| = ||b||.
  const double bnorm = in.bnorm;
  const double scale = bnorm > 0 ? bnorm : 1.0;
  const double limit = in.divergence_factor * bnorm;
  const double converge_at = in.tolerance > 0 ? in.tolerance * scale : 0.0;
  // With a tolerance every iterate's residual is measured (the history); a run of a fixed
  // count measures it only where the host checks, for the divergence rule.
  const bool every_iteration = in.tolerance > 0;

  DeviceEvent start, stop;
  start.record();
  int state_host[2] = {kRunning, 0};
  int checked = 0;  // the iterate held in `snapshot`
  int launched = 0;
  while (launched < max_iterations && state_host[0] == kRunning) {
    const int batch = std::min(kCheckEvery, max_iterations - launched);
    for (int k = 1; k <= batch; ++k) {
      const int it = launched + k;
      if (colours == 0) {
        jacobi_step<<<blocks_for(n), kThreads>>>(a, static_cast<float>(in.omega), cur, alt, d_state);
        SCG_LAUNCH("jacobi_step");
        // A stopped state leaves alt unwritten: keep the iterate where the state stopped.
        std::swap(cur, alt);
      } else {
        sweep(true);
        if (in.symmetric) sweep(false);
      }
      if (every_iteration || k == batch) {
        residual_norm_partial<<<kNormBlocks, kThreads>>>(a, cur, partial.get(), d_state);
        SCG_LAUNCH("residual_norm_partial");
        residual_decide<<<1, 32>>>(partial.get(), history.get(), it, limit, converge_at, state.get());
        SCG_LAUNCH("residual_decide");
      }
    }
    launched += batch;
    SCG_CUDA(cudaMemcpy(state_host, state.get(), 2 * sizeof(int), cudaMemcpyDeviceToHost));
    if (state_host[0] == kRunning || state_host[0] == kConverged) {
      checked = state_host[0] == kRunning ? launched : state_host[1];
      if (state_host[0] == kRunning)
        SCG_CUDA(cudaMemcpyAsync(snapshot.get(), cur, un * sizeof(float), cudaMemcpyDeviceToDevice));
    }
  }
  stop.record();
  out.solve_s = stop.seconds_since(start);

  // Jacobi's kernels after a stop leave both buffers alone but the host still swapped:
  // the stopped iterate is the one written at the stop's iteration.
  if (colours == 0 && state_host[0] != kRunning && (launched - state_host[1]) % 2 == 1) std::swap(cur, alt);
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
    result = snapshot.get();
  } else {
    out.status = state_host[0] == kConverged ? StationaryOutput::converged : StationaryOutput::max_iterations;
    out.iterations = state_host[0] == kConverged ? state_host[1] : launched;
  }
  if (every_iteration)
    for (int it = 1; it <= out.iterations; ++it) out.history.push_back(hist[static_cast<std::size_t>(it)] / scale);
  t0 = Clock::now();
  out.x.assign(un, std::nanf(""));  // poisoned: every entry must come back
  SCG_CUDA(cudaMemcpy(out.x.data(), result, un * sizeof(float), cudaMemcpyDeviceToHost));
  out.readback_s = std::chrono::duration<double>(Clock::now() - t0).count();
  return out;
}

}  // namespace splinebench::scattered::gpu::detail
