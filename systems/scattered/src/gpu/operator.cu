// The matrix-free operator A p = F^T (F p) + lambda R p and CG on it (gpu_operator.hpp).
#include <chrono>
#include <cmath>
#include <limits>

#include "device_grid.cuh"
#include "device_operator.hpp"

namespace splinebench::scattered::gpu::detail {

namespace {

// Per sorted sample, its fraction on each axis in f32 (x - cell, exact in f64, rounded once).
__global__ void fractions(long long count, GridView g, const double* x0, const double* x1, const double* x2,
                          const int* __restrict__ cell, float* f0, float* f1, float* f2) {
  const long long s = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= count) return;
  int c[3];
  g.unflat(cell[s], c);
  f0[s] = static_cast<float>(x0[s] - c[0]);
  f1[s] = static_cast<float>(x1[s] - c[1]);
  f2[s] = static_cast<float>(x2[s] - c[2]);
}

struct SampleView {
  long long count;
  const int* cell;
  const int* cell_start;
  const float* frac[3];
};

// y_s = (F p)_s.
__global__ void sample_values(SampleView sv, GridView g, const float* __restrict__ p, float* __restrict__ y) {
  const long long s = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= sv.count) return;
  int c[3];
  g.unflat(sv.cell[s], c);
  Taps<float> taps[3];
  for (int a = 0; a < 3; ++a) taps[a] = axis_taps(g.axis[a], c[a], sv.frac[a][s]);
  float sum = 0.f;
  for (int t0 = 0; t0 < taps[0].count; ++t0)
    for (int t1 = 0; t1 < taps[1].count; ++t1) {
      const float w01 = taps[0].weight[t0] * taps[1].weight[t1];
      const long long base = g.flat(taps[0].node[t0], taps[1].node[t1], 0);
      for (int t2 = 0; t2 < taps[2].count; ++t2) sum = fmaf(w01 * taps[2].weight[t2], p[base + taps[2].node[t2]], sum);
    }
  y[s] = sum;
}

// (A p)_k = (F^T y)_k + lambda (R p)_k.
__global__ void apply_rows(long long rows, SampleView sv, GridView g, bool with_r, const float* __restrict__ y,
                           const float* __restrict__ p, float* __restrict__ ap) {
  const long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  int k[3];
  g.unflat(row, k);
  const AxisView* ax = g.axis;
  float acc = 0.f;
  for (int i0 = ax[0].touch_offset[k[0]]; i0 < ax[0].touch_offset[k[0] + 1]; ++i0)
    for (int i1 = ax[1].touch_offset[k[1]]; i1 < ax[1].touch_offset[k[1] + 1]; ++i1)
      for (int i2 = ax[2].touch_offset[k[2]]; i2 < ax[2].touch_offset[k[2] + 1]; ++i2) {
        const int c[3] = {ax[0].touch_cell[i0], ax[1].touch_cell[i1], ax[2].touch_cell[i2]};
        const long long cell = g.flat(c[0], c[1], c[2]);
        for (int s = sv.cell_start[cell]; s < sv.cell_start[cell + 1]; ++s) {
          float w = 1.f;
          for (int a = 0; a < 3; ++a) w *= node_weight(ax[a], c[a], sv.frac[a][s], k[a]);
          acc = fmaf(w, y[s], acc);
        }
      }
  if (with_r) {
    float r = 0.f;
    for (int j0 = ax[0].offset[k[0]]; j0 < ax[0].offset[k[0] + 1]; ++j0)
      for (int j1 = ax[1].offset[k[1]]; j1 < ax[1].offset[k[1] + 1]; ++j1) {
        const long long base = g.flat(ax[0].node[j0], ax[1].node[j1], 0);
        float part[3] = {0.f, 0.f, 0.f};  // sum over j2 of T_q[j2] p, q = 0, 1, 2
        for (int j2 = ax[2].offset[k[2]]; j2 < ax[2].offset[k[2] + 1]; ++j2) {
          const float pv = p[base + ax[2].node[j2]];
          for (int q = 0; q < 3; ++q) part[q] = fmaf(ax[2].integral_f32[q][j2], pv, part[q]);
        }
        for (int t = 0; t < g.terms; ++t) {
          const float outer = g.term_weight_f32[t] * ax[0].integral_f32[g.term_order[t][0]][j0] *
                              ax[1].integral_f32[g.term_order[t][1]][j1];
          r = fmaf(outer, part[g.term_order[t][2]], r);
        }
      }
    acc += r;
  }
  ap[row] = acc;
}

__global__ void to_f32(long long n, const double* in, float* out) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<float>(in[i]);
}

__global__ void update_xr(long long n, float alpha, const float* __restrict__ p, const float* __restrict__ ap, float* x,
                          float* r) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] = fmaf(alpha, p[i], x[i]);
    r[i] = fmaf(-alpha, ap[i], r[i]);
  }
}

__global__ void update_p(long long n, float beta, const float* __restrict__ r, float* p) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) p[i] = fmaf(beta, p[i], r[i]);
}

// r = b - a (the true residual's vector; norms in f64 by DotProduct).
__global__ void difference(long long n, const float* __restrict__ b, const float* __restrict__ a, float* r) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) r[i] = b[i] - a[i];
}

double wall_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The operator's device state: the grid, the sorted samples and their f32 fractions.
class Operator {
 public:
  Operator(const GridLayout& layout, const SampleArrays& samples) : grid_(layout) {
    const auto t0 = std::chrono::steady_clock::now();
    upload_and_sort(grid_, samples, sorted_);
    upload_s = wall_since(t0) - sorted_.sort_s;
    sort_s = sorted_.sort_s;
    const long long n = sorted_.count;
    for (auto& f : frac_) f.resize(static_cast<std::size_t>(n));
    y_.resize(static_cast<std::size_t>(n));
    fractions<<<blocks_for(n), kThreads>>>(n, grid_.view(), sorted_.coord[0].get(), sorted_.coord[1].get(),
                                           sorted_.coord[2].get(), sorted_.cell.get(), frac_[0].get(), frac_[1].get(),
                                           frac_[2].get());
    SCG_LAUNCH("fractions");
    view_ = {n, sorted_.cell.get(), sorted_.cell_start.get(), {frac_[0].get(), frac_[1].get(), frac_[2].get()}};
    with_r_ = false;
    for (int t = 0; t < layout.terms; ++t) with_r_ = with_r_ || layout.term_weight[t] != 0;
  }
  long long rows() const { return grid_.layout().rows; }
  void apply(const float* p, float* ap) {
    sample_values<<<blocks_for(view_.count), kThreads>>>(view_, grid_.view(), p, y_.get());
    SCG_LAUNCH("sample_values");
    apply_rows<<<blocks_for(rows()), kThreads>>>(rows(), view_, grid_.view(), with_r_, y_.get(), p, ap);
    SCG_LAUNCH("apply_rows");
  }
  // F^T f in f64, rounded to f32 into b; returns ||F^T f|| in f64 of the f64 vector.
  double rhs(float* b) {
    DeviceBuffer<double> rhs64(static_cast<std::size_t>(rows()));
    gather_rhs(grid_, sorted_, rhs64.get());
    to_f32<<<blocks_for(rows()), kThreads>>>(rows(), rhs64.get(), b);
    SCG_LAUNCH("to_f32");
    std::vector<double> host(static_cast<std::size_t>(rows()));
    rhs64.download(host.data());
    double ss = 0;
    for (double v : host) ss += v * v;
    return std::sqrt(ss);
  }
  double upload_s = 0, sort_s = 0;

 private:
  DeviceGrid grid_;
  DeviceSamples sorted_;
  DeviceBuffer<float> frac_[3], y_;
  SampleView view_{};
  bool with_r_ = false;
};

}  // namespace

std::vector<float> apply_operator(const GridLayout& layout, const SampleArrays& samples, const std::vector<float>& p) {
  Operator op(layout, samples);
  const auto n = static_cast<std::size_t>(op.rows());
  DeviceBuffer<float> d_p(n), d_ap(n);
  d_p.upload(p.data());
  SCG_CUDA(cudaMemset(d_ap.get(), 0xFF, n * sizeof(float)));  // poisoned: NaN where no thread writes
  op.apply(d_p.get(), d_ap.get());
  std::vector<float> out(n);
  d_ap.download(out.data());
  return out;
}

OperatorCgOutput run_operator_cg(const GridLayout& layout, const SampleArrays& samples, int max_iterations,
                                 double tolerance) {
  OperatorCgOutput out;
  Operator op(layout, samples);
  out.upload_s = op.upload_s;
  out.sort_s = op.sort_s;
  const long long n = op.rows();
  const auto un = static_cast<std::size_t>(n);
  DeviceBuffer<float> b(un), x(un), r(un), p(un), ap(un);
  DotProduct dot;
  DeviceEvent rhs_start, rhs_done;
  rhs_start.record();
  const double bnorm = op.rhs(b.get());
  rhs_done.record();
  out.rhs_s = rhs_done.seconds_since(rhs_start);
  SCG_CUDA(cudaMemset(x.get(), 0, un * sizeof(float)));
  SCG_CUDA(cudaMemcpy(r.get(), b.get(), un * sizeof(float), cudaMemcpyDeviceToDevice));
  SCG_CUDA(cudaMemcpy(p.get(), b.get(), un * sizeof(float), cudaMemcpyDeviceToDevice));
  if (bnorm == 0) {
    out.status = OperatorCgOutput::converged;
    out.x.assign(un, 0.f);
    return out;
  }

  DeviceEvent start, stop;
  start.record();
  double rr = dot(n, r.get(), r.get());
  for (int it = 1; it <= max_iterations; ++it) {
    op.apply(p.get(), ap.get());
    const double pap = dot(n, p.get(), ap.get());
    if (!(pap > 0)) {
      out.status = OperatorCgOutput::singular;
      out.message = "p.Ap = " + std::to_string(pap) + " at iteration " + std::to_string(it) +
                    ": not positive definite in f32";
      break;
    }
    const double alpha = rr / pap;
    update_xr<<<blocks_for(n), kThreads>>>(n, static_cast<float>(alpha), p.get(), ap.get(), x.get(), r.get());
    SCG_LAUNCH("update_xr");
    const double rr_next = dot(n, r.get(), r.get());
    const double rel = std::sqrt(rr_next) / bnorm;
    out.iterations = it;
    out.history.push_back(rel);
    if (!std::isfinite(rel)) {
      out.status = OperatorCgOutput::diverged;
      out.message = "non-finite residual at iteration " + std::to_string(it);
      break;
    }
    if (tolerance > 0 && rel <= tolerance) {
      out.status = OperatorCgOutput::converged;
      break;
    }
    update_p<<<blocks_for(n), kThreads>>>(n, static_cast<float>(rr_next / rr), r.get(), p.get());
    SCG_LAUNCH("update_p");
    rr = rr_next;
  }
  stop.record();
  out.solve_s = stop.seconds_since(start);

  // The true residual b - A x with this operator.
  op.apply(x.get(), ap.get());
  difference<<<blocks_for(n), kThreads>>>(n, b.get(), ap.get(), r.get());
  SCG_LAUNCH("difference");
  out.true_relres = std::sqrt(dot(n, r.get(), r.get())) / bnorm;

  const auto t0 = std::chrono::steady_clock::now();
  out.x.resize(un);
  x.download(out.x.data());
  out.readback_s = wall_since(t0);
  return out;
}

}  // namespace splinebench::scattered::gpu::detail
