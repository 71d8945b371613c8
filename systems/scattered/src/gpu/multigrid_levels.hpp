// The levels of the GPU multigrid, built on the host (no CUDA): every level is the
// fine problem restricted to the coarse spline, so it is the same matrix-free operator
// on a coarser grid.
//
// Two-scale relation: the coarse spline S_c (grid spacing 2 in fine units on each halved
// axis) equals the fine spline with coefficients P C (multigrid.hpp). So
//   F P      is the sampling operator of the coarse grid at the coordinates x / s
//            (s = 2^(halvings) per axis, exact in f64);
//   J(P C)   = sum_alpha (2/alpha!) prod_d s_d^(1 - 2 alpha_d) integral (d^alpha S_c)^2 dy
//            over the fine domain in coarse units, y_d in [0, (N_d - 1) / s_d]
//            (second derivatives scale by 1/s^2, the volume element by s): per axis
//            the table T_p times s^(1 - 2p), integrated over that length, which may end
//            inside the last coarse cell.
// Where the coarse folded space lies inside the fine one (odd mirror extents, even
// periodic extents, axes of fewer than 5 nodes, which are kept) this is exactly
// Galerkin's P^T A P. Elsewhere (half sample; even mirror, odd periodic) the coarse
// spline is evaluated as itself, extended past its last node by its own fold, while the
// fine space folds about a point half a coarse cell away: the level differs from P^T A P
// in the rows of the last cells (first ones too for half), and it remains the exact
// normal operator of the coarse space's fit, symmetric positive definite whenever the
// fine one is. Samples with x / s in (N_c - 1, N_c) (even mirror and half extents)
// fall in the last coarse cell with a fraction below 1: no sample is moved or dropped.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include "grid_layout.hpp"

namespace splinebench::scattered::gpu::detail {

// One axis's P (fine rows) and P^T (coarse rows) as CSR, from the CPU prolongation (so
// the folding by mode is the CPU's). fine == coarse: the axis is kept (identity).
struct AxisTransfer {
  int fine = 1, coarse = 1;
  std::vector<int> p_offset, p_index;  // fine + 1
  std::vector<float> p_weight;         // multiples of 1/64: exact in f32
  std::vector<int> r_offset, r_index;  // coarse + 1
  std::vector<float> r_weight;
  bool identity() const { return fine == coarse; }
};

struct Level {
  GridShape grid;
  GridLayout layout;
  SampleArrays samples;                    // coordinates in this level's units
  std::array<double, 3> scale{1, 1, 1};    // fine units per level unit, on the padded axes
  std::array<AxisTransfer, 3> to_coarser;  // padded axes; unused on the coarsest level
};

// T_0, T_1, T_2 of one axis of n nodes (aligned with AxisPattern::make(mode, n).node):
// s^(1 - 2p) times the integral over [0, length] of B_k^(p) B_k'^(p), 4-point
// Gauss-Legendre on each whole or partial unit interval (exact: the integrand is a
// polynomial of degree <= 6 on each). length = n - 1, s = 1 gives AxisIntegrals' tables.
std::array<std::vector<double>, 3> level_axis_integrals(Mode mode, int n, double length, double scale);

// Level 0 is the problem; each further level halves every axis of >= 5 nodes, until
// `coarsenings` levels were added (>= 0: an error when the grid cannot be halved that
// often) or, with coarsenings < 0, until the coarsest has at most `coarsest_max_unknowns`
// nodes or no axis can be halved. Levels from `sampled_levels` on carry neither samples nor
// thin-plate tables (MG-PCG's Galerkin levels, formed from the level above): their grid,
// layout shape and transfer only.
std::vector<Level> make_levels(const Problem& problem, int coarsenings, std::int64_t coarsest_max_unknowns,
                               int sampled_levels = std::numeric_limits<int>::max());

}  // namespace splinebench::scattered::gpu::detail
