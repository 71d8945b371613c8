// MG-PCG's Galerkin levels (systems/scattered/src/gpu/galerkin_level.hpp): every coarse
// level below the first stencil level is P^T A P of the one above, formed by one pass per
// halved axis on the stencils.
// Host (any CUDA build; no device needed), every mode, 2-D and 3-D, odd and even extents
// (the even mirror and half extents are where P does not map the coarse space into the
// fine one), levels 1 and 2:
//  - the stencil's matrix is P^T A P of the dense level-0 matrix A (level_matrix_host) and
//    the CPU multigrid's P (multigrid.hpp: prolongation), entry by entry within
//    1e-13 (|P|^T |A| |P|)(i, j): the passes lose no coupling and add none. The bound:
//    both sides sum the same exact-weight products in f64 in different orders, each within
//    gamma_m sum |terms| <= m eps64 (|P|^T |A| |P|)(i, j) of the exact sum, m <= 35 terms
//    per pass and at most 3 passes per level, 2 levels deep (about 3e-14 together);
//  - it is symmetric to the same bound.
// Device (skipped without one): the device's passes give the host's stencil within
//  1e-13 of the row's largest entry (FMA contraction is the only difference: one rounding
//  fewer per term, within the same gamma_m bound, the row's largest entry bounding its terms).
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "splinebench/scattered/gpu_cg.hpp"
#include "splinebench/scattered/gpu_multigrid.hpp"
#include "splinebench/scattered/multigrid.hpp"
#include "test_scattered_gpu_support.hpp"

namespace sb = splinebench;
namespace sc = splinebench::scattered;
namespace sct = splinebench::scattered::test;

namespace {

constexpr int kCoarsenings = 2;

struct Case {
  sb::Mode mode;
  sb::GridShape grid;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (sb::Mode mode : sb::kAllModes)
    for (const sb::GridShape& g : sct::level_test_grids()) out.push_back({mode, g});
  return out;
}

std::string name_of(const Case& c, int level) {
  return std::string(sb::to_string(c.mode)) + " " + c.grid.to_string() + " level " + std::to_string(level);
}

TEST(GpuMultigridGalerkinHost, LevelsAreTheGalerkinProducts) {
  if (std::string why; !sct::host_levels_available(why)) GTEST_SKIP() << why;
  for (const Case& c : cases()) {
    const sc::Problem p = sct::random_problem(c.grid, c.mode, 0.7, 1.5, 83);
    Eigen::MatrixXd a = Eigen::MatrixXd(sc::gpu::level_matrix_host(p, kCoarsenings, 0));
    Eigen::MatrixXd a_abs = a.cwiseAbs();
    sb::GridShape grid = c.grid;
    for (int level = 1; level <= kCoarsenings; ++level) {
      const std::string what = name_of(c, level);
      sb::GridShape coarse;
      const Eigen::MatrixXd prolong = Eigen::MatrixXd(sc::prolongation(grid, c.mode, coarse));
      const Eigen::MatrixXd want = prolong.transpose() * a * prolong;
      const Eigen::MatrixXd scale = prolong.cwiseAbs().transpose() * a_abs * prolong.cwiseAbs();
      const Eigen::MatrixXd got = Eigen::MatrixXd(sc::gpu::galerkin_level_matrix_host(p, kCoarsenings, level));
      ASSERT_EQ(got.rows(), want.rows()) << what;
      ASSERT_GT(want.cwiseAbs().maxCoeff(), 0) << what;
      for (Eigen::Index i = 0; i < want.rows(); ++i)
        for (Eigen::Index j = 0; j < want.cols(); ++j) {
          ASSERT_LE(std::abs(got(i, j) - want(i, j)), 1e-13 * scale(i, j)) << what << " entry " << i << ", " << j;
          ASSERT_LE(std::abs(got(i, j) - got(j, i)), 1e-13 * scale(i, j)) << what << " entry " << i << ", " << j;
        }
      a = want;
      a_abs = scale;
      grid = coarse;
    }
  }
}

TEST(GpuMultigridGalerkinDevice, PassesGiveTheHostsStencil) {
  if (const std::string why = sc::gpu::device_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  for (const Case& c : cases()) {
    const sc::Problem p = sct::random_problem(c.grid, c.mode, 0.7, 1.5, 89);
    for (int level = 1; level <= kCoarsenings; ++level) {
      const std::string what = name_of(c, level);
      const std::vector<double> want = sc::gpu::galerkin_level_stencil_host(p, kCoarsenings, level);
      const std::vector<double> got = sc::gpu::galerkin_level_stencil_device(p, kCoarsenings, level);
      ASSERT_EQ(got.size(), want.size()) << what;
      const std::size_t nodes = want.size() / (c.grid.dims == 2 ? 49 : 343);
      ASSERT_EQ(nodes * (c.grid.dims == 2 ? 49 : 343), want.size()) << what;
      std::vector<double> row_max(nodes, 0.0);
      for (std::size_t i = 0; i < want.size(); ++i) row_max[i % nodes] = std::max(row_max[i % nodes], std::abs(want[i]));
      for (std::size_t i = 0; i < want.size(); ++i)
        ASSERT_LE(std::abs(got[i] - want[i]), 1e-13 * row_max[i % nodes]) << what << " value " << i;
    }
  }
}

}  // namespace
