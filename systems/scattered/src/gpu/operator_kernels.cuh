// The kernels of the matrix-free operator A p = F^T (F p) + lambda R p (operator.cu).
//
// sample_values  y = F p: a thread per sorted sample, its 4^D taps' weights times p (taps
//                folded by the mode only where they leave the line; a line of one node is
//                one tap of weight 1). Taps that fold onto one node are not merged: the sum
//                is the same up to rounding (the test's bound counts 64 products).
// apply_rows     A p = F^T y + lambda R p, a thread per node (k1, k2) of a 8 x 32 tile
//                marching along axis 0 over a chunk of 64 planes:
//                  R p separably from shared memory. R = sum_alpha w_alpha T_a0 (x) T_a1 (x)
//                  T_a2 with |alpha| = 2; each T_q applied as a 7-tap stencil on folded
//                  neighbours (grid_layout.hpp: per-node tables, so the folded boundary
//                  rows are exact and no node needs a second path). Per plane: the plane of
//                  p with a 3-wide folded halo in shared memory; Q_q = T_q along axis 2 on
//                  the tile's rows and halo rows; W_o0 = sum over (o1, o2) of w T_o1 Q_o2
//                  along axis 1 (six (o1, o2) pairs with o1 + o2 <= 2); W kept for 7
//                  planes in registers; R p = sum_o0 T_o0 W_o0 along axis 0.
//                  F^T y: gather_node (operator_gather.cuh) from the sorted samples.
// Per node about 3 * 7 * (14/8) + 6 * 7 + 3 * 7 = 100 FMAs for R p in 3-D (plus the
// 6/64 planes of halo per chunk), against 27 * 49 for the stencil entry by entry.
#pragma once

#include "operator_gather.cuh"

namespace splinebench::scattered::gpu::detail {

// A sorted sample as the operator reads it: float4 {f0, f1, f2, bits of the linear cell}.
struct OperatorSamples {
  const float4* rec;
  const float* y;
  __device__ int load(int s, int base, int, int, float f[3]) const {
    const float4 r = rec[s];
    f[0] = r.x;
    f[1] = r.y;
    f[2] = r.z;
    return __float_as_int(r.w) - base;
  }
  __device__ void add(float& acc, float w, int s) const { acc = fmaf(w, y[s], acc); }
};

__device__ __forceinline__ void unflat_cell(const GridView& g, int cell, int c[3]) {
  c[2] = cell % g.axis[2].n;
  cell /= g.axis[2].n;
  c[1] = cell % g.axis[1].n;
  c[0] = cell / g.axis[1].n;
}

// Per sorted sample: x - cell per axis (exact in f64, rounded once) and its cell.
__global__ void sample_records(long long count, GridView g, const double* x0, const double* x1, const double* x2,
                               const int* __restrict__ cell, float4* rec) {
  const long long s = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= count) return;
  int c[3];
  unflat_cell(g, cell[s], c);
  rec[s] = make_float4(static_cast<float>(x0[s] - c[0]), static_cast<float>(x1[s] - c[1]),
                       static_cast<float>(x2[s] - c[2]), __int_as_float(cell[s]));
}

// y_s = (F p)_s.
__global__ void sample_values_kernel(long long count, GridView g, const float4* __restrict__ rec, const float* __restrict__ p,
                              float* __restrict__ y) {
  const long long s = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= count) return;
  const float4 r = rec[s];
  int c[3];
  unflat_cell(g, __float_as_int(r.w), c);
  const float f[3] = {r.x, r.y, r.z};
  float w[3][4];
  int node[3][4];
  int taps[3];
#pragma unroll
  for (int a = 0; a < 3; ++a) {
    const AxisView& ax = g.axis[a];
    taps[a] = ax.n == 1 ? 1 : 4;
    weights4(f[a], w[a]);
    if (ax.n == 1) w[a][0] = 1.f;
#pragma unroll
    for (int t = 0; t < 4; ++t) node[a][t] = ax.n == 1 ? 0 : fold_to_line(ax, c[a] + t - 1);
  }
  const long long n1 = g.axis[1].n, n2 = g.axis[2].n;
  float sum = 0.f;
#pragma unroll
  for (int t0 = 0; t0 < 4; ++t0) {
    if (t0 >= taps[0]) break;
#pragma unroll
    for (int t1 = 0; t1 < 4; ++t1) {
      if (t1 >= taps[1]) break;
      const float w01 = w[0][t0] * w[1][t1];
      const float* row = p + (node[0][t0] * n1 + node[1][t1]) * n2;
#pragma unroll
      for (int t2 = 0; t2 < 4; ++t2) {
        if (t2 >= taps[2]) break;
        sum = fmaf(w01 * w[2][t2], row[node[2][t2]], sum);
      }
    }
  }
  y[s] = sum;
}

inline constexpr int kTileX = 32, kTileY = 8, kChunk = 64;
inline constexpr int kPadX = kTileX + 6, kPadY = kTileY + 6;

// c[o1][o2]: lambda times the weight of the term (2 - o1 - o2, o1, o2), 0 when absent.
struct ThinPlateCoefficients {
  float c[3][3];
};

// (A p)_k = (F^T y)_k + lambda (R p)_k; grid (ceil(n2/32), ceil(n1/8), ceil(n0/64)), block (32, 8).
template <bool kWithR>
__global__ void __launch_bounds__(kTileX* kTileY)
    apply_rows_kernel(GridView g, OperatorSamples samples, const int* __restrict__ cell_start, ThinPlateCoefficients tp,
               const float* __restrict__ p, float* __restrict__ ap) {
  const int n0 = g.axis[0].n, n1 = g.axis[1].n, n2 = g.axis[2].n;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int K2 = blockIdx.x * kTileX, K1 = blockIdx.y * kTileY;
  const int k2 = K2 + tx, k1 = K1 + ty;
  const int z0 = blockIdx.z * kChunk, z1 = min(n0, z0 + kChunk);
  const bool inside = k2 < n2 && k1 < n1;
  if (!kWithR) {
    if (!inside) return;
    for (int k0 = z0; k0 < z1; ++k0)
      ap[(static_cast<long long>(k0) * n1 + k1) * n2 + k2] = gather_node<float>(g, cell_start, k0, k1, k2, samples);
    return;
  }
  __shared__ float tile[kPadY][kPadX];
  __shared__ float q[3][kPadY][kTileX];
  // This column's stencils along axes 2 and 1 (threads past the grid compute unused values).
  float s2[3][7], s1[3][7];
  {
    const float* t2 = g.axis[2].stencil_f32 + min(k2, n2 - 1) * 21;
    const float* t1 = g.axis[1].stencil_f32 + min(k1, n1 - 1) * 21;
#pragma unroll
    for (int o = 0; o < 3; ++o)
#pragma unroll
      for (int d = 0; d < 7; ++d) {
        s2[o][d] = t2[o * 7 + d];
        s1[o][d] = t1[o * 7 + d];
      }
  }
  float ring[7][3];  // W_o0 at planes k0 - 3 .. k0 + 3 (ring[6]: the newest)
#pragma unroll
  for (int d = 0; d < 7; ++d) ring[d][0] = ring[d][1] = ring[d][2] = 0.f;

  for (int i0 = z0 - 3; i0 < z1 + 3; ++i0) {
    const long long plane = static_cast<long long>(fold_to_line(g.axis[0], i0)) * n1;
    __syncthreads();  // the previous plane's tile and q are read
    for (int e = ty * kTileX + tx; e < kPadY * kPadX; e += kTileX * kTileY) {
      const int r = e / kPadX, c = e % kPadX;
      tile[r][c] = p[(plane + fold_to_line(g.axis[1], K1 - 3 + r)) * n2 + fold_to_line(g.axis[2], K2 - 3 + c)];
    }
    __syncthreads();
    for (int r = ty; r < kPadY; r += kTileY) {
      float a0 = 0.f, a1 = 0.f, a2 = 0.f;
#pragma unroll
      for (int d = 0; d < 7; ++d) {
        const float v = tile[r][tx + d];
        a0 = fmaf(s2[0][d], v, a0);
        a1 = fmaf(s2[1][d], v, a1);
        a2 = fmaf(s2[2][d], v, a2);
      }
      q[0][r][tx] = a0;
      q[1][r][tx] = a1;
      q[2][r][tx] = a2;
    }
    __syncthreads();
    float part[3][3] = {};  // sum_d T_o1[d] Q_o2 along axis 1, o1 + o2 <= 2
#pragma unroll
    for (int d = 0; d < 7; ++d) {
      const float v0 = q[0][ty + d][tx], v1 = q[1][ty + d][tx], v2 = q[2][ty + d][tx];
      part[0][0] = fmaf(s1[0][d], v0, part[0][0]);
      part[0][1] = fmaf(s1[0][d], v1, part[0][1]);
      part[0][2] = fmaf(s1[0][d], v2, part[0][2]);
      part[1][0] = fmaf(s1[1][d], v0, part[1][0]);
      part[1][1] = fmaf(s1[1][d], v1, part[1][1]);
      part[2][0] = fmaf(s1[2][d], v0, part[2][0]);
    }
#pragma unroll
    for (int d = 0; d < 6; ++d) {
      ring[d][0] = ring[d + 1][0];
      ring[d][1] = ring[d + 1][1];
      ring[d][2] = ring[d + 1][2];
    }
    ring[6][0] = fmaf(tp.c[0][2], part[0][2], fmaf(tp.c[1][1], part[1][1], tp.c[2][0] * part[2][0]));
    ring[6][1] = fmaf(tp.c[0][1], part[0][1], tp.c[1][0] * part[1][0]);
    ring[6][2] = tp.c[0][0] * part[0][0];
    const int k0 = i0 - 3;
    if (k0 >= z0 && inside) {
      const float* t0 = g.axis[0].stencil_f32 + k0 * 21;
      float r = 0.f;
#pragma unroll
      for (int o = 0; o < 3; ++o)
#pragma unroll
        for (int d = 0; d < 7; ++d) r = fmaf(t0[o * 7 + d], ring[d][o], r);
      ap[(static_cast<long long>(k0) * n1 + k1) * n2 + k2] = gather_node<float>(g, cell_start, k0, k1, k2, samples) + r;
    }
  }
}

// diag(A)_k = sum_s w_k(s)^2 + lambda R_kk, in f64, rounded once.
__global__ void diagonal_rows(long long rows, GridView g, DiagonalPolicy policy, const int* __restrict__ cell_start,
                              float* d) {
  const long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  int k[3];
  g.unflat(row, k);
  const double s = gather_node<double>(g, cell_start, k[0], k[1], k[2], policy);
  int self[3];
  for (int a = 0; a < 3; ++a) self[a] = g.axis[a].offset[k[a]] + coupled_position(g.axis[a], k[a], k[a]);
  double r = 0;
  for (int t = 0; t < g.terms; ++t) {
    double prod = g.term_weight[t];
    for (int a = 0; a < 3; ++a) prod *= g.axis[a].integral[g.term_order[t][a]][self[a]];
    r += prod;
  }
  d[row] = static_cast<float>(s + r);
}

}  // namespace splinebench::scattered::gpu::detail
