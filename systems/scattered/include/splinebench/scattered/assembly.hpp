// The normal equations (F^T F + lambda R) c = F^T f in f64 (the oracle's assembly and the
// reference every faster assembly is compared with).
//
// The matrix is row-major CSR on the product pattern: row k holds the columns
// prod_d pattern_d.neighbours(k_d) in C order (sorted), so an entry's place is found
// from per-axis positions without a search over the row (basis.hpp). Rows hold at most
// 7^D entries; fewer where folding merges neighbours.
#pragma once

#include <cstdint>

#include <Eigen/Core>
#include <Eigen/SparseCore>

#include "splinebench/scattered/problem.hpp"

namespace splinebench::scattered {

using SparseMatrix = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;
using Vector = Eigen::VectorXd;

struct NormalEquations {
  SparseMatrix matrix;  // F^T F + lambda R
  Vector rhs;           // F^T f
};

// The zero matrix on the grid's pattern. Throws splinebench::Error when the pattern has
// more entries than a 32-bit index addresses (too large for the CPU oracle).
SparseMatrix pattern_matrix(const GridShape& grid, Mode mode);

// Adds F^T F to `matrix` (on the pattern) and F^T f to `rhs`, sample by sample.
void add_samples(const Problem& problem, SparseMatrix& matrix, Vector& rhs);

// Adds weight * R to `matrix` (on the pattern).
void add_thin_plate(const GridShape& grid, Mode mode, double weight, SparseMatrix& matrix);

// validate() + pattern + samples + lambda R.
NormalEquations assemble(const Problem& problem);

}  // namespace splinebench::scattered
