// Block-based solving (the seed's answer to systems larger than device memory): the grid
// is cut into B_0 x ... x B_{D-1} blocks; each block grows by `padding` nodes on every
// side that is not the grid's own edge, takes the samples inside its padded box, and is
// solved on its own as a problem on that box (the box's nodes are its grid, its
// coordinates shifted to start at 0, the same mode and lambda; the thin-plate energy is
// taken over the box). Only the block's centre nodes go into the stitched coefficients.
//
// The cut is an artificial boundary: near it a block's solution differs from the whole
// grid's, and the padding keeps that difference away from the centre. With lambda = 0
// and one sample per node the block solves the prefilter of its box, so the difference
// decays like |z|^m (z = sqrt(3) - 2) with the distance m from the box edge: at the
// centre's outermost node m = padding (|z|^3 = 0.019). The seed pads by 3 (its 38^3
// blocks for 32^3 centres).
//
// Periodic axes cannot be cut (a block of a periodic axis is not periodic): a count > 1
// on one is Unsupported.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "splinebench/scattered/solvers.hpp"

namespace splinebench::scattered {

struct BlockSpec {
  std::vector<int> counts;  // blocks per axis (C order), each >= 1
  int padding = 3;          // nodes added on each inner side
  std::int64_t blocks() const;
  std::string to_string() const;  // "2x2x2"
};

// "2x2x2" for a grid of that many dims; a single count ("2") applies to every axis.
// Throws splinebench::Error on a malformed text, a count < 1 or a count > the extent.
BlockSpec parse_block_spec(const std::string& text, const GridShape& grid, int padding = 3);

// Bytes the CPU solvers need for the grid's system: the CSR matrix (7^D entries of f64
// value + 32-bit column per row, row pointers) and about 8 f64 vectors.
std::int64_t system_bytes(const GridShape& grid);

// The fewest blocks (halving the axis with the largest padded extent each time) whose
// largest padded block needs at most `budget_bytes`; no split when the grid fits.
// Throws splinebench::Error when even blocks of one node per axis do not fit, and
// Unsupported when a periodic axis would have to be cut.
BlockSpec blocks_for_budget(const GridShape& grid, Mode mode, std::int64_t budget_bytes, int padding = 3);

struct Block {
  std::vector<std::int64_t> lo, hi;    // centre nodes [lo, hi] per axis (inclusive)
  std::vector<std::int64_t> plo, phi;  // padded box [plo, phi]
  GridShape box() const;
};

// The blocks in C order. Throws Unsupported when a periodic axis is cut.
std::vector<Block> make_blocks(const GridShape& grid, Mode mode, const BlockSpec& spec);

// The samples of `problem` inside the block's padded box, coordinates shifted to the box.
Problem block_problem(const Problem& problem, const Block& block);

// Solves one block's normal equations; returns the coefficients on the box and a report.
using BlockSolver = std::function<Vector(const NormalEquations& eq, const GridShape& box, SolveReport& report)>;

// Solves one block from its samples (block.grid is the box): for solvers that form their
// own system or none (the matrix-free GPU solvers, where the CPU's CSR does not fit).
using ProblemBlockSolver = std::function<Vector(const Problem& block, SolveReport& report)>;

struct BlockedSolution {
  Vector coeffs;                     // on the whole grid, C order
  std::vector<SolveReport> reports;  // per block, in make_blocks order
  SolveStatus status = SolveStatus::converged;  // the worst block's: singular > diverged > max_iterations > converged
  std::string message;               // the first block that did not converge, and why
  int max_iterations = 0;            // the most iterations any block took
  std::int64_t max_box_points = 0;   // the largest padded box
};

// Solves every block from its samples (block_problem), stitches the centres. A block with
// no samples is an error naming the block (its system would have no data term), as is a
// solver returning a vector that is not one value per node of the box.
// concurrency > 1: up to that many host threads solve blocks at once, so a GPU solver's
// blocks overlap on the device (the scattered library's CUDA work runs on per-thread
// default streams; a block alone leaves most of an H200 idle). `solver` must then be
// safe to call from several threads. The coefficients, reports, status and message are
// the same as the serial order's (each block writes only its own centre); the first
// block in that order that threw has its exception rethrown.
BlockedSolution solve_blocked(const Problem& problem, const BlockSpec& spec, const ProblemBlockSolver& solver,
                              int concurrency = 1);

// The same with the CPU assembly of each block (assemble(block)) handed to `solver`.
BlockedSolution solve_blocked(const Problem& problem, const BlockSpec& spec, const BlockSolver& solver);

}  // namespace splinebench::scattered
