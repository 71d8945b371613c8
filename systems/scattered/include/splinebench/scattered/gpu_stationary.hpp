// The stationary solvers of solvers.hpp on the GPU: the CPU assembly's CSR in f32, f32
// iterates, the same update rules, so each reproduces its CPU f64 counterpart's iterates
// within f32 rounding (tests/scattered/test_scattered_gpu_stationary.cpp).
//
//   jacobi_f32                 x += omega D^-1 (b - A x), into a second buffer.
//   coloured_gauss_seidel_f32  per colour, one kernel computes every member's new value
//                              from the current x, a second writes them (so members that
//                              still couple, as in the seed's gs8x, see the same x, as on
//                              the CPU); symmetric adds the reverse sweep.
//
// After every iteration b - A x is recomputed on the device (f32 products, f64 norm): it
// fills the history and the divergence test of the CPU solvers (||r|| > factor x
// max(||r_0||, ||b||) or not finite: `diverged`, the previous iterate returned). The
// report's relres is recomputed on the host in f64 from the returned x. A zero diagonal is
// `singular` before any iteration.
#pragma once

#include <vector>

#include "splinebench/phase_times.hpp"
#include "splinebench/scattered/solvers.hpp"

namespace splinebench::scattered::gpu {

struct StationaryResult {
  std::vector<float> coeffs;
  SolveReport report;
};

// Phases: "upload", "solve", "readback". Throws splinebench::Unsupported without a device.
StationaryResult jacobi_f32(const NormalEquations& eq, double omega, const IterationControl& control,
                            PhaseTimes& times);
StationaryResult coloured_gauss_seidel_f32(const NormalEquations& eq, const Colouring& colouring, bool symmetric,
                                           const IterationControl& control, PhaseTimes& times);

}  // namespace splinebench::scattered::gpu
