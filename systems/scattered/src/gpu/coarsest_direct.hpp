// The coarsest level of the GPU MG-PCG solved directly: its matrix inverted once per
// problem, each V-cycle's coarsest solve one dense product x = A_c^-1 b on the device.
//
// Matrix. The level's operator F_c^T F_c + lambda R_c as its per-node stencil summed in
// f64 (stencil_level.hpp: stencil_entry, the code that forms the other coarse levels,
// here not rounded to f32), scattered into a dense n x n f64 matrix, row-major: entry e of
// node k adds into column fold(k + d_e). Only the canonical offset of a coupling holds its
// value (the others hold 0), so the sum is the matrix entry.
//
// Inverse. n Gauss-Jordan sweeps without pivoting (Goodnight's sweep operator): sweeping
// pivot k maps M to M' with
//   M'_kk = -1 / M_kk,  M'_kj = M_kj / M_kk,  M'_ik = M_ik / M_kk,
//   M'_ij = M_ij - M_ik M_kj / M_kk  (i, j != k),
// and sweeping every pivot once leaves -A^-1. The pivots are those of A's LDL^T, all
// positive exactly when A is symmetric positive definite (a pivot that is not is reported:
// the level is singular, as lambda = 0 with nodes no sample reaches); symmetric
// positive definite matrices need no pivoting, and Gauss-Jordan's error there is that of
// an LU-based inverse (Higham, Accuracy and Stability, ch. 14), about n kappa eps64
// relative. The element formula divides the product before subtracting it, so no
// compiler can contract it into an FMA: the host and the device run the same IEEE
// operations and agree bit for bit on the same matrix.
//
// Why on the device and not by Eigen on the host: an explicit inverse costs about n^3
// flops (1.7e7 at n = 256, 1.1e9 at n = 1024), which the host runs in this build's
// portable scalar and SSE2 code, one core, while the whole run of a 512^2 image has a
// budget of a few milliseconds; and forming the matrix on the host from the samples costs
// every sample 4^D x 4^D products (10^10 at 256^3, where every level keeps all the
// samples). On the device the matrix comes from the kernel that forms the stencils, and
// each sweep is n^2 independent elements reading one f64 buffer of 8 n^2 bytes and
// writing the other (0.5 MB each at the default n <= 256, 8 MB at 1024: both inside an
// H200's 50 MB L2). kMaxDirectRows bounds n: at 2048 the buffers (32 MB each) no longer
// fit in L2 together and the sweeps cost n passes over DRAM.
//
// Launches. A sweep's work is tiny beside a launch, so all n sweeps run in one launch
// with a barrier between consecutive sweeps (sweep k + 1 reads what every thread wrote in
// sweep k): one block with its own barrier when n is small enough for one SM to sweep
// faster than a grid barrier costs, otherwise a cooperative launch of no more blocks than
// the device holds resident, with cooperative_groups' grid barrier. Where the runtime
// reports no cooperative launch the sweeps fall back to one launch each, the stream's
// order being the barrier. Every form applies sweep_element to the same buffers in the
// same order, so all three leave the same bits, and no host round trip but the one that
// reads the pivot check.
//
// Apply. The inverse rounded to f32 (4 n^2 bytes: 256 KB at n = 256, 4 MB at 1024) and
// one warp per row: lane l sums inv[i][j] b[j] for j = l, l + 32, ... in f64, then a
// butterfly over the lanes, then one rounding to f32. A^-1 has entries of both signs and
// the sum runs over n terms, so in f32 the accumulation could lose up to n u |A^-1| |b| to
// cancellation; in f64 (each product of two f32 values is exact there) the result is the
// f32 entries' product to within the final rounding, whatever n is. The order is fixed, so
// every solve repeats bit for bit.
//
// Host code plus SPLINEBENCH_HD functions; no CUDA header (the tests run it on the host).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stencil_level.hpp"

namespace splinebench::scattered::gpu::detail {

inline constexpr long long kMaxDirectRows = 2048;
inline constexpr int kDirectLanes = 32;  // one warp per row of the product

// Adds the stencil's entries of `node` into its dense row (row: nodes doubles, row-major;
// the caller zeroes it first). value: entry-major, as stencil_level.hpp stores it.
SPLINEBENCH_HD void dense_row_from_stencil(const StencilGeometry& g, const double* value, long long node,
                                                  double* row) {
  int k[3];
  g.unflat(node, k);
  for (int e = 0; e < g.entries; ++e) {
    int d[3], j[3];
    g.offsets(e, d);
    for (int a = 0; a < 3; ++a) j[a] = fold_near(g.mode[a], k[a] + d[a], g.n[a]);
    const long long col = (static_cast<long long>(j[0]) * g.n[1] + j[1]) * g.n[2] + j[2];
    row[col] += value[static_cast<long long>(e) * g.nodes + node];
  }
}

// Element (i, j) of the matrix after sweeping pivot k of `in` (n x n, row-major).
SPLINEBENCH_HD double sweep_element(const double* in, long long n, long long k, long long i, long long j) {
  const double pivot = in[k * n + k];
  if (i == k && j == k) return -1.0 / pivot;
  if (i == k) return in[k * n + j] / pivot;
  if (j == k) return in[i * n + k] / pivot;
  return in[i * n + j] - (in[i * n + k] * in[k * n + j]) / pivot;
}

// Lane `lane`'s part of row i of x = inv b: sum of inv[i][j] b[j] over j = lane, lane +
// 32, ... in f64 (the products of two f32 values are exact in f64, so a contraction into
// an FMA changes nothing).
SPLINEBENCH_HD double direct_lane_sum(const float* inv_row, const float* b, long long n, int lane) {
  double s = 0;
  for (long long j = lane; j < n; j += kDirectLanes) s += static_cast<double>(inv_row[j]) * static_cast<double>(b[j]);
  return s;
}

// ---- Host: the same arithmetic, for the tests ----

// The level's matrix, dense f64 row-major, from its stencil formed on the host.
inline std::vector<double> dense_level_matrix_host(const Level& level) {
  StencilGeometry geo;
  const std::vector<double> value = form_stencil_host(level, geo);
  const auto n = static_cast<std::size_t>(geo.nodes);
  std::vector<double> dense(n * n, 0.0);
  for (long long node = 0; node < geo.nodes; ++node)
    dense_row_from_stencil(geo, value.data(), node, dense.data() + static_cast<std::size_t>(node) * n);
  return dense;
}

// A^-1 by the device's sweeps, in its order (pivots ascending, ping-pong buffers): f64,
// row-major. Throws when a pivot is not positive (the device reports the first one).
inline std::vector<double> sweep_inverse_host(std::vector<double> a, long long n) {
  if (a.size() != static_cast<std::size_t>(n * n))
    fail("sweep_inverse_host: " + std::to_string(a.size()) + " values for " + std::to_string(n) + "^2");
  std::vector<double> out(a.size());
  for (long long k = 0; k < n; ++k) {
    if (!(a[static_cast<std::size_t>(k * n + k)] > 0))
      fail("sweep_inverse_host: pivot " + std::to_string(k) + " is not positive (not positive definite)");
    for (long long i = 0; i < n; ++i)
      for (long long j = 0; j < n; ++j) out[static_cast<std::size_t>(i * n + j)] = sweep_element(a.data(), n, k, i, j);
    a.swap(out);
  }
  for (double& v : a) v = -v;
  return a;
}

// x = inv b with the device's rows (direct_lane_sum per lane, the xor butterfly of the
// warp's shuffles, one rounding): inv is the f32 inverse, row-major.
inline std::vector<float> apply_inverse_rows_host(const std::vector<float>& inv, const std::vector<float>& b) {
  const auto n = static_cast<long long>(b.size());
  if (inv.size() != static_cast<std::size_t>(n * n))
    fail("apply_inverse_rows_host: " + std::to_string(inv.size()) + " inverse entries for " + std::to_string(n) +
         " rows");
  std::vector<float> x(static_cast<std::size_t>(n));
  for (long long i = 0; i < n; ++i) {
    double t[kDirectLanes], u[kDirectLanes];
    for (int l = 0; l < kDirectLanes; ++l) t[l] = direct_lane_sum(inv.data() + i * n, b.data(), n, l);
    for (int off = kDirectLanes / 2; off > 0; off /= 2) {
      for (int l = 0; l < kDirectLanes; ++l) u[l] = t[l] + t[l ^ off];
      for (int l = 0; l < kDirectLanes; ++l) t[l] = u[l];
    }
    x[static_cast<std::size_t>(i)] = static_cast<float>(t[0]);
  }
  return x;
}

}  // namespace splinebench::scattered::gpu::detail
