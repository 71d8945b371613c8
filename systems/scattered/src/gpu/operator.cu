// The matrix-free operator A p = F^T (F p) + lambda R p and CG on it (gpu_operator.hpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "block_sums.cuh"
#include "cg_device_loop.cuh"
#include "device_grid.cuh"
#include "device_operator.hpp"
#include "operator_device.hpp"
#include "operator_kernels.cuh"
#include "vector_kernels.cuh"

namespace splinebench::scattered::gpu::detail {

namespace {

__global__ void to_f32(long long n, const double* in, float* out) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<float>(in[i]);
}

// sum of squares of an f64 vector: per-block partials in a fixed grid-stride order, then
// one thread sums them in index order (repeatable bits, as DotProduct).
constexpr int kNormBlocks = 264;
__global__ void squares_partial(long long n, const double* __restrict__ v, double* partial) {
  double s = 0;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    s += v[i] * v[i];
  store_block_sum<kThreads>(s, partial);
}

__global__ void sum_partials(int count, double* partial) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    double t = 0;
    for (int i = 0; i < count; ++i) t += partial[i];
    partial[count] = t;
  }
}

double wall_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The planes per block of apply_rows. A block's march is chunk + kMarchHalo steps, and
// the launch runs in waves of `slots` resident blocks, so the time goes as
// waves(chunk) * (chunk + kMarchHalo): long chunks waste little on halos, short ones
// fill the device where a grid has few tiles per plane (the coarse levels of the
// multigrid: 64^3 has 16 tiles per plane, 64-plane chunks would leave most SMs idle).
// The shortest time wins; on a tie, the longer chunk (less work in all).
int march_chunk(long long n0, long long tiles_per_plane, long long slots) {
  int best = kMaxChunk;
  long long best_cost = -1;
  for (int chunk = kMaxChunk; chunk >= 1; --chunk) {
    const long long blocks = (n0 + chunk - 1) / chunk * tiles_per_plane;
    const long long cost = (blocks + slots - 1) / slots * (chunk + kMarchHalo);
    if (best_cost < 0 || cost < best_cost) best = chunk, best_cost = cost;
  }
  return best;
}

// Resident apply_rows blocks on the whole device.
long long apply_rows_slots(bool with_r) {
  int device = 0, sms = 0, per_sm = 0;
  SB_CUDA_CHECK(cudaGetDevice(&device));
  SB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  if (with_r)
    SB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, apply_rows_kernel<true>, kTileX * kTileY, 0));
  else
    SB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, apply_rows_kernel<false>, kTileX * kTileY, 0));
  return static_cast<long long>(std::max(1, sms)) * std::max(1, per_sm);
}

}  // namespace

struct MatrixFreeOperator::Impl {
  Impl(const GridLayout& layout, const SampleArrays& samples) : grid(layout) {
    upload_and_sort(grid, samples, sorted);
    const long long n = sorted.count;
    rec.resize(static_cast<std::size_t>(n));
    y.resize(static_cast<std::size_t>(n));
    Event start, stop;
    start.record();
    sample_records<<<blocks_for(n), kThreads>>>(n, grid.view(), sorted.coord[0].data(), sorted.coord[1].data(),
                                                sorted.coord[2].data(), sorted.cell.data(), rec.data());
    SB_CUDA_CHECK_LAUNCH("sample_records");
    stop.record();
    records_s = stop.seconds_since(start);
    with_r = false;
    for (int t = 0; t < layout.terms; ++t) {
      const int* o = layout.term_order[t];
      if (o[0] + o[1] + o[2] != 2) fail("scattered GPU operator: a thin-plate term of order other than 2");
      tp.c[o[1]][o[2]] += static_cast<float>(layout.term_weight[t]);
      with_r = with_r || layout.term_weight[t] != 0;
    }
    const GridView& g = grid.view();
    chunk = march_chunk(g.axis[0].n, static_cast<long long>((g.axis[2].n + kTileX - 1) / kTileX) *
                                         ((g.axis[1].n + kTileY - 1) / kTileY),
                        apply_rows_slots(with_r));
  }
  long long rows() const { return grid.layout().rows; }
  OperatorSamples operator_samples() const { return {rec.data(), y.data()}; }
  SortedSamplesF64 sorted_f64() const {
    return {{sorted.coord[0].data(), sorted.coord[1].data(), sorted.coord[2].data()}, sorted.cell.data()};
  }
  void sample_values(const float* p, cudaStream_t stream) {
    sample_values_kernel<<<blocks_for(sorted.count), kThreads, 0, stream>>>(sorted.count, grid.view(), rec.data(), p,
                                                                            y.data());
    SB_CUDA_CHECK_LAUNCH("sample_values");
  }
  void apply_rows(const float* p, float* ap, cudaStream_t stream) {
    const GridView& g = grid.view();
    const dim3 block(kTileX, kTileY);
    const dim3 tiles((g.axis[2].n + kTileX - 1) / kTileX, (g.axis[1].n + kTileY - 1) / kTileY,
                     (g.axis[0].n + chunk - 1) / chunk);
    if (with_r)
      apply_rows_kernel<true>
          <<<tiles, block, 0, stream>>>(g, operator_samples(), sorted.cell_start.data(), tp, p, ap, chunk);
    else
      apply_rows_kernel<false>
          <<<tiles, block, 0, stream>>>(g, operator_samples(), sorted.cell_start.data(), tp, p, ap, chunk);
    SB_CUDA_CHECK_LAUNCH("apply_rows");
  }

  DeviceGrid grid;
  DeviceSamples sorted;
  DeviceBuffer<float4> rec;
  DeviceBuffer<float> y;
  ThinPlateCoefficients tp{};
  bool with_r = false;
  int chunk = kMaxChunk;  // planes of axis 0 per apply_rows block
  double records_s = 0;
};

MatrixFreeOperator::MatrixFreeOperator(const GridLayout& layout, const SampleArrays& samples) {
  // The launch grid's y and z extents (apply_rows) are at most 65535.
  if ((layout.axis[1].n + kTileY - 1) / kTileY > 65535 || (layout.axis[0].n + kMaxChunk - 1) / kMaxChunk > 65535)
    throw Unsupported("scattered GPU operator: more than 65535 tiles along axis 0 or 1");
  impl_ = std::make_unique<Impl>(layout, samples);
  // A shorter chunk than the longest must keep the z extent in range too.
  while ((layout.axis[0].n + impl_->chunk - 1) / impl_->chunk > 65535) ++impl_->chunk;
  upload_s = impl_->sorted.upload_s;
  sort_s = impl_->sorted.sort_s + impl_->records_s;
}

MatrixFreeOperator::~MatrixFreeOperator() = default;

long long MatrixFreeOperator::rows() const { return impl_->rows(); }
long long MatrixFreeOperator::samples() const { return impl_->sorted.count; }
const GridLayout& MatrixFreeOperator::layout() const { return impl_->grid.layout(); }

const DeviceGrid& MatrixFreeOperator::device_grid() const { return impl_->grid; }
const DeviceSamples& MatrixFreeOperator::sorted_samples() const { return impl_->sorted; }

void MatrixFreeOperator::apply(const float* p, float* ap, cudaStream_t stream) {
  impl_->sample_values(p, stream);
  impl_->apply_rows(p, ap, stream);
}

void MatrixFreeOperator::diagonal(float* d, cudaStream_t stream) {
  const DiagonalPolicy policy{impl_->sorted_f64()};
  diagonal_rows<<<blocks_for(rows()), kThreads, 0, stream>>>(rows(), impl_->grid.view(), policy,
                                                             impl_->sorted.cell_start.data(), d);
  SB_CUDA_CHECK_LAUNCH("diagonal_rows");
}

double MatrixFreeOperator::rhs(float* b, cudaStream_t stream) {
  const auto n = static_cast<std::size_t>(rows());
  DeviceBuffer<double> rhs64(n);
  gather_rhs(impl_->grid, impl_->sorted, rhs64.data(), stream);
  to_f32<<<blocks_for(rows()), kThreads, 0, stream>>>(rows(), rhs64.data(), b);
  SB_CUDA_CHECK_LAUNCH("to_f32");
  DeviceBuffer<double> partial(kNormBlocks + 1);
  squares_partial<<<kNormBlocks, kThreads, 0, stream>>>(rows(), rhs64.data(), partial.data());
  SB_CUDA_CHECK_LAUNCH("squares_partial");
  sum_partials<<<1, 32, 0, stream>>>(kNormBlocks, partial.data());
  SB_CUDA_CHECK_LAUNCH("sum_partials");
  double ss = 0;
  SB_CUDA_CHECK(cudaMemcpyAsync(&ss, partial.data() + kNormBlocks, sizeof(double), cudaMemcpyDeviceToHost, stream));
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return std::sqrt(ss);
}

std::vector<float> apply_operator(const GridLayout& layout, const SampleArrays& samples, const std::vector<float>& p) {
  MatrixFreeOperator op(layout, samples);
  return apply_once(op, p, "apply_operator");
}

std::vector<float> operator_diagonal(const GridLayout& layout, const SampleArrays& samples) {
  MatrixFreeOperator op(layout, samples);
  const auto n = static_cast<std::size_t>(op.rows());
  DeviceBuffer<float> d(n);
  SB_CUDA_CHECK(cudaMemset(d.data(), 0xFF, n * sizeof(float)));  // poisoned
  op.diagonal(d.data());
  std::vector<float> out(n);
  d.download(out.data());
  return out;
}

struct OperatorProfiler {
  static void sample_values(MatrixFreeOperator& op, const float* p) { op.impl_->sample_values(p, nullptr); }
  static void apply_rows(MatrixFreeOperator& op, const float* p, float* ap) { op.impl_->apply_rows(p, ap, nullptr); }
  static int& chunk(MatrixFreeOperator& op) { return op.impl_->chunk; }
};

std::vector<KernelSeconds> profile_operator(const GridLayout& layout, const SampleArrays& samples, int repeats,
                                            int chunk) {
  std::vector<KernelSeconds> out;
  MatrixFreeOperator op(layout, samples);
  if (chunk > 0) OperatorProfiler::chunk(op) = chunk;
  out.push_back({"march_chunk", static_cast<double>(OperatorProfiler::chunk(op))});
  out.push_back({"sort_and_records", op.sort_s});
  const long long n = op.rows();
  const auto un = static_cast<std::size_t>(n);
  DeviceBuffer<float> b(un), d(un), x(un), r(un), ap(un);
  DotProduct dot;
  // The median over `repeats` of one call, timed by events around it.
  const auto median_of = [&](const char* name, const auto& call) {
    std::vector<double> t;
    call();  // warm-up
    for (int i = 0; i < repeats; ++i) {
      Event start, stop;
      start.record();
      call();
      stop.record();
      t.push_back(stop.seconds_since(start));
    }
    std::sort(t.begin(), t.end());
    out.push_back({name, t[t.size() / 2]});
  };
  median_of("rhs", [&] { op.rhs(b.data()); });
  median_of("diagonal", [&] { op.diagonal(d.data()); });
  // p = b (a realistic first direction), x = 0, r = b.
  const float* p = b.data();
  SB_CUDA_CHECK(cudaMemset(x.data(), 0, un * sizeof(float)));
  SB_CUDA_CHECK(cudaMemcpy(r.data(), b.data(), un * sizeof(float), cudaMemcpyDeviceToDevice));
  median_of("sample_values", [&] { OperatorProfiler::sample_values(op, p); });
  median_of("apply_rows", [&] { OperatorProfiler::apply_rows(op, p, ap.data()); });
  median_of("update_xr", [&] {
    update_xr<<<blocks_for(n), kThreads>>>(n, 0.f, p, ap.data(), x.data(), r.data());
    SB_CUDA_CHECK_LAUNCH("update_xr");
  });
  median_of("update_p", [&] {
    update_p<<<blocks_for(n), kThreads>>>(n, 0.f, r.data(), d.data());
    SB_CUDA_CHECK_LAUNCH("update_p");
  });
  median_of("dot", [&] { dot(n, p, ap.data()); });
  return out;
}

struct OperatorCg::State {
  State(const GridLayout& layout, const SampleArrays& samples) : op(layout, samples) {}
  MatrixFreeOperator op;
  DeviceBuffer<float> b, x, r, p, ap;
  DotProduct dot;
  double bnorm = 0;
};

OperatorCg::OperatorCg(const GridLayout& layout, const SampleArrays& samples)
    : s_(std::make_unique<State>(layout, samples)) {
  State& s = *s_;
  upload_s = s.op.upload_s;
  sort_s = s.op.sort_s;
  const auto un = static_cast<std::size_t>(s.op.rows());
  for (DeviceBuffer<float>* v : {&s.b, &s.x, &s.r, &s.p, &s.ap}) v->resize(un);
  Event rhs_start, rhs_done;
  rhs_start.record();
  s.bnorm = s.op.rhs(s.b.data());
  rhs_done.record();
  rhs_s = rhs_done.seconds_since(rhs_start);
}

OperatorCg::~OperatorCg() = default;

OperatorCgOutput OperatorCg::solve(int max_iterations, double tolerance) {
  State& s = *s_;
  OperatorCgOutput out;
  MatrixFreeOperator& op = s.op;
  const long long n = op.rows();
  const auto un = static_cast<std::size_t>(n);
  const double bnorm = s.bnorm;
  SB_CUDA_CHECK(cudaMemset(s.x.data(), 0, un * sizeof(float)));
  SB_CUDA_CHECK(cudaMemcpy(s.r.data(), s.b.data(), un * sizeof(float), cudaMemcpyDeviceToDevice));
  SB_CUDA_CHECK(cudaMemcpy(s.p.data(), s.b.data(), un * sizeof(float), cudaMemcpyDeviceToDevice));
  if (bnorm == 0) {
    out.status = OperatorCgOutput::converged;
    out.x.assign(un, 0.f);
    return out;
  }

  const auto slots = static_cast<std::size_t>(std::max(max_iterations, 0)) + 1;
  DeviceBuffer<double> partial(kCgDotBlocks), rr(slots), pap(1);
  DeviceBuffer<int> state(2);  // state, stop_it
  const CgScalars scalars{rr.data(), pap.data(), state.data(), state.data() + 1};
  const auto apply = [&](const float* v, float* av) { op.apply(v, av); };
  const auto check = [](cudaError_t err, const char* what) { check_cuda(err, what, __FILE__, __LINE__); };

  Event start, stop;
  start.record();
  const CgDeviceLoopResult res = run_cg_device_loop(n, max_iterations, bnorm, tolerance, s.x.data(), s.r.data(),
                                                    s.p.data(), s.ap.data(), partial.data(), scalars, apply, check);
  stop.record();
  out.solve_s = stop.seconds_since(start);
  std::vector<double> rr_host(slots);
  rr.download(rr_host.data());
  for (int it = 1; it <= res.iterations; ++it)
    out.history.push_back(std::sqrt(rr_host[static_cast<std::size_t>(it)]) / bnorm);
  out.iterations = res.iterations;
  if (res.state == kCgSingular) {
    out.status = OperatorCgOutput::singular;
    out.message = "p.Ap = " + std::to_string(res.pap) + " at iteration " + std::to_string(res.stop_it) +
                  ": not positive definite in f32";
  } else if (res.state == kCgDiverged) {
    out.status = OperatorCgOutput::diverged;
    out.message = "non-finite residual at iteration " + std::to_string(res.stop_it);
  } else if (res.state == kCgConverged) {
    out.status = OperatorCgOutput::converged;
  }

  // The true residual b - A x with this operator.
  op.apply(s.x.data(), s.ap.data());
  residual<<<blocks_for(n), kThreads>>>(n, s.b.data(), s.ap.data(), s.r.data());
  SB_CUDA_CHECK_LAUNCH("residual");
  out.true_relres = std::sqrt(s.dot(n, s.r.data(), s.r.data())) / bnorm;

  const auto t0 = std::chrono::steady_clock::now();
  out.x.resize(un);
  s.x.download(out.x.data());
  out.readback_s = wall_since(t0);
  return out;
}

}  // namespace splinebench::scattered::gpu::detail
