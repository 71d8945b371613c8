// Block-based solving (blocks.hpp) against the unblocked solution: the machinery exactly
// (padding that covers the grid reproduces the whole solve), the interpolation case
// against the decay bound of the prefilter, and the seed's use (top-20 % |Laplacian|,
// lambda > 0, 2x2 and 2x2x2 blocks, padding 3): the coefficient change within the
// a-posteriori bound ||c_b - c*|| <= ||b - A c_b|| / lambda_min(A). The change of RMS_g
// is data-dependent (hole sizes against the padding) and is measured by the driver's
// blocked records, not asserted here.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <random>
#include <thread>
#include <tuple>
#include <vector>

#include <Eigen/Dense>

#include "splinebench/datasets.hpp"
#include "splinebench/error.hpp"
#include "splinebench/oracle.hpp"
#include "splinebench/scattered/assembly.hpp"
#include "splinebench/scattered/blocks.hpp"
#include "splinebench/scattered/metrics.hpp"
#include "splinebench/scattered/named_solvers.hpp"
#include "splinebench/scattered/reference.hpp"

namespace sb = splinebench;
namespace sc = splinebench::scattered;

namespace {

std::vector<double> random_values(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = std::uniform_real_distribution<double>(-1, 1)(rng);
  return v;
}

std::vector<double> smooth_field(const sb::GridShape& grid) {
  const std::vector<float> f = sb::datasets::make_field(sb::datasets::FieldKind::smooth, grid, 1, 2024);
  return {f.begin(), f.end()};
}

std::vector<std::int64_t> all_nodes(const sb::GridShape& grid) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(grid.points()));
  for (std::int64_t k = 0; k < grid.points(); ++k) v[k] = k;
  return v;
}

sc::BlockSolver reference_blocks() {
  return [](const sc::NormalEquations& eq, const sb::GridShape& box, sc::SolveReport& report) {
    sc::ReferenceSolution s = sc::solve_reference(eq, box.dims);
    report = s.report;
    return s.report.status == sc::SolveStatus::converged ? s.coeffs : sc::Vector::Zero(eq.rhs.size());
  };
}

sc::Vector unblocked(const sc::Problem& p) {
  const sc::ReferenceSolution s = sc::solve_reference(sc::assemble(p), p.grid.dims);
  EXPECT_EQ(s.report.status, sc::SolveStatus::converged) << s.report.message;
  return s.coeffs;
}

std::vector<double> to_std(const sc::Vector& v) { return {v.data(), v.data() + v.size()}; }

const sb::Mode kCuttableModes[] = {sb::Mode::mirror, sb::Mode::half};

}  // namespace

TEST(ScatteredBlocks, SpecParsingAndRefusals) {
  const auto g3 = sb::GridShape::make({8, 8, 8});
  EXPECT_EQ(sc::parse_block_spec("2x2x2", g3).counts, (std::vector<int>{2, 2, 2}));
  EXPECT_EQ(sc::parse_block_spec("2", g3).counts, (std::vector<int>{2, 2, 2}));
  EXPECT_EQ(sc::parse_block_spec("2x1x1", g3).to_string(), "2x1x1");
  EXPECT_THROW(sc::parse_block_spec("2x2", g3), sb::Error);
  EXPECT_THROW(sc::parse_block_spec("2xx2", g3), sb::Error);
  EXPECT_THROW(sc::parse_block_spec("0x1x1", g3), sb::Error);
  EXPECT_THROW(sc::parse_block_spec("9x1x1", g3), sb::Error);
  EXPECT_THROW(sc::parse_block_spec("-2", g3), sb::Error);
  EXPECT_THROW(sc::parse_block_spec("99999999999999999999", g3), sb::Error);  // beyond int64
  EXPECT_THROW(sc::parse_block_spec("4294967298x1x1", g3), sb::Error);       // 2^32 + 2: not cut to an int
  EXPECT_THROW(sc::make_blocks(g3, sb::Mode::periodic, sc::parse_block_spec("2x1x1", g3)), sb::Unsupported);
  EXPECT_NO_THROW(sc::make_blocks(g3, sb::Mode::periodic, sc::parse_block_spec("1x1x1", g3)));
}

TEST(ScatteredBlocks, BlocksTileTheGridAndPadInward) {
  const auto grid = sb::GridShape::make({11, 7, 9});
  const auto blocks = sc::make_blocks(grid, sb::Mode::mirror, sc::parse_block_spec("3x2x2", grid));
  ASSERT_EQ(blocks.size(), 12u);
  std::vector<int> covered(static_cast<std::size_t>(grid.points()), 0);
  for (const auto& b : blocks) {
    for (int d = 0; d < 3; ++d) {
      EXPECT_EQ(b.plo[d], std::max<std::int64_t>(0, b.lo[d] - 3));
      EXPECT_EQ(b.phi[d], std::min<std::int64_t>(grid.extent[d] - 1, b.hi[d] + 3));
    }
    for (auto i = b.lo[0]; i <= b.hi[0]; ++i)
      for (auto j = b.lo[1]; j <= b.hi[1]; ++j)
        for (auto k = b.lo[2]; k <= b.hi[2]; ++k) ++covered[(i * 7 + j) * 9 + k];
  }
  for (int c : covered) EXPECT_EQ(c, 1);
}

TEST(ScatteredBlocks, BudgetSplitsOnlyWhatDoesNotFit) {
  const auto grid = sb::GridShape::make({64, 64, 64});
  EXPECT_EQ(sc::blocks_for_budget(grid, sb::Mode::mirror, sc::system_bytes(grid)).blocks(), 1);
  const sc::BlockSpec s = sc::blocks_for_budget(grid, sb::Mode::mirror, sc::system_bytes(grid) / 4);
  EXPECT_GT(s.blocks(), 1);
  for (const auto& b : sc::make_blocks(grid, sb::Mode::mirror, s))
    EXPECT_LE(sc::system_bytes(b.box()), sc::system_bytes(grid) / 4);
  EXPECT_THROW(sc::blocks_for_budget(grid, sb::Mode::periodic, sc::system_bytes(grid) / 4), sb::Unsupported);
  EXPECT_THROW(sc::blocks_for_budget(grid, sb::Mode::mirror, 100), sb::Error);
}

// Padding that reaches every edge makes each box the whole grid: the stitched solution is
// the unblocked one to the oracle's accuracy (the box problem, shifted samples and the
// stitching are exact), every mode (periodic uncut).
TEST(ScatteredBlocks, FullPaddingReproducesTheUnblockedSolve) {
  for (sb::Mode mode : sb::kAllModes)
    for (const auto& extents : std::vector<std::vector<std::int64_t>>{{30}, {14, 12}, {8, 7, 9}}) {
      const auto grid = sb::GridShape::make(extents);
      const auto field = random_values(grid.points(), 3);
      const auto nodes = sc::select_random(grid, 0.5, 17);
      const sc::Problem p = sc::problem_from_nodes(grid, mode, field, nodes, 0.7);
      const std::string spec = mode == sb::Mode::periodic ? "1" : "2";
      const sc::BlockedSolution b = sc::solve_blocked(p, sc::parse_block_spec(spec, grid, 64), reference_blocks());
      ASSERT_EQ(b.status, sc::SolveStatus::converged) << b.message;
      const sc::Vector c = unblocked(p);
      EXPECT_LE((b.coeffs - c).lpNorm<Eigen::Infinity>(), 1e-11 * c.lpNorm<Eigen::Infinity>())
          << sb::to_string(mode) << " " << grid.to_string();
    }
}

// lambda = 0, one sample per node: every block is the prefilter of its box with the
// mode's boundary at the cut. Along one axis the error e = c_box - c satisfies the
// interpolation recurrence e_{k-1} + 4 e_k + e_{k+1} = 0 inside the box, so e_k = A z^k
// from each cut (z = sqrt(3) - 2); the cut's boundary row (mirror: 4 e_0 + 2 e_1 = c_{-1}
// - c_1; half: 5 e_0 + e_1 = c_{-1} - c_0) gives |A| <= 2 max|c| / (2 sqrt 3), and a
// centre node is >= p nodes from both box ends: |e| <= (2 / sqrt 3) |z|^p max_line |g|.
// In D dims the prefilter runs axis by axis; axis d's error is then carried through the
// later axes' prefilters, whose infinity norm is sqrt(3) (1 + |z|) / (1 - |z|) = 3, and g
// is the field prefiltered along axes 0..d:
//     max |c_b - c| <= sum_d 3^(D-1-d) (2 / sqrt 3) |z|^p max |g_d|.
TEST(ScatteredBlocks, InterpolationMatchesThePrefilterDecayBound) {
  const double z = std::abs(std::sqrt(3.0) - 2.0);
  for (sb::Mode mode : kCuttableModes)
    for (const auto& [extents, spec] : std::vector<std::pair<std::vector<std::int64_t>, std::string>>{
             {{40}, "3"}, {{28, 30}, "2x2"}, {{13, 12, 14}, "2x2x2"}})
      for (int pad : {2, 3, 5}) {
        const auto grid = sb::GridShape::make(extents);
        const auto field = random_values(grid.points(), 41);
        const sc::Problem p = sc::problem_from_nodes(grid, mode, field, all_nodes(grid), 0.0);
        const sc::BlockedSolution b = sc::solve_blocked(p, sc::parse_block_spec(spec, grid, pad), reference_blocks());
        ASSERT_EQ(b.status, sc::SolveStatus::converged) << b.message;
        std::vector<double> g = field;
        double bound = 0;
        for (int d = 0; d < grid.dims; ++d) {
          // Prefilter every line along axis d.
          const std::int64_t n = grid.extent[d], stride = grid.stride(d);
          const std::vector<double> zpow = sb::oracle::pole_powers<double>(2 * n + 2);
          for (std::int64_t start = 0; start < grid.points(); ++start)
            if ((start / stride) % n == 0) sb::oracle::prefilter_line<double>(g.data() + start, n, stride, 1, mode, zpow);
          double m = 0;
          for (double v : g) m = std::max(m, std::abs(v));
          bound += std::pow(3.0, grid.dims - 1 - d) * 2 / std::sqrt(3.0) * std::pow(z, pad) * m;
        }
        const sc::Vector c = Eigen::Map<const sc::Vector>(g.data(), static_cast<Eigen::Index>(g.size()));
        const double err = (b.coeffs - c).lpNorm<Eigen::Infinity>();
        EXPECT_LE(err, bound) << sb::to_string(mode) << " " << grid.to_string() << " pad " << pad;
        EXPECT_GT(err, 0) << "the cut must change something (else the test does not test)";
      }
}

// The seed's use: smooth data, top-20 % |Laplacian|, lambda > 0, padding 3, blocks
// solved by the oracle or by a named iterative solver (CG to relres 1e-12).
struct SeedCase {
  sc::NormalEquations eq;
  sc::Vector c, c_blocked;
  double rms = 0, rms_blocked = 0;
  std::string what;
};

SeedCase seed_case(sb::Mode mode, const std::vector<std::int64_t>& extents, const std::string& spec, double lambda,
                   const std::string& solver) {
  SeedCase out;
  const auto grid = sb::GridShape::make(extents);
  const auto field = smooth_field(grid);
  const auto nodes = sc::select_top_laplacian(grid, mode, field, 0.2);
  const sc::Problem p = sc::problem_from_nodes(grid, mode, field, nodes, lambda);
  sc::BlockSolver bs = reference_blocks();
  if (solver == "cg")
    bs = [mode](const sc::NormalEquations& eq, const sb::GridShape& box, sc::SolveReport& report) {
      sc::IterationControl control;
      control.tolerance = 1e-12;
      control.max_iterations = 100000;
      sc::NamedSolve s = sc::solve_named("cg", box, mode, eq, control);
      report = s.report;
      return s.x;
    };
  const sc::BlockedSolution b = sc::solve_blocked(p, sc::parse_block_spec(spec, grid), bs);
  EXPECT_EQ(b.status, sc::SolveStatus::converged) << b.message;
  out.eq = sc::assemble(p);
  out.c = unblocked(p);
  out.c_blocked = b.coeffs;
  double max_value = 0;
  for (double v : p.values) max_value = std::max(max_value, v);
  out.rms = sc::rms_g(sc::grid_values(grid, mode, to_std(out.c)), field, max_value);
  out.rms_blocked = sc::rms_g(sc::grid_values(grid, mode, to_std(b.coeffs)), field, max_value);
  out.what = std::string(sb::to_string(mode)) + " " + grid.to_string() + " " + spec + " " + solver;
  return out;
}

// The coefficient change within its a-posteriori bound: c_b - c* = A^-1 (A c_b - b), so
// ||c_b - c*||_2 <= ||b - A c_b||_2 / lambda_min(A) (dense eigenvalues, hence small grids).
TEST(ScatteredBlocks, CoefficientChangeWithinTheResidualBound) {
  for (sb::Mode mode : kCuttableModes)
    for (const auto& [extents, spec, lambda] : std::vector<std::tuple<std::vector<std::int64_t>, std::string, double>>{
             {{34, 30}, "2x2", 2.1}, {{11, 10, 12}, "2x2x2", 0.002}}) {
      const SeedCase s = seed_case(mode, extents, spec, lambda, "reference");
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(Eigen::MatrixXd(s.eq.matrix), Eigen::EigenvaluesOnly);
      const double lmin = eig.eigenvalues().minCoeff();
      ASSERT_GT(lmin, 0);
      const double dc = (s.c_blocked - s.c).norm();
      const double residual = (s.eq.rhs - s.eq.matrix * s.c_blocked).norm();
      EXPECT_LE(dc, residual / lmin * (1 + 1e-8) + 1e-12 * s.c.norm()) << s.what;
      EXPECT_GT(dc, 0) << s.what;
    }
}

// A block whose padded box holds no sample is an error naming the block, never a
// silent zero (or NaN) patch.
TEST(ScatteredBlocks, EmptyBlockIsAnError) {
  const auto grid = sb::GridShape::make({40, 40});
  const auto field = random_values(grid.points(), 5);
  const sc::Problem p = sc::problem_from_nodes(grid, sb::Mode::mirror, field, {0, 1, 40, 41}, 1.0);
  try {
    sc::solve_blocked(p, sc::parse_block_spec("2x2", grid), reference_blocks());
    FAIL() << "no error";
  } catch (const sb::Error& e) {
    EXPECT_NE(std::string(e.what()).find("holds no samples"), std::string::npos) << e.what();
  }
}

// The Problem-level path (the one the matrix-free GPU solvers take) is the same
// extraction and stitching as the NormalEquations path: with the CPU's CG on
// assemble(block) inside it, the stitched coefficients, the per-block reports and the
// status are identical bit for bit, on 2-D and 3-D grids, both cuttable modes.
TEST(ScatteredBlocks, ProblemLevelPathStitchesLikeTheNormalEquationsPath) {
  sc::IterationControl control;
  control.tolerance = 1e-10;
  control.max_iterations = 20000;
  for (sb::Mode mode : kCuttableModes)
    for (const auto& [extents, spec, lambda] : std::vector<std::tuple<std::vector<std::int64_t>, std::string, double>>{
             {{30, 27}, "2x3", 2.1}, {{11, 10, 12}, "2x2x2", 0.002}}) {
      const auto grid = sb::GridShape::make(extents);
      const auto field = smooth_field(grid);
      const sc::Problem p = sc::problem_from_nodes(grid, mode, field, sc::select_top_laplacian(grid, mode, field, 0.2),
                                                   lambda);
      const sc::BlockSpec blocks = sc::parse_block_spec(spec, grid);
      const sc::BlockSolver on_eq = [&](const sc::NormalEquations& eq, const sb::GridShape& box,
                                        sc::SolveReport& report) {
        sc::NamedSolve s = sc::solve_named("cg", box, mode, eq, control);
        report = s.report;
        return s.x;
      };
      // The block problems the Problem-level solver sees, in order: block_problem of make_blocks.
      const std::vector<sc::Block> boxes = sc::make_blocks(grid, mode, blocks);
      std::size_t seen = 0;
      const sc::ProblemBlockSolver on_problem = [&](const sc::Problem& block, sc::SolveReport& report) {
        if (seen < boxes.size()) {
          const sc::Problem expect = sc::block_problem(p, boxes[seen]);
          EXPECT_EQ(block.grid.extents(), boxes[seen].box().extents());
          EXPECT_EQ(block.points, expect.points);
          EXPECT_EQ(block.values, expect.values);
          EXPECT_EQ(block.mode, mode);
          EXPECT_EQ(block.lambda, lambda);
        }
        ++seen;
        sc::NamedSolve s = sc::solve_named("cg", block.grid, block.mode, sc::assemble(block), control);
        report = s.report;
        return s.x;
      };
      const sc::BlockedSolution a = sc::solve_blocked(p, blocks, on_eq);
      const sc::BlockedSolution b = sc::solve_blocked(p, blocks, on_problem);
      const std::string what = std::string(sb::to_string(mode)) + " " + grid.to_string() + " " + spec;
      EXPECT_EQ(seen, boxes.size()) << what;
      ASSERT_EQ(a.status, sc::SolveStatus::converged) << what << ": " << a.message;
      EXPECT_EQ(b.status, a.status) << what;
      EXPECT_EQ(b.message, a.message) << what;
      EXPECT_EQ(b.max_iterations, a.max_iterations) << what;
      EXPECT_EQ(b.max_box_points, a.max_box_points) << what;
      ASSERT_EQ(b.reports.size(), a.reports.size()) << what;
      for (std::size_t k = 0; k < a.reports.size(); ++k) {
        EXPECT_EQ(b.reports[k].iterations, a.reports[k].iterations) << what << " block " << k;
        EXPECT_EQ(b.reports[k].relres, a.reports[k].relres) << what << " block " << k;
      }
      ASSERT_EQ(b.coeffs.size(), a.coeffs.size());
      EXPECT_EQ((b.coeffs - a.coeffs).lpNorm<Eigen::Infinity>(), 0.0) << what;
      EXPECT_GT(a.coeffs.lpNorm<Eigen::Infinity>(), 0.0) << what;  // fresh data, not zeros
    }
}

// A Problem-level solver that returns the wrong number of values is an error naming the
// block, never a partial copy.
TEST(ScatteredBlocks, WrongSizedBlockSolutionIsAnError) {
  const auto grid = sb::GridShape::make({20, 18});
  const auto field = random_values(grid.points(), 9);
  const sc::Problem p = sc::problem_from_nodes(grid, sb::Mode::mirror, field, sc::select_random(grid, 0.5, 4), 1.0);
  const sc::ProblemBlockSolver short_by_one = [](const sc::Problem& block, sc::SolveReport&) {
    return sc::Vector::Constant(block.grid.points() - 1, 1.0);
  };
  try {
    sc::solve_blocked(p, sc::parse_block_spec("2x2", grid), short_by_one);
    FAIL() << "no error";
  } catch (const sb::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("block [0,9]x[0,8]"), std::string::npos) << what;
    EXPECT_NE(what.find("returned 155 values for a box of 156 nodes"), std::string::npos) << what;
  }
}

// Blocks solved at once on host threads give the serial order's result bit for bit:
// coefficients, per-block reports, status and message, with a solver whose blocks end
// differently (a budget that stops some of them short); the block solves do run
// concurrently (seen by a counter of solves in flight), and of several failing blocks
// the first in the serial order is the error.
TEST(ScatteredBlocks, BlocksAtOnceGiveTheSerialResult) {
  const auto grid = sb::GridShape::make({14, 12, 13});
  const auto field = smooth_field(grid);
  const sc::Problem p = sc::problem_from_nodes(grid, sb::Mode::mirror, field,
                                               sc::select_top_laplacian(grid, sb::Mode::mirror, field, 0.3), 0.002);
  const sc::BlockSpec blocks = sc::parse_block_spec("2x2x2", grid);
  sc::IterationControl control;
  control.tolerance = 1e-10;
  control.max_iterations = 40;  // some blocks stop at the budget, some converge
  std::atomic<int> in_flight{0}, most_in_flight{0};
  const sc::ProblemBlockSolver cg = [&](const sc::Problem& block, sc::SolveReport& report) {
    const int now = ++in_flight;
    for (int seen = most_in_flight.load(); now > seen && !most_in_flight.compare_exchange_weak(seen, now);) {
    }
    sc::NamedSolve s = sc::solve_named("cg", block.grid, block.mode, sc::assemble(block), control);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // long enough for the others to start
    --in_flight;
    report = s.report;
    return s.x;
  };
  const sc::BlockedSolution serial = sc::solve_blocked(p, blocks, cg);
  EXPECT_EQ(most_in_flight.load(), 1);
  most_in_flight = 0;
  const sc::BlockedSolution at_once = sc::solve_blocked(p, blocks, cg, 4);
  EXPECT_GT(most_in_flight.load(), 1);
  EXPECT_LE(most_in_flight.load(), 4);
  EXPECT_EQ(at_once.status, serial.status);
  EXPECT_EQ(at_once.message, serial.message);
  EXPECT_EQ(at_once.max_iterations, serial.max_iterations);
  EXPECT_EQ(at_once.max_box_points, serial.max_box_points);
  ASSERT_EQ(at_once.reports.size(), serial.reports.size());
  for (std::size_t k = 0; k < serial.reports.size(); ++k) {
    EXPECT_EQ(at_once.reports[k].iterations, serial.reports[k].iterations) << "block " << k;
    EXPECT_EQ(at_once.reports[k].relres, serial.reports[k].relres) << "block " << k;
  }
  EXPECT_EQ((at_once.coeffs - serial.coeffs).lpNorm<Eigen::Infinity>(), 0.0);
  EXPECT_GT(serial.coeffs.lpNorm<Eigen::Infinity>(), 0.0);

  // Blocks 3 and 5 fail (in whatever order the threads reach them): block 3's error.
  const std::vector<sc::Block> boxes = sc::make_blocks(grid, sb::Mode::mirror, blocks);
  const sc::ProblemBlockSolver failing = [&](const sc::Problem& block, sc::SolveReport& report) {
    for (int bad : {5, 3})
      if (block.grid.extents() == boxes[static_cast<std::size_t>(bad)].box().extents() &&
          block.points == sc::block_problem(p, boxes[static_cast<std::size_t>(bad)]).points)
        throw sb::Error("block " + std::to_string(bad) + " failed");
    return cg(block, report);
  };
  try {
    sc::solve_blocked(p, blocks, failing, 8);
    FAIL() << "no error";
  } catch (const sb::Error& e) {
    EXPECT_EQ(std::string(e.what()), "block 3 failed");
  }
  EXPECT_THROW(sc::solve_blocked(p, blocks, cg, 0), sb::Error);
}
