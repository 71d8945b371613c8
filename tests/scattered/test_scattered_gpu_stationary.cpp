// GPU Jacobi (undamped and damped) and coloured Gauss-Seidel (the seed's gs8x, true
// multicolour forward and symmetric) against their CPU f64 definitions. Skips without a
// device.
//
// Iterates: the first four GPU iterates against the f64 iterates within a componentwise
// bound E_k propagated alongside the f64 iteration (first order in u = 2^-24):
//   the f32 row sum s = b - sum_j a_j x_j (fused, rows of len entries, a and b rounded
//   to f32) is within (len + 3) u (|b| + sum_j |a_j| |x_j|) of its value at the GPU's
//   iterate; dividing by the rounded diagonal (or scaling by omega / d) and storing add
//   2 u |s| / d and u |x_new| (Jacobi) or 2 u |x_new| (GS). The error of the previous
//   iterate propagates through the update's own coefficients: Jacobi
//   |1 - omega a_rr / d| E_r + sum_{j != r} omega |a_rj| / d E_j; GS sum_{j != r} |a_rj| / d E_j
//   with E as it stood before the colour. Second-order terms and the f64 reference's own
//   rounding (below 2^-28 of the bound) are covered by a factor 1 + 2^-10.
#include <gtest/gtest.h>

#include <cmath>

#include "splinebench/scattered/gpu_stationary.hpp"
#include "test_scattered_gpu_support.hpp"

namespace sb = splinebench;
namespace sc = splinebench::scattered;
namespace sct = splinebench::scattered::test;

namespace {

constexpr double kU = 0x1p-24;

enum class Method { jacobi, jacobi_damped, gs8x, gs_mc, sgs_mc };
const char* name_of(Method m) {
  switch (m) {
    case Method::jacobi: return "jacobi";
    case Method::jacobi_damped: return "jacobi_damped";
    case Method::gs8x: return "gs8x";
    case Method::gs_mc: return "gs_mc";
    default: return "sgs_mc";
  }
}

struct Case {
  sb::Mode mode;
  int dims;
  Method method;
};

// Extents that are multiples of 4 so the multicolour order exists in every mode.
sb::GridShape grid_for(int dims) { return dims == 2 ? sb::GridShape::make({12, 8}) : sb::GridShape::make({8, 4, 8}); }

// The f64 iteration and its error bound, together.
class Tracker {
 public:
  Tracker(const sc::NormalEquations& eq, double omega) : a_(eq.matrix), b_(eq.rhs), omega_(omega) {
    const auto n = a_.rows();
    x_ = sc::Vector::Zero(n);
    e_ = sc::Vector::Zero(n);
    d_ = a_.diagonal();
  }
  const sc::Vector& x() const { return x_; }
  const sc::Vector& bound() const { return e_; }

  void jacobi_step() {
    sc::Vector x = x_, e = e_;
    for (int r = 0; r < a_.rows(); ++r) {
      const Row row = row_sums(r, x_, e_, true);
      x[r] = x_[r] + omega_ / d_[r] * row.s;
      e[r] = std::abs(1 - omega_) * e_[r] + omega_ / d_[r] * (row.propagated + row.rounding + 2 * kU * std::abs(row.s)) +
             kU * std::abs(x[r]);
    }
    x_ = x;
    e_ = e;
  }
  void colour_step(const std::vector<int>& members) {
    const sc::Vector x0 = x_, e0 = e_;
    for (int r : members) {
      const Row row = row_sums(r, x0, e0, false);
      x_[r] = row.s / d_[r];
      e_[r] = (row.propagated + row.rounding) / d_[r] + 2 * kU * std::abs(x_[r]);
    }
  }

 private:
  struct Row {
    double s = 0, propagated = 0, rounding = 0;
  };
  // s: b_r - sum a x (all entries for Jacobi, off-diagonal for GS); propagated:
  // sum |a| E over the off-diagonal entries; rounding: (len + 3) u (|b| + sum |a||x|).
  Row row_sums(int r, const sc::Vector& x, const sc::Vector& e, bool include_diagonal) const {
    Row row;
    row.s = b_[r];
    double scale = std::abs(b_[r]);
    int len = 0;
    for (sc::SparseMatrix::InnerIterator it(a_, r); it; ++it) {
      ++len;
      if (it.col() == r && !include_diagonal) continue;
      row.s -= it.value() * x[it.col()];
      scale += std::abs(it.value() * x[it.col()]);
      if (it.col() != r) row.propagated += std::abs(it.value()) * e[it.col()];
    }
    row.rounding = (len + 3) * kU * scale;
    return row;
  }
  const sc::SparseMatrix& a_;
  const sc::Vector& b_;
  double omega_;
  sc::Vector x_, e_, d_;
};

class GpuStationaryTracker : public testing::TestWithParam<Case> {};

class GpuStationary : public testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    if (const std::string why = sc::gpu::device_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  }
};

sc::gpu::StationaryResult run_gpu(Method m, const sb::GridShape& grid, const sc::NormalEquations& eq, double omega,
                                  int iterations) {
  sc::IterationControl control;
  control.max_iterations = iterations;
  control.divergence_factor = 1e30;  // the first iterates of undamped Jacobi grow; compare them anyway
  sb::PhaseTimes times;
  switch (m) {
    case Method::jacobi:
    case Method::jacobi_damped: return sc::gpu::jacobi_f32(eq, omega, control, times);
    case Method::gs8x: return sc::gpu::coloured_gauss_seidel_f32(eq, sc::colouring_seed_gs8x(grid), false, control, times);
    default:
      return sc::gpu::coloured_gauss_seidel_f32(eq, sc::colouring_multicolour(grid, eq.matrix), m == Method::sgs_mc,
                                                control, times);
  }
}

TEST_P(GpuStationary, FirstIteratesMatchTheF64IteratesWithinTheF32Bound) {
  const Case c = GetParam();
  const sb::GridShape grid = grid_for(c.dims);
  const double lambda = c.dims == 2 ? 2.1 : 0.002;
  const sc::Problem problem = sct::random_problem(grid, c.mode, lambda, 0.6, 77 + c.dims);
  const sc::NormalEquations eq = sc::assemble(problem);
  const double omega = c.method == Method::jacobi_damped ? sc::jacobi_damping(eq.matrix) : 1.0;
  Tracker track(eq, omega);
  sc::Colouring colouring;
  if (c.method == Method::gs8x) colouring = sc::colouring_seed_gs8x(grid);
  if (c.method == Method::gs_mc || c.method == Method::sgs_mc) colouring = sc::colouring_multicolour(grid, eq.matrix);
  for (int k = 1; k <= 4; ++k) {
    if (colouring.colours.empty()) {
      track.jacobi_step();
    } else {
      for (const auto& colour : colouring.colours) track.colour_step(colour);
      if (c.method == Method::sgs_mc)
        for (auto it = colouring.colours.rbegin(); it != colouring.colours.rend(); ++it) track.colour_step(*it);
    }
    const sc::gpu::StationaryResult gpu = run_gpu(c.method, grid, eq, omega, k);
    ASSERT_EQ(gpu.report.iterations, k) << gpu.report.message;
    int failures = 0;
    for (Eigen::Index i = 0; i < track.x().size() && failures < 10; ++i) {
      const double bound = track.bound()[i] * (1 + 0x1p-10);
      const double diff = std::abs(gpu.coeffs[static_cast<std::size_t>(i)] - track.x()[i]);
      if (!(diff <= bound)) {
        ADD_FAILURE() << name_of(c.method) << " iterate " << k << " unknown " << i << ": GPU "
                      << gpu.coeffs[static_cast<std::size_t>(i)] << " f64 " << track.x()[i] << " bound " << bound;
        ++failures;
      }
    }
  }
}

// The tracker is the CPU solver's definition: checked against the CPU solver itself
// (runs without a device).
TEST_P(GpuStationaryTracker, ReproducesTheCpuSolversIterates) {
  const Case c = GetParam();
  const sb::GridShape grid = grid_for(c.dims);
  const sc::Problem problem = sct::random_problem(grid, c.mode, c.dims == 2 ? 2.1 : 0.002, 0.6, 77 + c.dims);
  const sc::NormalEquations eq = sc::assemble(problem);
  const double omega = c.method == Method::jacobi_damped ? sc::jacobi_damping(eq.matrix) : 1.0;
  sc::Colouring colouring;
  if (c.method == Method::gs8x) colouring = sc::colouring_seed_gs8x(grid);
  if (c.method == Method::gs_mc || c.method == Method::sgs_mc) colouring = sc::colouring_multicolour(grid, eq.matrix);
  Tracker track(eq, omega);
  for (int k = 0; k < 4; ++k) {
    if (colouring.colours.empty()) {
      track.jacobi_step();
    } else {
      for (const auto& colour : colouring.colours) track.colour_step(colour);
      if (c.method == Method::sgs_mc)
        for (auto it = colouring.colours.rbegin(); it != colouring.colours.rend(); ++it) track.colour_step(*it);
    }
  }
  sc::IterationControl control;
  control.max_iterations = 4;
  control.divergence_factor = 1e30;
  sc::Vector x = sc::Vector::Zero(eq.rhs.size());
  if (colouring.colours.empty()) sc::jacobi(eq.matrix, eq.rhs, x, omega, control);
  else sc::coloured_gauss_seidel(eq.matrix, eq.rhs, x, colouring, c.method == Method::sgs_mc, control);
  EXPECT_LE((x - track.x()).norm(), 1e-12 * x.norm());
  EXPECT_GT(track.bound().maxCoeff(), 0.0);
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (sb::Mode mode : sb::kAllModes)
    for (int dims = 2; dims <= 3; ++dims)
      for (Method m : {Method::jacobi, Method::jacobi_damped, Method::gs8x, Method::gs_mc, Method::sgs_mc})
        out.push_back({mode, dims, m});
  return out;
}

std::string case_name(const testing::TestParamInfo<Case>& info) {
  return std::string(sb::to_string(info.param.mode)) + "_" + std::to_string(info.param.dims) + "D_" +
         name_of(info.param.method);
}
INSTANTIATE_TEST_SUITE_P(Scattered, GpuStationary, testing::ValuesIn(cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Scattered, GpuStationaryTracker, testing::ValuesIn(cases()), case_name);

// Where the CPU solver converges, the GPU one converges (to 1e-4, which f32 reaches), and
// undamped Jacobi on a 3-D volume diverges on both with a finite iterate.
TEST(GpuStationaryOutcome, ConvergesWhereTheCpuSolverConvergesAndDivergesWhereItDiverges) {
  if (const std::string why = sc::gpu::device_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  const sb::GridShape grid = sb::GridShape::make({16, 16});
  const sc::NormalEquations eq = sc::assemble(sct::random_problem(grid, sb::Mode::mirror, 2.1, 0.5, 5));
  sc::IterationControl control;
  control.tolerance = 1e-4;
  control.max_iterations = 20000;
  sb::PhaseTimes times;
  {
    sc::Vector x = sc::Vector::Zero(eq.rhs.size());
    const double omega = sc::jacobi_damping(eq.matrix);
    const sc::SolveReport cpu = sc::jacobi(eq.matrix, eq.rhs, x, omega, control);
    ASSERT_EQ(cpu.status, sc::SolveStatus::converged);
    const auto gpu = sc::gpu::jacobi_f32(eq, omega, control, times);
    EXPECT_EQ(gpu.report.status, sc::SolveStatus::converged) << gpu.report.message;
    RecordProperty("damped_jacobi_iterations_cpu_gpu",
                   std::to_string(cpu.iterations) + " " + std::to_string(gpu.report.iterations));
  }
  {
    const sc::Colouring colouring = sc::colouring_multicolour(grid, eq.matrix);
    sc::Vector x = sc::Vector::Zero(eq.rhs.size());
    const sc::SolveReport cpu = sc::coloured_gauss_seidel(eq.matrix, eq.rhs, x, colouring, true, control);
    ASSERT_EQ(cpu.status, sc::SolveStatus::converged);
    const auto gpu = sc::gpu::coloured_gauss_seidel_f32(eq, colouring, true, control, times);
    EXPECT_EQ(gpu.report.status, sc::SolveStatus::converged) << gpu.report.message;
  }
  {
    const sb::GridShape vol = sb::GridShape::make({9, 9, 9});
    const sc::NormalEquations eq3 = sc::assemble(sct::random_problem(vol, sb::Mode::mirror, 0.002, 0.3, 6));
    sc::IterationControl c3;
    c3.max_iterations = 2000;
    sc::Vector x = sc::Vector::Zero(eq3.rhs.size());
    const sc::SolveReport cpu = sc::jacobi(eq3.matrix, eq3.rhs, x, 1.0, c3);
    ASSERT_EQ(cpu.status, sc::SolveStatus::diverged);
    const auto gpu = sc::gpu::jacobi_f32(eq3, 1.0, c3, times);
    EXPECT_EQ(gpu.report.status, sc::SolveStatus::diverged);
    for (float v : gpu.coeffs) ASSERT_TRUE(std::isfinite(v));
  }
}

TEST(GpuStationaryPrepared, UploadsOnceAndEverySolveStartsAfreshWithTheSameBits) {
  if (const std::string why = sc::gpu::device_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  const sb::GridShape grid = sb::GridShape::make({16, 16});
  const sc::NormalEquations eq = sc::assemble(sct::random_problem(grid, sb::Mode::mirror, 2.1, 0.5, 7));
  sc::IterationControl longer;
  longer.max_iterations = 40;
  sc::IterationControl shorter;
  shorter.max_iterations = 25;
  shorter.tolerance = 1e-30;  // a tolerance too: the history and the per-iteration check
  for (int method = 0; method < 2; ++method) {
    sc::gpu::PreparedStationary prepared =
        method == 0 ? sc::gpu::PreparedStationary::jacobi(eq, sc::jacobi_damping(eq.matrix))
                    : sc::gpu::PreparedStationary::gauss_seidel(eq, sc::colouring_multicolour(grid, eq.matrix), true);
    EXPECT_GT(prepared.setup().get(sb::phase::upload), 0.0) << "the layout is uploaded when prepared";
    sb::PhaseTimes first_times, second_times, third_times;
    const auto first = prepared.solve(longer, first_times);
    const auto between = prepared.solve(shorter, second_times);  // another budget and a tolerance between
    const auto again = prepared.solve(longer, third_times);
    for (const sb::PhaseTimes* t : {&first_times, &second_times, &third_times})
      EXPECT_FALSE(t->has(sb::phase::upload)) << "a solve uploads nothing";
    ASSERT_EQ(first.coeffs.size(), again.coeffs.size());
    EXPECT_EQ(first.report.iterations, 40);
    EXPECT_EQ(between.report.iterations, 25);
    EXPECT_EQ(between.report.history.size(), 25u);
    EXPECT_EQ(again.report.iterations, 40);
    for (std::size_t i = 0; i < first.coeffs.size(); ++i)
      ASSERT_EQ(first.coeffs[i], again.coeffs[i]) << "method " << method << ", coefficient " << i;
    // The one-shot function is the same preparation and one solve.
    sb::PhaseTimes once_times;
    const auto once = method == 0 ? sc::gpu::jacobi_f32(eq, sc::jacobi_damping(eq.matrix), longer, once_times)
                                  : sc::gpu::coloured_gauss_seidel_f32(
                                        eq, sc::colouring_multicolour(grid, eq.matrix), true, longer, once_times);
    EXPECT_TRUE(once_times.has(sb::phase::upload));
    for (std::size_t i = 0; i < first.coeffs.size(); ++i) ASSERT_EQ(first.coeffs[i], once.coeffs[i]);
  }
}

}  // namespace
