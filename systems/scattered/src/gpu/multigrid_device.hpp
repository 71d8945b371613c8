// The device side of the GPU multigrid on plain arrays (gpu_multigrid.cpp wraps it):
// a hierarchy of levels (multigrid_levels.hpp) with P and P^T between them, the seed's
// cascadic schedule with CG on every level (every level a matrix-free operator), and CG
// preconditioned by a symmetric V-cycle (the fine level matrix-free, the levels below it
// per-node stencils, the coarsest solved directly: coarsest_direct.hpp). f32 vectors,
// every dot product in f64 in a fixed order (the solves repeat bit for bit).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "multigrid_levels.hpp"
#include "splinebench/scattered/coarsest_sweeps.hpp"
#include "splinebench/scattered/stencil_rows.hpp"

namespace splinebench::scattered::gpu::detail {

// SeedMultigrid without Eigen (multigrid.hpp): (N, N0, N1, N2) on the fine level,
// (M, M0, M1, M2) for the error systems.
struct SeedSchedule {
  int n = 3, n0 = 10, n1 = 10, n2 = 10;
  int m = 2, m0 = 10, m1 = 5, m2 = 10;
};

// V-cycle smoothing: `degree` steps of Chebyshev iteration on D^-1 A over
// [lower_fraction, 1] * upper_factor * lambda_hat, lambda_hat the largest Ritz value of
// `estimate_steps` Jacobi-preconditioned CG (Lanczos) steps from a seeded random start:
// a polynomial in D^-1 A, so pre- and post-smoothing alike keep the cycle symmetric.
// The coarsest level is solved by its inverse (rounded to f32, applied with f64 sums);
// the outer CG uses the flexible (Polak-Ribiere) beta, so that the cycle's f32 rounding,
// which makes it not exactly symmetric, cannot break it.
struct VCycleSettings {
  int degree = 3;
  double lower_fraction = 0.1;
  double upper_factor = 1.1;
  int estimate_steps = 10;
  // Each V-cycle replayed from one CUDA graph, captured at the first (its launches are
  // the same every time: fixed buffers and coefficients); launched one by one otherwise,
  // or where the capture fails.
  bool graph = false;
  // The first level held as a stencil: 0, the fine level too (its V-cycle smoothing and the
  // outer CG apply the stencil; the levels below are Galerkin products of it), or 1 (the
  // fine level matrix-free, the next formed from its samples).
  int first_stencil = 1;
  // The setup timed by part (setup_parts): each part waits for its device work, which
  // otherwise stays queued while the host prepares the next part.
  bool time_parts = false;
};

struct MgDeviceOutput {
  std::vector<float> x;
  std::vector<double> history;  // fine-level relres of the recurrence residual per fine CG / PCG iteration
  int iterations = 0;           // fine-level CG iterations (seed) or PCG iterations
  std::vector<long long> level_iterations;  // CG iterations run on each level (the seed's schedule; 0 for MG-PCG)
  enum Status { converged, max_iterations, diverged, singular } status = max_iterations;
  std::string message;
  double true_relres = 0;  // ||b - A x|| / ||b||: A x by the f32 operator, the norms in f64
  std::vector<double> lambda_hat;  // per level, the Ritz estimate of lambda_max(D^-1 A) (PCG)
  // How MG-PCG's V-cycles ran: "graph", "launches", or "launches (graph capture failed:
  // why)"; empty where none ran (b = 0, a failed setup) and for the seed's schedule.
  std::string vcycle;
  // Of the solve: CUDA events around the iterations, wall seconds of the readback.
  double solve_s = 0, readback_s = 0;
};

// The hierarchy on the device, prepared once: the levels' operators, the transfers, F^T f
// on the fine level and, for MG-PCG (pcg non-null), the levels below the fine one as
// per-node stencils (stencil_level.hpp), the coarsest level's inverse (coarsest_direct.hpp:
// at most kMaxDirectRows nodes, else an error) and the smoothers' diagonals and spectral
// estimates. Without pcg (the seed's schedule) every level is matrix-free (its samples
// uploaded and sorted). Each solve runs from x = 0 on it. Throws Unsupported when the
// stencils do not fit in the device's memory.
class MgDevice {
 public:
  MgDevice(const std::vector<Level>& levels, const VCycleSettings* pcg);
  ~MgDevice();
  MgDevice(const MgDevice&) = delete;
  MgDevice& operator=(const MgDevice&) = delete;
  int levels() const;
  MgDeviceOutput solve_seed(const SeedSchedule& schedule);
  // Only on a hierarchy prepared with the V-cycle's settings.
  MgDeviceOutput solve_pcg(int max_iterations, double tolerance);

  // Of the preparation: as MgDeviceOutput's (setup_s: the coarse levels and smoothers).
  double upload_s = 0, sort_s = 0, rhs_s = 0, setup_s = 0;
  // Wall seconds of the preparation's parts in order (each level's operator, inverse,
  // transfer and vectors, smoother), for the timing tool.
  std::vector<std::pair<std::string, double>> setup_parts;
  std::vector<double> lambda_hat;

  struct State;

 private:
  std::unique_ptr<State> s_;
};

// For tests: a level's operator applied to p, and P (prolongate) or P^T between `fine`
// and the next level.
std::vector<float> apply_level(const Level& level, const std::vector<float>& p);
std::vector<float> apply_transfer(const Level& fine, const std::vector<float>& v, bool prolongate);
// For tests: a level's stencil formed on the device (entry-major, stencil_level.hpp) and
// that stencil applied to p on the device.
std::vector<float> level_stencil(const Level& level);
std::vector<float> apply_level_stencil(const Level& level, const std::vector<float>& p, StencilRows rows);
// For tests: level `level`'s f64 stencil by Galerkin passes on the device from level 0's,
// formed on the device from its samples (levels[0] sampled).
std::vector<double> galerkin_level_stencil(const std::vector<Level>& levels, int level);
// For tests: a level solved directly as MG-PCG's coarsest (coarsest_direct.hpp): its f32
// inverse formed on the device (row-major), and x = A^-1 b by the device's product (x
// poisoned before). Both throw when a pivot is not positive.
std::vector<float> coarsest_inverse(const Level& level);
std::vector<float> apply_coarsest(const Level& level, const std::vector<float>& b);
// For tests: the coarsest's sweeps (coarsest_direct.cuh: run_sweeps) of the dense n x n f64
// matrix a in the form `form`: the swept matrix; bad_pivot the first pivot that was not
// positive and finite (-1: none), device_s the sweeps' device seconds.
std::vector<double> sweep_dense(const std::vector<double>& a, long long n, CoarsestSweeps form, long long& bad_pivot,
                                double& device_s);

}  // namespace splinebench::scattered::gpu::detail
