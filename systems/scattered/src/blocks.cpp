#include "splinebench/scattered/blocks.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <sstream>

#include "splinebench/error.hpp"
#include "splinebench/scattered/assembly.hpp"
#include "splinebench/types.hpp"

namespace splinebench::scattered {

std::int64_t BlockSpec::blocks() const {
  std::int64_t n = 1;
  for (int c : counts) n *= c;
  return n;
}

std::string BlockSpec::to_string() const {
  std::string s;
  for (std::size_t d = 0; d < counts.size(); ++d) {
    if (d) s += 'x';
    s += std::to_string(counts[d]);
  }
  return s;
}

BlockSpec parse_block_spec(const std::string& text, const GridShape& grid, int padding) {
  if (padding < 0) fail("block padding must be >= 0, got " + std::to_string(padding));
  std::vector<std::int64_t> given = parse_extents(text, "--blocks");
  if (given.size() == 1) given.assign(static_cast<std::size_t>(grid.dims), given[0]);
  if (static_cast<int>(given.size()) != grid.dims)
    fail("--blocks '" + text + "' names " + std::to_string(given.size()) + " axes for a " +
         std::to_string(grid.dims) + "-D grid");
  for (int d = 0; d < grid.dims; ++d)
    if (given[d] > grid.extent[d])
      fail("--blocks '" + text + "': axis " + std::to_string(d) + " of " + std::to_string(grid.extent[d]) +
           " nodes cannot be cut into " + std::to_string(given[d]) + " blocks");
  const std::vector<int> counts(given.begin(), given.end());  // each <= its axis's extent
  return BlockSpec{counts, padding};
}

std::int64_t system_bytes(const GridShape& grid) {
  std::int64_t per_row = 1;
  for (int d = 0; d < grid.dims; ++d) per_row *= 7;
  const std::int64_t n = grid.points();
  return n * per_row * (8 + 4) + (n + 1) * 4 + 8 * n * 8;
}

GridShape Block::box() const {
  std::vector<std::int64_t> e(lo.size());
  for (std::size_t d = 0; d < lo.size(); ++d) e[d] = phi[d] - plo[d] + 1;
  return GridShape::make(e);
}

std::vector<Block> make_blocks(const GridShape& grid, Mode mode, const BlockSpec& spec) {
  if (static_cast<int>(spec.counts.size()) != grid.dims) fail("block counts do not match the grid's dims");
  for (int d = 0; d < grid.dims; ++d) {
    if (spec.counts[d] < 1 || spec.counts[d] > grid.extent[d]) fail("block count outside 1..extent on an axis");
    if (mode == Mode::periodic && spec.counts[d] > 1)
      throw Unsupported("blocks: a periodic axis cannot be cut (axis " + std::to_string(d) + ")");
  }
  std::vector<Block> out;
  std::vector<int> b(static_cast<std::size_t>(grid.dims), 0);
  for (std::int64_t k = 0; k < spec.blocks(); ++k) {
    std::int64_t rest = k;
    for (int d = grid.dims - 1; d >= 0; --d) {
      b[d] = static_cast<int>(rest % spec.counts[d]);
      rest /= spec.counts[d];
    }
    Block blk;
    for (int d = 0; d < grid.dims; ++d) {
      const std::int64_t n = grid.extent[d], c = spec.counts[d];
      const std::int64_t lo = b[d] * n / c, hi = (b[d] + 1) * n / c - 1;
      blk.lo.push_back(lo);
      blk.hi.push_back(hi);
      blk.plo.push_back(std::max<std::int64_t>(0, lo - spec.padding));
      blk.phi.push_back(std::min<std::int64_t>(n - 1, hi + spec.padding));
    }
    out.push_back(std::move(blk));
  }
  return out;
}

BlockSpec blocks_for_budget(const GridShape& grid, Mode mode, std::int64_t budget_bytes, int padding) {
  BlockSpec spec{std::vector<int>(static_cast<std::size_t>(grid.dims), 1), padding};
  for (;;) {
    // The largest padded box of this split (blocks differ by at most one centre node).
    std::vector<std::int64_t> e(static_cast<std::size_t>(grid.dims));
    for (int d = 0; d < grid.dims; ++d) {
      const std::int64_t c = spec.counts[d], n = grid.extent[d];
      const std::int64_t centre = (n + c - 1) / c;
      e[d] = std::min(n, centre + (c > 1 ? (c > 2 ? 2 : 1) * static_cast<std::int64_t>(padding) : 0));
    }
    if (system_bytes(GridShape::make(e)) <= budget_bytes) return spec;
    int axis = -1;
    for (int d = 0; d < grid.dims; ++d)
      if (spec.counts[d] * 2 <= grid.extent[d] && (axis < 0 || e[d] > e[axis])) axis = d;
    if (axis < 0)
      fail("blocks: no split of " + grid.to_string() + " fits a budget of " + std::to_string(budget_bytes) + " bytes");
    if (mode == Mode::periodic)
      throw Unsupported("blocks: " + grid.to_string() + " exceeds the budget and a periodic axis cannot be cut");
    spec.counts[axis] *= 2;
  }
}

Problem block_problem(const Problem& problem, const Block& block) {
  Problem p;
  p.grid = block.box();
  p.mode = problem.mode;
  p.lambda = problem.lambda;
  const int D = problem.grid.dims;
  std::vector<std::int64_t> inside;
  for (std::int64_t i = 0; i < problem.samples(); ++i) {
    bool in = true;
    for (int d = 0; d < D && in; ++d) {
      const double x = problem.coordinate(d, i);
      in = x >= static_cast<double>(block.plo[d]) && x <= static_cast<double>(block.phi[d]);
    }
    if (in) inside.push_back(i);
  }
  const std::int64_t n = static_cast<std::int64_t>(inside.size());
  p.points.resize(static_cast<std::size_t>(D * n));
  p.values.resize(static_cast<std::size_t>(n));
  for (std::int64_t j = 0; j < n; ++j) {
    p.values[j] = problem.values[inside[j]];
    for (int d = 0; d < D; ++d)
      p.points[static_cast<std::size_t>(d * n + j)] = problem.coordinate(d, inside[j]) - static_cast<double>(block.plo[d]);
  }
  return p;
}

namespace {
int severity(SolveStatus s) {
  switch (s) {
    case SolveStatus::converged: return 0;
    case SolveStatus::max_iterations: return 1;
    case SolveStatus::diverged: return 2;
    case SolveStatus::singular: return 3;
  }
  return 3;
}

std::string box_name(const Block& b) {
  std::ostringstream s;
  for (std::size_t d = 0; d < b.lo.size(); ++d) s << (d ? "x" : "") << "[" << b.lo[d] << "," << b.hi[d] << "]";
  return s.str();
}
}  // namespace

BlockedSolution solve_blocked(const Problem& problem, const BlockSpec& spec, const ProblemBlockSolver& solver,
                              int concurrency) {
  problem.validate();
  if (concurrency < 1) fail("blocks: concurrency must be >= 1, got " + std::to_string(concurrency));
  const GridShape& grid = problem.grid;
  const int D = grid.dims;
  const std::vector<Block> blocks = make_blocks(grid, problem.mode, spec);
  BlockedSolution out;
  out.coeffs = Vector::Zero(grid.points());
  out.reports.resize(blocks.size());
  std::vector<std::int64_t> box_points(blocks.size(), 0);
  std::vector<std::exception_ptr> errors(blocks.size());

  // Block b: its problem, its solve, its centre copied into out.coeffs (disjoint from
  // every other block's centre, so threads never write the same entry).
  const auto solve_one = [&](std::size_t b) {
    const Block& blk = blocks[b];
    const Problem sub = block_problem(problem, blk);
    if (sub.samples() == 0) fail("blocks: block " + box_name(blk) + " holds no samples");
    const GridShape box = sub.grid;
    box_points[b] = box.points();
    const Vector x = solver(sub, out.reports[b]);
    if (x.size() != box.points())
      fail("blocks: the solver of block " + box_name(blk) + " returned " + std::to_string(x.size()) +
           " values for a box of " + std::to_string(box.points()) + " nodes");
    // Copy the centre: walk its nodes in C order, map to box and grid indices.
    std::vector<std::int64_t> k(blk.lo);
    for (;;) {
      std::int64_t g = 0, l = 0;
      for (int d = 0; d < D; ++d) {
        g += k[d] * grid.stride(d);
        l += (k[d] - blk.plo[d]) * box.stride(d);
      }
      out.coeffs[g] = x[l];
      int d = D - 1;
      for (; d >= 0; --d) {
        if (++k[d] <= blk.hi[d]) break;
        k[d] = blk.lo[d];
      }
      if (d < 0) break;
    }
  };
  const auto guarded = [&](std::size_t b) {
    try {
      solve_one(b);
    } catch (...) {
      errors[b] = std::current_exception();
    }
  };
  const std::size_t workers = std::min<std::size_t>(static_cast<std::size_t>(concurrency), blocks.size());
  if (workers <= 1) {
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      guarded(b);
      if (errors[b]) break;  // as a serial loop: nothing after the first failure runs
    }
  } else {
    std::atomic<std::size_t> next{0};
    std::vector<std::thread> pool;
    for (std::size_t w = 0; w < workers; ++w)
      pool.emplace_back([&] {
        for (std::size_t b; (b = next.fetch_add(1)) < blocks.size();) guarded(b);
      });
    for (std::thread& t : pool) t.join();
  }
  for (std::size_t b = 0; b < blocks.size(); ++b)
    if (errors[b]) std::rethrow_exception(errors[b]);

  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const SolveReport& report = out.reports[b];
    out.max_box_points = std::max(out.max_box_points, box_points[b]);
    if (severity(report.status) > severity(out.status)) out.status = report.status;
    if (report.status != SolveStatus::converged && out.message.empty())
      out.message = "block " + box_name(blocks[b]) + ": " + std::string(to_string(report.status)) +
                    (report.message.empty() ? "" : " (" + report.message + ")");
    out.max_iterations = std::max(out.max_iterations, report.iterations);
  }
  return out;
}

BlockedSolution solve_blocked(const Problem& problem, const BlockSpec& spec, const BlockSolver& solver) {
  return solve_blocked(problem, spec, ProblemBlockSolver([&solver](const Problem& block, SolveReport& report) {
                         return solver(assemble(block), block.grid, report);
                       }));
}

}  // namespace splinebench::scattered
