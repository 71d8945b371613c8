// The stationary solvers of solvers.hpp on the GPU: the CPU assembly's CSR in f32, f32
// iterates, the same update rules, so each reproduces its CPU f64 counterpart's iterates
// within f32 rounding (tests/scattered/test_scattered_gpu_stationary.cpp).
//
//   jacobi_f32                 x += omega D^-1 (b - A x), into a second buffer.
//   coloured_gauss_seidel_f32  per colour, every member's new value from the current x:
//                              written in place where no two members of a colour
//                              couple (a true multicolouring), else computed into a
//                              buffer and then written (so members that still couple, as
//                              in the seed's gs8x, see the same x, as on the CPU);
//                              symmetric adds the reverse sweep.
//
// The off-diagonal entries travel in an ELL layout with the unknowns in colour order and
// every warp-wide load 128 consecutive bytes: one thread per unknown for Jacobi, 8 lanes
// per unknown for Gauss-Seidel, one launch per colour (stationary.cu says why). The
// residual b - A x (f32 products, f64 norm) is measured on the device without a round
// trip: after every iteration when a tolerance is set (it fills the history), else every
// 16 iterations and at the last. It decides the stop and the divergence rule of the CPU
// solvers (||r|| > factor x ||b||, x0 = 0, or not finite: `diverged`, and the iterate of
// the last check before it is returned, with its iteration count). The host reads the
// state every 16 iterations. The report's relres is recomputed on the host in f64 from
// the returned x. A zero diagonal is `singular` before any iteration.
//
// Prepared once (PreparedStationary): the layout is built, and uploaded with the diagonal
// and b, when it is made; each solve() runs from x = 0 on those buffers.
#pragma once

#include <memory>
#include <vector>

#include "splinebench/phase_times.hpp"
#include "splinebench/scattered/solvers.hpp"

namespace splinebench::scattered::gpu {

struct StationaryResult {
  std::vector<float> coeffs;
  SolveReport report;
};

// `eq` must outlive the prepared solver. Setup phase: "upload" (the layout, diagonal and
// b). Solve phases: "solve" (the device's time of the iterations), "readback". Throws
// splinebench::Unsupported without a device.
class PreparedStationary {
 public:
  // Jacobi damped by omega (1: undamped).
  static PreparedStationary jacobi(const NormalEquations& eq, double omega);
  // Gauss-Seidel over the colours (symmetric: forward then backward).
  static PreparedStationary gauss_seidel(const NormalEquations& eq, const Colouring& colouring, bool symmetric);
  ~PreparedStationary();
  PreparedStationary(PreparedStationary&&) noexcept;
  PreparedStationary& operator=(PreparedStationary&&) noexcept;
  StationaryResult solve(const IterationControl& control, PhaseTimes& times);
  const PhaseTimes& setup() const;

  struct Impl;

 private:
  explicit PreparedStationary(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The preparation and one solve (the setup's phases added to `times`).
StationaryResult jacobi_f32(const NormalEquations& eq, double omega, const IterationControl& control,
                            PhaseTimes& times);
StationaryResult coloured_gauss_seidel_f32(const NormalEquations& eq, const Colouring& colouring, bool symmetric,
                                           const IterationControl& control, PhaseTimes& times);

}  // namespace splinebench::scattered::gpu
