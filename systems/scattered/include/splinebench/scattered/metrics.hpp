// What the seed measures and how it makes its inputs:
//   RMS_g = sqrt(mean over ALL grid points k of (s(k) - f(k))^2) * 100 / max_value,
// with f the full regular data set the samples were selected from, and the selection of
// the given fraction of grid points with the largest |Laplacian|.
#pragma once

#include <cstdint>
#include <vector>

#include "splinebench/scattered/problem.hpp"

namespace splinebench::scattered {

// s at every grid node (C order): per axis the node weights (1, 4, 1) / 6 on the mode's
// extension of the coefficients.
std::vector<double> grid_values(const GridShape& grid, Mode mode, const std::vector<double>& coeffs);

// The seed's RMS_g. `max_value` is the normaliser (the seed's Max_value; the driver uses
// the largest sample value and records that choice). Throws on a size mismatch or a
// max_value that is not finite and > 0.
double rms_g(const std::vector<double>& spline_at_nodes, const std::vector<double>& field, double max_value);

// Root mean square of s(x_i) - f_i over the samples (Table 10's "RMS").
double rms_at_samples(const Problem& problem, const std::vector<double>& coeffs);

// The (2D+1)-point Laplacian of `field` at every node, neighbours folded by the mode.
std::vector<double> laplacian(const GridShape& grid, Mode mode, const std::vector<double>& field);

// Flat indices of the round(fraction * points) nodes with the largest |Laplacian|, ties
// broken by the smaller linear index, returned in ascending index order. Throws when
// the fraction is not in (0, 1] or selects no node.
std::vector<std::int64_t> select_top_laplacian(const GridShape& grid, Mode mode, const std::vector<double>& field,
                                               double fraction);

// round(fraction * points) distinct nodes drawn uniformly (seeded), ascending.
std::vector<std::int64_t> select_random(const GridShape& grid, double fraction, std::uint64_t seed);

// A problem whose samples are the selected nodes of `field` (coordinates = the node's
// indices), for the given mode and lambda.
Problem problem_from_nodes(const GridShape& grid, Mode mode, const std::vector<double>& field,
                           const std::vector<std::int64_t>& nodes, double lambda);

}  // namespace splinebench::scattered
