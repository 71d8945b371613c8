// The kernels of the matrix-free operator A p = F^T (F p) + lambda R p (operator.cu).
//
// sample_values  y = F p: a thread per sorted sample, its 4^D taps' weights times p (taps
//                folded by the mode only where they leave the line; a line of one node is
//                one tap of weight 1). Taps that fold onto one node are not merged: the sum
//                is the same up to rounding (the test's bound counts 64 products).
// apply_rows     A p = F^T y + lambda R p, a thread per node (k1, k2) of a 8 x 32 tile
//                marching along axis 0 over a chunk of planes (march_chunk below):
//                  R p separably from shared memory. R = sum_alpha w_alpha T_a0 (x) T_a1 (x)
//                  T_a2 with |alpha| = 2; each T_q applied as a 7-tap stencil on folded
//                  neighbours (grid_layout.hpp: per-node tables, so the folded boundary
//                  rows are exact and no node needs a second path). Per plane: the plane of
//                  p with a 3-wide folded halo in shared memory; Q_q = T_q along axis 2 on
//                  the tile's rows and halo rows; W_o0 = sum over (o1, o2) of w T_o1 Q_o2
//                  along axis 1 (six (o1, o2) pairs with o1 + o2 <= 2); W kept for 7
//                  planes in registers; R p = sum_o0 T_o0 W_o0 along axis 0.
//                  F^T y separably by planes of cells (operator_transpose.cuh): per plane
//                  c0 the tile's rows of cells are summed per node along axis 2 into 16
//                  tap pairs (t0, t1) in shared memory, reduced along axis 1, and the four
//                  virtual planes c0 - 1 .. c0 + 2 kept in registers; the images of axis 0
//                  landing in the chunk are summed from their planes first.
// Per node about 3 * 7 * (14/8) + 6 * 7 + 3 * 7 = 100 FMAs for R p in 3-D (plus the
// 6/64 planes of halo per chunk), against 27 * 49 for the stencil entry by entry. F^T y
// visits each sample 4 (1 + 3/8) times per plane of cells (the nodes it reaches along axis
// 2, the tile's halo rows along axis 1) for 16 FMAs, where a per-node gather visits it 64
// times and serialises 16 dependent loads of cell starts and records per node.
#pragma once

#include "operator_transpose.cuh"

namespace splinebench::scattered::gpu::detail {

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

// c[o1][o2]: lambda times the weight of the term (2 - o1 - o2, o1, o2), 0 when absent.
struct ThinPlateCoefficients {
  float c[3][3];
};

// (A p)_k = (F^T y)_k + lambda (R p)_k; grid (ceil(n2/32), ceil(n1/8), ceil(n0/chunk)), block (32, 8).
// Step i0 of the march loads plane i0 of p (R p) and plane i0 - 2 of cells (F^T y), and
// writes node plane k0 = i0 - 3, whose last planes of both have then been read.
template <bool kWithR>
__global__ void __launch_bounds__(kTileX* kTileY, 3)
    apply_rows_kernel(GridView g, OperatorSamples samples, const int* __restrict__ cell_start, ThinPlateCoefficients tp,
               const float* __restrict__ p, float* __restrict__ ap, int chunk) {
  const int n0 = g.axis[0].n, n1 = g.axis[1].n, n2 = g.axis[2].n;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int K2 = blockIdx.x * kTileX, K1 = blockIdx.y * kTileY;
  const int k2 = K2 + tx, k1 = K1 + ty;
  const int z0 = blockIdx.z * chunk, z1 = min(n0, z0 + chunk);
  const bool inside = k2 < n2 && k1 < n1;

  __shared__ float rows[kRowSlots][16][kTileX];  // G of the rows of cells (operator_transpose.cuh)
  const TileTranspose ft(g, K1, ty, k2);

  // The images of axis 0 landing in this chunk, from their planes of cells first (the
  // ascending distinct planes among 0, n0 - 2, n0 - 1), summed in that order.
  const AxisImages images0(g.axis[0], z0, z1);
  __shared__ float image_sum[3][kTileY][kTileX];  // per node: few registers to spare
  image_sum[0][ty][tx] = image_sum[1][ty][tx] = image_sum[2][ty][tx] = 0.f;
  {
    int last = -1;
#pragma unroll 1
    for (int i = 0; i < 3; ++i) {
      const int c0 = i == 0 ? 0 : i == 1 ? n0 - 2 : n0 - 1;
      const bool used = i == 0 ? images0.needs_first() : i == 1 ? images0.needs_second_last() : images0.needs_last();
      if (!used || c0 <= last) continue;  // uniform over the block
      last = c0;
      __syncthreads();
      ft.fill(g, cell_start, samples, c0, k2, tx, rows);
      __syncthreads();
      if (!inside) continue;
      float h[4];
      ft.reduce(g, K1, k1, tx, rows, h);
      if (images0.needs_first() && c0 == 0) image_sum[0][ty][tx] += h[0];
      if (images0.needs_second_last() && c0 == n0 - 2) image_sum[1][ty][tx] += h[3];
      if (images0.needs_second_last() && c0 == n0 - 1) image_sum[1][ty][tx] += h[2];
      if (images0.target[2] >= 0 && c0 == n0 - 1) image_sum[2][ty][tx] += h[3];
    }
  }

  __shared__ float tile[kPadY][kPadX];
  __shared__ float q[3][kPadY][kTileX];
  // The tile's stencils along axes 2 and 1 (columns past the grid hold unused values), in
  // shared memory so that the march keeps only W in registers.
  __shared__ float stencil2[21][kTileX], stencil1[21][kTileY];
  if (kWithR) {
    for (int e = ty * kTileX + tx; e < 21 * (kTileX + kTileY); e += kTileX * kTileY) {
      if (e < 21 * kTileX)
        stencil2[e / kTileX][e % kTileX] = g.axis[2].stencil_f32[min(K2 + e % kTileX, n2 - 1) * 21 + e / kTileX];
      else {
        const int f = e - 21 * kTileX;
        stencil1[f / kTileY][f % kTileY] = g.axis[1].stencil_f32[min(K1 + f % kTileY, n1 - 1) * 21 + f / kTileY];
      }
    }
  }
  float ring[7][3];  // W_o0 at planes k0 - 3 .. k0 + 3 (ring[6]: the newest)
#pragma unroll
  for (int d = 0; d < 7; ++d) ring[d][0] = ring[d][1] = ring[d][2] = 0.f;
  float virt[4] = {0.f, 0.f, 0.f, 0.f};  // F^T y of virtual planes i0 - 3 .. i0

  const int first_cells = max(0, z0 - 2), last_cells = min(n0 - 1, z1);
  for (int i0 = z0 - 3; i0 < z1 + 3; ++i0) {
    const int c0 = i0 - 2;
    const bool cells = c0 >= first_cells && c0 <= last_cells;  // uniform over the block
    __syncthreads();  // the previous step's tile, q and rows are read
    if (kWithR) {
      const long long plane = static_cast<long long>(fold_to_line(g.axis[0], i0)) * n1;
      for (int e = ty * kTileX + tx; e < kPadY * kPadX; e += kTileX * kTileY) {
        const int r = e / kPadX, c = e % kPadX;
        tile[r][c] = p[(plane + fold_to_line(g.axis[1], K1 - 3 + r)) * n2 + fold_to_line(g.axis[2], K2 - 3 + c)];
      }
    }
    if (cells) ft.fill(g, cell_start, samples, c0, k2, tx, rows);
    __syncthreads();
    if (kWithR) {
      for (int r = ty; r < kPadY; r += kTileY) {
        float a0 = 0.f, a1 = 0.f, a2 = 0.f;
#pragma unroll
        for (int d = 0; d < 7; ++d) {
          const float v = tile[r][tx + d];
          a0 = fmaf(stencil2[d][tx], v, a0);
          a1 = fmaf(stencil2[7 + d][tx], v, a1);
          a2 = fmaf(stencil2[14 + d][tx], v, a2);
        }
        q[0][r][tx] = a0;
        q[1][r][tx] = a1;
        q[2][r][tx] = a2;
      }
    }
    if (cells && inside) {
      float h[4];
      ft.reduce(g, K1, k1, tx, rows, h);
#pragma unroll
      for (int t0 = 0; t0 < 4; ++t0) virt[t0] += h[t0];
    }
    float rp = 0.f;  // lambda (R p) of node plane k0
    if (kWithR) {
      __syncthreads();
      float part[3][3] = {};  // sum_d T_o1[d] Q_o2 along axis 1, o1 + o2 <= 2
#pragma unroll
      for (int d = 0; d < 7; ++d) {
        const float v0 = q[0][ty + d][tx], v1 = q[1][ty + d][tx], v2 = q[2][ty + d][tx];
        const float u0 = stencil1[d][ty], u1 = stencil1[7 + d][ty], u2 = stencil1[14 + d][ty];
        part[0][0] = fmaf(u0, v0, part[0][0]);
        part[0][1] = fmaf(u0, v1, part[0][1]);
        part[0][2] = fmaf(u0, v2, part[0][2]);
        part[1][0] = fmaf(u1, v0, part[1][0]);
        part[1][1] = fmaf(u1, v1, part[1][1]);
        part[2][0] = fmaf(u2, v0, part[2][0]);
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
    }
    const int k0 = i0 - 3;
    if (k0 >= z0 && inside) {
      if (kWithR) {
        const float* t0 = g.axis[0].stencil_f32 + k0 * 21;
#pragma unroll
        for (int o = 0; o < 3; ++o)
#pragma unroll
          for (int d = 0; d < 7; ++d) rp = fmaf(t0[o * 7 + d], ring[d][o], rp);
      }
      float ft_y = virt[0];
#pragma unroll
      for (int x = 0; x < 3; ++x)
        if (images0.target[x] == k0) ft_y += image_sum[x][ty][tx];
      ap[(static_cast<long long>(k0) * n1 + k1) * n2 + k2] = kWithR ? ft_y + rp : ft_y;
    }
    virt[0] = virt[1];
    virt[1] = virt[2];
    virt[2] = virt[3];
    virt[3] = 0.f;
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
