// A = F^T F + lambda R on the GPU without a matrix, for grids whose CSR does not fit
// (256^3 has 5.8e9 pattern entries). Samples sorted by cell, each with its cell index and
// its fractions in f32; vectors in f32.
//
//   A p = F^T (F p) + lambda R p:
//   F p      one thread per sample: y_s = sum of its (up to 4^D) taps' weights times p.
//   F^T y    one thread per node k, gathering over the cells whose taps reach k and
//            their samples in sorted order (deterministic, no atomics).
//   R p      in the same thread: R = sum_alpha (2/alpha!) kron_d T_{alpha_d} from the
//            per-axis tables, summed along the contiguous axis first (three partial sums
//            per (j0, j1), then six terms): about 27 * 7^(D-1) FMAs per node.
//
// CG on it (matrix_free_cg_f32): the corrected CG of gpu_cg.hpp, dot products in f64
// summed in a fixed order; F^T f gathered in f64 and rounded once. relres in the report
// is ||b - A x|| / ||b|| with A x from this operator (f32) and the norms in f64: the
// operator's own residual; a caller holding the f64 matrix recomputes it there.
//
// Bytes per CG iteration, each array read or written once per kernel (N nodes, S samples,
// 4-byte words): F p reads p and each sample's cell and fractions and writes y
// (4 N + 20 S); the gather reads cell_start, p, each sample's fractions and y and writes
// A p (12 N + 16 S); CG's vector work is 48 N (p.Ap 8, x and r update 24, r.r 4, p update
// 12). Total 64 N + 36 S: at 256^3 with 20 % samples, 1.19 GB, 0.36 ms at the H100's
// 3.35 TB/s peak, 0.40 ms at the ~3 TB/s a streaming kernel reaches.
#pragma once

#include <cstdint>
#include <vector>

#include "splinebench/phase_times.hpp"
#include "splinebench/scattered/problem.hpp"
#include "splinebench/scattered/solvers.hpp"

namespace splinebench::scattered::gpu {

// 64 N + 36 S (above).
double matrix_free_cg_bytes_per_iteration(std::int64_t nodes, std::int64_t samples);

// A p by the operator (for tests): p and the result in the grid's C order.
std::vector<float> apply_matrix_free(const Problem& problem, const std::vector<float>& p);

struct MatrixFreeCgResult {
  std::vector<float> coeffs;
  SolveReport report;                // history: recurrence relres per iteration
  double bytes_per_iteration = 0;    // matrix_free_cg_bytes_per_iteration
  double seconds_per_iteration = 0;  // solve time / iterations (CUDA events; includes the host's alpha, beta)
};

// Phases: "upload" (samples), "assemble_sort", "assemble_rhs", "solve", "readback".
// Throws splinebench::Unsupported without a device or a CUDA build, or when the device
// memory does not hold the problem.
MatrixFreeCgResult matrix_free_cg_f32(const Problem& problem, const IterationControl& control, PhaseTimes& times);

}  // namespace splinebench::scattered::gpu
