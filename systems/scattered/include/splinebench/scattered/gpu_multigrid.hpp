// Multigrid on the GPU without the fine level's matrix, for grids whose CSR does not fit
// (256^3: 5.8e9 pattern entries).
//
// Levels: each is the fine problem restricted to the coarse spline P C (the two-scale
// relation of multigrid.hpp), which is the matrix-free operator of gpu_operator.hpp again:
// the samples at x / 2 per halved axis on the coarse grid, and the thin-plate energy of
// the coarse spline in fine units, i.e. per axis the integral tables times 2^(1 - 2p)
// over the fine domain (lambda R scales by 2^(D - 4) where every axis halves). This is
// Galerkin's P^T A P wherever the coarse folded space lies inside the fine one (odd
// mirror and even periodic extents; axes under 5 nodes are kept); elsewhere it differs
// in the last cells' rows (src/gpu/multigrid_levels.hpp says how, and the tests how far).
// P and P^T run per axis on the device (5 taps, folded by the mode as the CPU's).
//
//   mg_seed_f32   the seed's cascadic schedule (multigrid.hpp: mg_seed) with CG on every
//                 level, P + 1 levels. Iterations: fine-level CG iterations.
//   mg_pcg_f32    CG preconditioned by a symmetric V-cycle: Chebyshev smoothing on
//                 D^-1 A (degree 3 before and after the coarse correction, the interval
//                 from a 10-step Lanczos estimate of lambda_max), the flexible
//                 (Polak-Ribiere) beta. The fine level is matrix-free; every level below
//                 it is a per-node stencil (7^D f32 entries per node: the same level
//                 operator, F_l^T F_l + lambda R_l summed in f64 and rounded once) formed
//                 once in the setup, so a coarse level costs its nodes, not the samples
//                 (src/gpu/stencil_level.hpp); the coarsest level (at most
//                 coarsest_max_unknowns nodes) is solved directly: its matrix, summed in
//                 f64, inverted on the device by Gauss-Jordan sweeps in f64 and rounded to
//                 f32, applied as one dense product with f64 sums (src/gpu/coarsest_direct.hpp).
//                 A V-cycle is a fixed chain of launches with no host round trip; the outer
//                 CG forms alpha and beta on the device and reads its dot products once per
//                 iteration. Iterations: PCG's; converged when the recurrence relres
//                 reaches the tolerance (as gpu_cg) and b - A x agrees: where it lies 10x
//                 above the tolerance, it replaces the recurrence residual and CG goes on
//                 (at most 5 times, while it keeps falling).
//
// f32 vectors, every dot product in f64 summed in a fixed order. relres in the report is
// ||b - A x|| / ||b|| with A x by the f32 operator and the norms in f64 (the operator's
// own residual); history holds the recurrence relres of the fine level per iteration.
// Phases: "upload" (samples), "assemble_sort", "assemble_rhs", "setup" (the coarse
// levels: MG-PCG's stencils and coarsest inverse, transfers, diagonals, spectral
// estimates), "solve" (CUDA events), "readback". Throws splinebench::Unsupported without
// a device or a CUDA build, or when the device memory does not hold the levels (or their
// stencils).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "splinebench/phase_times.hpp"
#include "splinebench/scattered/coarsest_sweeps.hpp"
#include "splinebench/scattered/multigrid.hpp"
#include "splinebench/scattered/problem.hpp"
#include "splinebench/scattered/stencil_rows.hpp"

namespace splinebench::scattered::gpu {

struct MultigridResult {
  std::vector<float> coeffs;
  SolveReport report;
  std::vector<GridShape> grids;                // the levels, fine first
  std::vector<long long> level_iterations;    // CG iterations on each level (the seed's schedule; 0 for MG-PCG)
  std::string vcycle;  // MG-PCG's V-cycles: "graph", "launches" or "launches (graph capture failed: why)"
};

// The largest coarsest level MG-PCG inverts (nodes): its n sweeps each touch two n x n
// f64 buffers, which up to this size stay in the device's L2 (src/gpu/coarsest_direct.hpp).
inline constexpr std::int64_t kMaxCoarsestUnknowns = 2048;

struct MgPcgOptions {
  // Coarsen until the coarsest level has at most this many nodes, 1 .. kMaxCoarsestUnknowns
  // (a grid whose axes are all too short to halve stops earlier, at most 4^D = 64 nodes).
  // The setup inverts the coarsest by as many sweeps as it has nodes (one launch, a
  // barrier between sweeps, n^3 flops in all), and each level above it adds about 20
  // launches to every V-cycle: 256 keeps the inversion short (16^2 from a 512^2 image,
  // 4^3 from 256^3) for a one-off solve.
  std::int64_t coarsest_max_unknowns = 256;
  int chebyshev_degree = 3;
  // Replay each V-cycle from one CUDA graph captured at the first instead of launching
  // its ~15 kernels per level one by one (the same launches, the same bits; where the
  // capture fails the launches run, and the result's `vcycle` says why).
  bool vcycle_graph = true;
  // Hold the fine level as a per-node stencil too, where its f64 entries fit in
  // kFineStencilMaxBytes (a 2-D image; a volume up to about 78^3): the V-cycle's smoothing
  // and the outer CG apply it instead of the matrix-free operator, and every coarse level
  // is a Galerkin product of it. Off, or where it does not fit, the level below the fine
  // one is formed from the samples and the rest from it.
  bool fine_stencil = true;
  // Time the preparation by part (PreparedMultigrid::setup_parts): each part then waits
  // for its device work, which otherwise stays queued while the host prepares the next, so
  // a timed preparation is slower than an untimed one.
  bool time_setup_parts = false;
};

// The most bytes the fine level's f64 stencil may take for MgPcgOptions::fine_stencil (its
// f32 copy, kept, takes half).
inline constexpr std::uint64_t kFineStencilMaxBytes = std::uint64_t{1} << 30;
// Bytes of a grid's f64 stencil (7 entries per axis of >= 2 nodes, per node).
inline std::uint64_t fine_stencil_bytes(const GridShape& grid) {
  std::uint64_t entries = 1;
  for (int d = 0; d < grid.dims; ++d) entries *= grid.extent[d] > 1 ? 7 : 1;
  return static_cast<std::uint64_t>(grid.points()) * entries * sizeof(double);
}

// The hierarchy prepared once (the levels on the host, then on the device with F^T f and,
// for MG-PCG, the smoothers): setup phases "upload", "assemble_sort", "assemble_rhs",
// "setup". Each solve() runs from x = 0 (phases "solve", "readback"): the seed's schedule
// (control ignored) or MG-PCG to control's tolerance and budget.
class PreparedMultigrid {
 public:
  PreparedMultigrid(const Problem& problem, const SeedMultigrid& params);
  PreparedMultigrid(const Problem& problem, const MgPcgOptions& options);
  ~PreparedMultigrid();
  PreparedMultigrid(const PreparedMultigrid&) = delete;
  PreparedMultigrid& operator=(const PreparedMultigrid&) = delete;
  MultigridResult solve(const IterationControl& control, PhaseTimes& times);
  const PhaseTimes& setup() const { return setup_; }
  // The preparation's wall seconds by part, in order: the levels formed on the host, then
  // (MgPcgOptions::time_setup_parts) on the device each level's operator (from its samples
  // or its stencil), the coarsest's inverse, transfers and vectors, and each smoother.
  const std::vector<std::pair<std::string, double>>& setup_parts() const { return setup_parts_; }

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  PhaseTimes setup_;
  std::vector<std::pair<std::string, double>> setup_parts_;
};

// PreparedMultigrid's preparation and one solve (phases of both).
MultigridResult mg_seed_f32(const Problem& problem, const SeedMultigrid& params, PhaseTimes& times);
MultigridResult mg_pcg_f32(const Problem& problem, const IterationControl& control, PhaseTimes& times,
                           const MgPcgOptions& options = {});

// For tests: the grids of the levels; level l's operator applied to p; P (prolongate:
// from level l + 1 to l) or P^T (from l to l + 1). Vectors in the grids' C order.
std::vector<GridShape> multigrid_grids(const Problem& problem, int coarsenings);
std::vector<float> apply_level_operator(const Problem& problem, int coarsenings, int level, const std::vector<float>& p);
std::vector<float> apply_level_transfer(const Problem& problem, int coarsenings, int level, const std::vector<float>& v,
                                        bool prolongate);
// For tests, the coarse levels of mg_pcg_f32 (src/gpu/stencil_level.hpp).
// Level l's stencil, entry-major (value[e * nodes + node]; e over the offsets d in
// [-3, 3] per axis of more than one node, C order; an offset that folds onto a node
// another offset already reaches holds 0): formed on the host by the code the device
// runs (f64, before the device's rounding to f32), or formed on the device (f32). Level
// l's operator applied to p: from the host's f64 stencil in f64; from the host's stencil
// rounded to f32 as the device stores it, by the device's f32 product row by row, run on
// the host; or from the device's stencil on the device (its row form by the level's size
// or forced, stencil_rows.hpp). The host ones need no device but a CUDA build
// (Unsupported otherwise).
std::vector<double> level_stencil_host(const Problem& problem, int coarsenings, int level);
std::vector<double> apply_level_stencil_host(const Problem& problem, int coarsenings, int level,
                                             const std::vector<double>& p);
std::vector<float> apply_level_stencil_host_f32(const Problem& problem, int coarsenings, int level,
                                                const std::vector<float>& p);
std::vector<float> level_stencil_device(const Problem& problem, int coarsenings, int level);
std::vector<float> apply_level_stencil(const Problem& problem, int coarsenings, int level, const std::vector<float>& p,
                                       StencilRows rows = StencilRows::by_size);
// For tests, level l's matrix from its stencil formed on the host (f64, the entries of
// level_stencil_host placed at their columns; no device needed, a CUDA build is).
SparseMatrix level_matrix_host(const Problem& problem, int coarsenings, int level);
// For tests, mg_pcg_f32's direct solve of the coarsest level (src/gpu/coarsest_direct.hpp)
// applied to level l (at most kMaxCoarsestUnknowns nodes), matrices n x n row-major: the
// dense matrix the device inverts, formed by its code on the host (f64); A^-1 by the
// device's Gauss-Jordan sweeps run on the host (f64); x = A^-1 b with that inverse rounded
// to f32 and summed by the device's rows run on the host. The host ones need no device but
// a CUDA build (Unsupported otherwise). On the device: the f32 inverse it forms, and its
// product x = A^-1 b (x poisoned before, so a row it does not write is NaN).
std::vector<double> level_matrix_dense_host(const Problem& problem, int coarsenings, int level);
std::vector<double> coarsest_inverse_host(const Problem& problem, int coarsenings, int level);
std::vector<float> apply_coarsest_host(const Problem& problem, int coarsenings, int level, const std::vector<float>& b);
std::vector<float> coarsest_inverse_device(const Problem& problem, int coarsenings, int level);
std::vector<float> apply_coarsest(const Problem& problem, int coarsenings, int level, const std::vector<float>& b);
// For tests, the direct solve's Gauss-Jordan sweeps alone (src/gpu/coarsest_direct.hpp) of a
// dense n x n f64 matrix `a` (row-major, 1 <= n <= kMaxCoarsestUnknowns): the swept
// matrix (-A^-1 when every pivot is positive), f64 row-major. On the host in the device's
// order (no device needed, a CUDA build is; throws at the first pivot that is not
// positive), and on the device in the form `form` (by_size: the solver's choice), with the
// first pivot that was not positive and finite (-1: none) and the sweeps' device seconds
// (events around the sweeps alone).
struct DeviceSweeps {
  std::vector<double> swept;
  std::int64_t bad_pivot = -1;
  double device_s = 0;
};
std::vector<double> sweep_dense_host(const std::vector<double>& a, std::int64_t n);
DeviceSweeps sweep_dense_device(const std::vector<double>& a, std::int64_t n,
                                CoarsestSweeps form = CoarsestSweeps::by_size);
// For tests, MG-PCG's Galerkin levels (src/gpu/galerkin_level.hpp): level `level`'s f64
// stencil (entry-major) from level 0's formed on the host from the samples, taken down by
// Galerkin passes on the host or on the device; and the host one as a matrix (as
// level_matrix_host). The host ones need no device but a CUDA build.
std::vector<double> galerkin_level_stencil_host(const Problem& problem, int coarsenings, int level);
std::vector<double> galerkin_level_stencil_device(const Problem& problem, int coarsenings, int level);
SparseMatrix galerkin_level_matrix_host(const Problem& problem, int coarsenings, int level);
// The per-axis thin-plate tables of a level (host arithmetic, multigrid_levels.hpp):
// T_0, T_1, T_2 aligned with AxisPattern::make(mode, n).node.
std::array<std::vector<double>, 3> level_axis_tables(Mode mode, int n, double length, double scale);

}  // namespace splinebench::scattered::gpu
