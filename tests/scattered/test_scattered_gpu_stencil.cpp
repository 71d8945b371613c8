// MG-PCG's coarse levels (src/gpu/stencil_level.hpp): each level's operator
// F_l^T F_l + lambda R_l as a per-node stencil, against the level's matrix by the CPU's
// assembly (samples at x / s, R_l from the level's tables: the operator that apply_level
// applies from the samples; test_scattered_gpu_multigrid.cpp ties the two together).
//
// Host arithmetic (a CUDA build, no device needed; the stencil formed on the host by the
// code the device runs), every mode, 2-D and 3-D, odd and even extents, levels 0, 1, 2:
//  - entry by entry: for each node k, the entries reaching one node k' (the offsets d with
//    fold(k + d) == k') sum to A_l(k, k') within 1e-12 (A_F^T F + lambda |R|)(k, k')
//    (both sides are f64 sums of the same products), at most one of them is nonzero, the
//    centre entry is A_l(k, k), and every nonzero of A_l's row is reached;
//  - the stencil applied to a random p in f64: within 1e-12 (|A| |p|)_k of A_l p, and where
//    the coarsening is exact (odd mirror, even periodic extents on every level above),
//    within 1e-11 of Galerkin's P^T A P p; its entries rounded to f32 (as the device stores
//    them) and applied to an f32 p by the device's row code (stencil_row, run on the host)
//    within (E + 2) u (|A| |p|)_k (E entries per node, u = 2^-24: one rounding per entry,
//    an f32 FMA chain of E terms).
// Device (skipped without one), levels 1 and 2 of grids that halve twice in every mode:
//  - the stencil formed on the device is the host's rounded to f32 (the device's f64 sums
//    differ from the host's only by contraction into FMAs);
//  - its product on the device within (E + 2) u (|A| |v|)_k of A_l v, within twice that
//    of the host's run of the same rows (equal where the entries are), and within that
//    plus the matrix-free level's bound, (m + 320) u (|A| |v|)_k, of apply_level's product.
// MG-PCG itself (stencils below the fine level, the coarsest solved directly) is tested
// in test_scattered_gpu_multigrid.cpp, its coarsest solve in test_scattered_gpu_coarsest.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <random>

#include <Eigen/Dense>

#include "splinebench/bspline_math.hpp"
#include "splinebench/error.hpp"
#include "splinebench/scattered/gpu_multigrid.hpp"
#include "splinebench/scattered/multigrid.hpp"
#include "splinebench/scattered/solvers.hpp"
#include "common/accuracy.hpp"
#include "test_scattered_gpu_support.hpp"

namespace sb = splinebench;
namespace sc = splinebench::scattered;
namespace sct = splinebench::scattered::test;

namespace {

constexpr double kU = 0x1p-24;
constexpr int kCoarsenings = 2;

using sb::testing::random_values;
using sct::dense_table;
using sct::exact_axis;
using sct::exact_grid;
using sct::LevelReference;

sct::LevelReference level_reference(const sc::Problem& fine, int level) {
  return sct::level_reference(fine, kCoarsenings, level);
}

// The stencil's layout as gpu_multigrid.hpp states it, rebuilt here: for node `row` of
// the grid, entry e's column (fold(k + d_e) per axis), and the entry count and centre.
struct Layout {
  std::array<int, 3> n{1, 1, 1}, width{1, 1, 1};
  int mode = 0;
  int entries = 1;
  int centre = 0;
  explicit Layout(const sb::GridShape& g, sb::Mode m) : mode(static_cast<int>(m)) {
    const int pad = 3 - g.dims;
    for (int a = pad; a < 3; ++a) n[a] = static_cast<int>(g.extent[a - pad]);
    for (int a = 0; a < 3; ++a) {
      width[a] = n[a] == 1 ? 1 : 7;
      entries *= width[a];
    }
    centre = ((width[0] / 2) * width[1] + width[1] / 2) * width[2] + width[2] / 2;
  }
  long long nodes() const { return static_cast<long long>(n[0]) * n[1] * n[2]; }
  long long column(long long row, int e) const {
    int k[3];
    k[2] = static_cast<int>(row % n[2]);
    k[1] = static_cast<int>(row / n[2] % n[1]);
    k[0] = static_cast<int>(row / n[2] / n[1]);
    int col[3];
    for (int a = 2; a >= 0; --a) {
      const int d = width[a] == 1 ? 0 : e % width[a] - 3;
      e /= width[a];
      col[a] = static_cast<int>(sb::bspline::fold_index(mode, k[a] + d, n[a]));
    }
    return (static_cast<long long>(col[0]) * n[1] + col[1]) * n[2] + col[2];
  }
};

struct Case {
  sb::Mode mode;
  sb::GridShape grid;
};

std::vector<Case> all_modes(const std::vector<sb::GridShape>& grids) {
  std::vector<Case> out;
  for (sb::Mode mode : sb::kAllModes)
    for (const sb::GridShape& g : grids) out.push_back({mode, g});
  return out;
}

std::string name_of(const Case& c, int level) {
  return std::string(sb::to_string(c.mode)) + " " + c.grid.to_string() + " level " + std::to_string(level);
}

// Odd and even extents, an axis too short to halve, 2-D and 3-D; every grid halves twice.
const std::vector<sb::GridShape> kHostGrids = {sb::GridShape::make({13, 11}), sb::GridShape::make({12, 10}),
                                                sb::GridShape::make({17, 9}),  sb::GridShape::make({16, 12}),
                                                sb::GridShape::make({10, 4}),  sb::GridShape::make({9, 8, 7}),
                                                sb::GridShape::make({9, 9, 10})};

TEST(GpuStencilLevels, EntriesAreTheLevelMatrix) {
  if (std::string why; !sct::host_levels_available(why)) GTEST_SKIP() << why;
  for (const Case& c : all_modes(kHostGrids)) {
    const sc::Problem p = sct::random_problem(c.grid, c.mode, 0.7, 1.5, 31);
    for (int level = 0; level <= kCoarsenings; ++level) {
      const std::string what = name_of(c, level);
      const LevelReference ref = level_reference(p, level);
      const Layout lay(ref.grid, c.mode);
      const std::vector<double> value = sc::gpu::level_stencil_host(p, kCoarsenings, level);
      ASSERT_EQ(value.size(), static_cast<std::size_t>(lay.entries * lay.nodes())) << what;
      const long long nodes = lay.nodes();
      for (long long k = 0; k < nodes; ++k) {
        std::map<long long, std::pair<double, int>> reached;  // column: sum of the entries, nonzero entries
        for (int e = 0; e < lay.entries; ++e) {
          const double v = value[static_cast<std::size_t>(e * nodes + k)];
          auto& slot = reached[lay.column(k, e)];
          slot.first += v;
          slot.second += v != 0;
        }
        const auto tol = [&](long long col) { return 1e-12 * ref.a_abs(k, col) + 1e-300; };
        ASSERT_NEAR(value[static_cast<std::size_t>(lay.centre * nodes + k)], ref.a(k, k), tol(k)) << what << " diagonal " << k;
        for (const auto& [col, slot] : reached) {
          ASSERT_LE(slot.second, 1) << what << " row " << k << ": column " << col << " held by several entries";
          ASSERT_NEAR(slot.first, ref.a(k, col), tol(col)) << what << " row " << k << " column " << col;
        }
        for (long long col = 0; col < nodes; ++col)
          if (ref.a(k, col) != 0 && !reached.count(col))
            FAIL() << what << " row " << k << ": column " << col << " (" << ref.a(k, col) << ") is no stencil entry";
      }
    }
  }
}

sc::Vector as_vector(const std::vector<double>& v) {
  return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}
sc::Vector widen(const std::vector<float>& v) {
  return Eigen::Map<const Eigen::VectorXf>(v.data(), static_cast<Eigen::Index>(v.size())).cast<double>();
}

TEST(GpuStencilLevels, ApplyIsTheLevelOperator) {
  if (std::string why; !sct::host_levels_available(why)) GTEST_SKIP() << why;
  int galerkin_checks = 0;
  for (const Case& c : all_modes(kHostGrids)) {
    const sc::Problem p = sct::random_problem(c.grid, c.mode, 0.7, 1.5, 37);
    const sc::NormalEquations eq = sc::assemble(p);
    const sc::Hierarchy h = sc::Hierarchy::build(c.grid, c.mode, eq.matrix, kCoarsenings);
    for (int level = 0; level <= kCoarsenings; ++level) {
      const std::string what = name_of(c, level);
      const LevelReference ref = level_reference(p, level);
      const Layout lay(ref.grid, c.mode);
      const std::vector<double> pv = random_values<double>(ref.grid.points(), 41 + static_cast<std::uint64_t>(level));
      const sc::Vector x = as_vector(pv);
      const sc::Vector want = ref.a * x;
      const sc::Vector scale = ref.a_abs * x.cwiseAbs();
      const sc::Vector y64 = as_vector(sc::gpu::apply_level_stencil_host(p, kCoarsenings, level, pv));
      ASSERT_EQ(y64.size(), want.size()) << what;
      for (Eigen::Index k = 0; k < want.size(); ++k)
        ASSERT_LE(std::abs(y64[k] - want[k]), 1e-12 * scale[k]) << what << " row " << k << " (f64)";
      // The device's f32 rows on f32 entries: one rounding per entry, an FMA chain of E terms.
      const std::vector<float> pf = random_values<float>(ref.grid.points(), 43 + static_cast<std::uint64_t>(level));
      const sc::Vector y32 = widen(sc::gpu::apply_level_stencil_host_f32(p, kCoarsenings, level, pf));
      const sc::Vector want32 = ref.a * widen(pf);
      const sc::Vector scale32 = ref.a_abs * widen(pf).cwiseAbs();
      for (Eigen::Index k = 0; k < want32.size(); ++k)
        ASSERT_LE(std::abs(y32[k] - want32[k]), (lay.entries + 2) * kU * scale32[k]) << what << " row " << k << " (f32)";
      bool exact = true;
      for (int l = 0; l < level; ++l) exact = exact && exact_grid(c.mode, h.grid(l));
      if (level > 0 && exact) {
        const sc::Vector galerkin = h.matrix(level) * x;
        EXPECT_LE((y64 - galerkin).norm(), 1e-11 * galerkin.norm()) << what << ": P^T A P where the coarsening is exact";
        ++galerkin_checks;
      }
    }
  }
  EXPECT_GE(galerkin_checks, 5);  // levels 1 and 2 of odd mirror and even periodic grids
}

class GpuStencil : public testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = sc::gpu::device_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  }
};

// Every grid halves twice in every mode (an axis needs >= 5 nodes to halve): 13x11 ->
// 7x6 -> 4x3, 12x10 -> 6x5 (periodic 6x5) -> 3x3, 9x8x7 -> 5x4x4 -> 3x4x4, 10x6x9 ->
// 5x3x5 -> 3x3x3.
const std::vector<sb::GridShape> kDeviceGrids = {sb::GridShape::make({13, 11}), sb::GridShape::make({12, 10}),
                                                  sb::GridShape::make({9, 8, 7}), sb::GridShape::make({10, 6, 9})};

TEST_F(GpuStencil, DeviceStencilIsTheHostsRounded) {
  for (const Case& c : all_modes(kDeviceGrids)) {
    const sc::Problem p = sct::random_problem(c.grid, c.mode, 0.7, 1.5, 43);
    for (int level = 1; level <= kCoarsenings; ++level) {
      const std::string what = name_of(c, level);
      const LevelReference ref = level_reference(p, level);
      const Layout lay(ref.grid, c.mode);
      const std::vector<double> host = sc::gpu::level_stencil_host(p, kCoarsenings, level);
      const std::vector<float> dev = sc::gpu::level_stencil_device(p, kCoarsenings, level);
      ASSERT_EQ(dev.size(), host.size()) << what;
      const long long nodes = lay.nodes();
      for (int e = 0; e < lay.entries; ++e)
        for (long long k = 0; k < nodes; ++k) {
          const auto i = static_cast<std::size_t>(e * nodes + k);
          const double bound = kU * std::abs(host[i]) + 2e-12 * ref.a_abs(k, lay.column(k, e));
          ASSERT_LE(std::abs(static_cast<double>(dev[i]) - host[i]), bound) << what << " entry " << e << " node " << k;
        }
    }
  }
}

TEST_F(GpuStencil, DeviceApplyMatchesTheMatrixFreeLevel) {
  for (const Case& c : all_modes(kDeviceGrids)) {
    const sc::Problem p = sct::random_problem(c.grid, c.mode, 0.3, 1.2, 47);
    for (int level = 1; level <= kCoarsenings; ++level) {
      const std::string what = name_of(c, level);
      const LevelReference ref = level_reference(p, level);
      const Layout lay(ref.grid, c.mode);
      const std::vector<float> v = random_values<float>(ref.grid.points(), 53 + static_cast<std::uint64_t>(level));
      const sc::Vector stencil = widen(sc::gpu::apply_level_stencil(p, kCoarsenings, level, v));
      const sc::Vector host_rows = widen(sc::gpu::apply_level_stencil_host_f32(p, kCoarsenings, level, v));
      const sc::Vector matrix_free = widen(sc::gpu::apply_level_operator(p, kCoarsenings, level, v));
      const sc::Vector want = ref.a * widen(v);
      const sc::Vector scale = ref.a_abs * widen(v).cwiseAbs();
      const std::vector<int> m = sct::samples_per_row(ref.scaled);
      const int m_max = *std::max_element(m.begin(), m.end());
      const double own = (lay.entries + 2) * kU, theirs = (m_max + 320) * kU;
      double worst = 0;
      long long same_as_host = 0;
      for (Eigen::Index k = 0; k < want.size(); ++k) {
        ASSERT_LE(std::abs(stencil[k] - want[k]), own * scale[k]) << what << " row " << k;
        ASSERT_LE(std::abs(stencil[k] - host_rows[k]), 2 * own * scale[k]) << what << " row " << k << " (host rows)";
        ASSERT_LE(std::abs(stencil[k] - matrix_free[k]), (own + theirs) * scale[k]) << what << " row " << k;
        if (scale[k] > 0) worst = std::max(worst, std::abs(stencil[k] - matrix_free[k]) / (kU * scale[k]));
        same_as_host += stencil[k] == host_rows[k];
      }
      std::cout << "  " << what << ": |stencil - matrix-free|_k <= " << worst << " u (|A| |v|)_k; " << same_as_host
                << " of " << want.size() << " rows equal to the host's run\n";
    }
  }
}

// The product's two row forms (staged in shared memory, or read inside the FMA chain;
// stencil_level.cuh) sum the same FMAs in the same order: the same bits on every level,
// every mode, 2-D and 3-D; and the form chosen by size is the same too, on levels above the
// staged form's limit (300 x 300's level 0, 90 000 nodes) and below it.
TEST_F(GpuStencil, BothRowFormsGiveTheSameBits) {
  std::vector<sb::GridShape> grids = kDeviceGrids;
  grids.push_back(sb::GridShape::make({300, 300}));
  for (const Case& c : all_modes(grids)) {
    const sc::Problem p = sct::random_problem(c.grid, c.mode, 0.3, 1.2, 59);
    for (int level = 0; level <= kCoarsenings; ++level) {
      const std::string what = name_of(c, level);
      const std::int64_t nodes = sc::gpu::multigrid_grids(p, kCoarsenings)[static_cast<std::size_t>(level)].points();
      const std::vector<float> v = random_values<float>(nodes, 61 + static_cast<std::uint64_t>(level));
      const std::vector<float> staged = sc::gpu::apply_level_stencil(p, kCoarsenings, level, v, sc::gpu::StencilRows::staged);
      const std::vector<float> unstaged =
          sc::gpu::apply_level_stencil(p, kCoarsenings, level, v, sc::gpu::StencilRows::unstaged);
      const std::vector<float> by_size = sc::gpu::apply_level_stencil(p, kCoarsenings, level, v);
      ASSERT_EQ(staged.size(), static_cast<std::size_t>(nodes)) << what;
      for (std::size_t k = 0; k < staged.size(); ++k) {
        ASSERT_TRUE(std::isfinite(staged[k])) << what << " row " << k;  // poisoned: every row written
        ASSERT_EQ(std::bit_cast<std::uint32_t>(staged[k]), std::bit_cast<std::uint32_t>(unstaged[k])) << what << " row " << k;
        ASSERT_EQ(std::bit_cast<std::uint32_t>(staged[k]), std::bit_cast<std::uint32_t>(by_size[k])) << what << " row " << k;
      }
    }
  }
}

}  // namespace
