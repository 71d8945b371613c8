// A = F^T F + lambda R on the GPU without a matrix, for grids whose CSR does not fit
// (256^3 has 5.8e9 pattern entries). Samples sorted by cell, each with its cell index and
// its fractions in f32; vectors in f32.
//
//   A p = F^T (F p) + lambda R p:
//   F p      one thread per sample: y_s = sum of its (up to 4^D) taps' weights times p.
//   F^T y    separably by planes of cells (src/gpu/operator_transpose.cuh): per row of
//            cells and node along axis 2, its run of sorted samples into 16 tap pairs,
//            then summed along axes 1 and 0 (deterministic, no atomics).
//   R p      in the same kernel, separably from a shared-memory tile of p: R is a sum of
//            Kronecker products of the per-axis 7-tap tables T_0, T_1, T_2, applied along
//            axis 2, then 1, then 0 (folded boundary rows exact: per-node tables).
//
// CG on it (matrix_free_cg_f32): the corrected CG of gpu_cg.hpp, dot products in f64
// summed in a fixed order; F^T f gathered in f64 and rounded once. relres in the report
// is ||b - A x|| / ||b|| with A x from this operator (f32) and the norms in f64: the
// operator's own residual; a caller holding the f64 matrix recomputes it there.
//
// Bytes per CG iteration, each array read or written once per kernel (N nodes, S samples,
// 4-byte words; a sample's record is its three f32 fractions and its cell, 16 bytes):
//   F p       reads p and the records, writes y                        4 N + 20 S
//   A p       reads cell_start, p, the records and y, writes A p       12 N + 20 S
//   vectors   p.Ap 8, x and r update 24, r.r 4, p update 12            48 N
// Total 64 N + 40 S: at 256^3 with 20 % samples, 1.21 GB, 0.36 ms at the H100's
// 3.35 TB/s peak. Every re-read (halo planes of p, the samples of neighbouring cells) is
// meant to hit the L2 cache.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "splinebench/phase_times.hpp"
#include "splinebench/scattered/problem.hpp"
#include "splinebench/scattered/solvers.hpp"

namespace splinebench::scattered::gpu {

// 64 N + 40 S (above).
inline double matrix_free_cg_bytes_per_iteration(std::int64_t nodes, std::int64_t samples) {
  return 4.0 * (16.0 * static_cast<double>(nodes) + 10.0 * static_cast<double>(samples));
}

// A p by the operator (for tests): p and the result in the grid's C order.
std::vector<float> apply_matrix_free(const Problem& problem, const std::vector<float>& p);

// diag(A) = sum over the samples of w_k(s)^2 + lambda R_kk, summed in f64, rounded to f32.
std::vector<float> matrix_free_diagonal(const Problem& problem);

// Device seconds of each kernel of one CG iteration (CUDA events, the median of `repeats`
// launches on the same data) and the bytes it must move (above), plus the one-off kernels
// (bytes 0 where not counted). The first entry, "march_chunk", is not a time: its
// `seconds` holds the planes per block apply_rows marched (the operator's choice, from
// the device's resident blocks, or `chunk` when that is 1..64).
struct KernelTime {
  std::string name;
  double seconds = 0;
  double bytes = 0;
};
std::vector<KernelTime> profile_matrix_free(const Problem& problem, int repeats, int chunk = 0);

struct MatrixFreeCgResult {
  std::vector<float> coeffs;
  SolveReport report;                // history: recurrence relres per iteration
  double bytes_per_iteration = 0;    // matrix_free_cg_bytes_per_iteration
  double seconds_per_iteration = 0;  // solve time / iterations (CUDA events; alpha, beta and the stop on the device)
};

// Prepared once: the layout, the samples uploaded and sorted, F^T f formed (setup phases
// "upload", "assemble_sort", "assemble_rhs"); each solve() runs CG from x = 0 (phases
// "solve", "readback"). Throws splinebench::Unsupported without a device or a CUDA
// build, or when the device memory does not hold the problem.
class MatrixFreeCg {
 public:
  explicit MatrixFreeCg(const Problem& problem);
  ~MatrixFreeCg();
  MatrixFreeCg(const MatrixFreeCg&) = delete;
  MatrixFreeCg& operator=(const MatrixFreeCg&) = delete;
  MatrixFreeCgResult solve(const IterationControl& control, PhaseTimes& times);
  const PhaseTimes& setup() const { return setup_; }

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  PhaseTimes setup_;
};

// MatrixFreeCg's preparation and one solve: phases "upload" (samples), "assemble_sort",
// "assemble_rhs", "solve", "readback".
MatrixFreeCgResult matrix_free_cg_f32(const Problem& problem, const IterationControl& control, PhaseTimes& times);

}  // namespace splinebench::scattered::gpu
