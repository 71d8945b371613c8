// GPU assembly (atomic shooting and deterministic gather) against the CPU f64 assembly.
// Skips without a device.
//
// Bound, per entry e of row k, with m_k the samples that reach node k and u = 2^-53:
//   |A_gpu[e] - A_cpu[e]| <= 2 (m_k + 210) u (FtF[e] + lambda |R|[e])
// Each assembly computes every per-axis weight within 32 u relative (at most five
// roundings on magnitudes <= 7/6 against a weight >= 1/6 for the middle taps, fewer for
// the outer taps, which are products; merged taps add non-negative values), so a product
// of six weights carries <= 6 * 32 + 5 u; summing <= m_k non-negative products adds
// m_k u of their sum (FtF[e] itself, every weight being >= 0); lambda R adds <= 10 u of
// its terms' absolute sum (three products and six sums of the same tables). Two
// assemblies each within that of the exact value differ by at most twice it. The
// right-hand side: the same with sum_s w_s |f_s| (F^T |f|) as the scale.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "splinebench/error.hpp"
#include "splinebench/scattered/gpu_assembly.hpp"
#include "test_scattered_gpu_support.hpp"

namespace sb = splinebench;
namespace sc = splinebench::scattered;
namespace sct = splinebench::scattered::test;

namespace {

constexpr double kU = 0x1p-53;

struct Case {
  sb::Mode mode;
  int dims;
};

sb::GridShape grid_for(int dims) {
  switch (dims) {
    case 1: return sb::GridShape::make({23});
    case 2: return sb::GridShape::make({13, 11});
    default: return sb::GridShape::make({7, 9, 6});
  }
}

class GpuAssembly : public testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    if (const std::string why = sc::gpu::device_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  }
};

void expect_matches_cpu(const sc::Problem& problem, const sc::NormalEquations& gpu, const char* what) {
  const sc::NormalEquations cpu = sc::assemble(problem);
  sc::Problem unweighted = problem;
  unweighted.lambda = 0;
  for (double& v : unweighted.values) v = std::abs(v);
  const sc::NormalEquations ftf = sc::assemble(unweighted);  // F^T F and F^T |f|
  const std::vector<double> r_abs = sct::thin_plate_abs(problem.grid, problem.mode, problem.lambda);
  const std::vector<int> m = sct::samples_per_row(problem);

  ASSERT_EQ(gpu.matrix.rows(), cpu.matrix.rows());
  ASSERT_EQ(gpu.matrix.nonZeros(), cpu.matrix.nonZeros());
  const int rows = static_cast<int>(cpu.matrix.rows());
  for (int r = 0; r <= rows; ++r) ASSERT_EQ(gpu.matrix.outerIndexPtr()[r], cpu.matrix.outerIndexPtr()[r]) << what;
  int failures = 0;
  for (int r = 0; r < rows && failures < 10; ++r) {
    const double scale_u = 2 * (m[static_cast<std::size_t>(r)] + 210) * kU;
    for (int e = cpu.matrix.outerIndexPtr()[r]; e < cpu.matrix.outerIndexPtr()[r + 1]; ++e) {
      ASSERT_EQ(gpu.matrix.innerIndexPtr()[e], cpu.matrix.innerIndexPtr()[e]) << what << " row " << r;
      const double bound = scale_u * (ftf.matrix.valuePtr()[e] + r_abs[static_cast<std::size_t>(e)]);
      const double diff = std::abs(gpu.matrix.valuePtr()[e] - cpu.matrix.valuePtr()[e]);
      if (!(diff <= bound)) {
        ADD_FAILURE() << what << " entry (" << r << ", " << cpu.matrix.innerIndexPtr()[e] << "): GPU "
                      << gpu.matrix.valuePtr()[e] << " CPU " << cpu.matrix.valuePtr()[e] << " bound " << bound;
        ++failures;
      }
    }
    const double diff = std::abs(gpu.rhs[r] - cpu.rhs[r]);
    if (!(diff <= scale_u * ftf.rhs[r])) {
      ADD_FAILURE() << what << " rhs " << r << ": GPU " << gpu.rhs[r] << " CPU " << cpu.rhs[r];
      ++failures;
    }
  }
}

TEST_P(GpuAssembly, BothMethodsMatchTheCpuAssemblyWithinTheRoundingBound) {
  const Case c = GetParam();
  const sc::Problem problem = sct::random_problem(grid_for(c.dims), c.mode, 0.7, 0.8, 1000 + c.dims);
  sb::PhaseTimes times;
  expect_matches_cpu(problem, sc::gpu::assemble_on_device(problem, sc::gpu::AssemblyMethod::atomic, times), "atomic");
  expect_matches_cpu(problem, sc::gpu::assemble_on_device(problem, sc::gpu::AssemblyMethod::gather, times), "gather");
  for (const char* phase : {"assemble_sort", "assemble_pattern", "assemble_values"}) EXPECT_TRUE(times.has(phase));
}

TEST_P(GpuAssembly, GatherIsBitwiseRepeatable) {
  const Case c = GetParam();
  const sc::Problem problem = sct::random_problem(grid_for(c.dims), c.mode, 0.3, 2.0, 2000 + c.dims);
  sb::PhaseTimes times;
  const sc::NormalEquations a = sc::gpu::assemble_on_device(problem, sc::gpu::AssemblyMethod::gather, times);
  const sc::NormalEquations b = sc::gpu::assemble_on_device(problem, sc::gpu::AssemblyMethod::gather, times);
  ASSERT_EQ(a.matrix.nonZeros(), b.matrix.nonZeros());
  EXPECT_EQ(std::memcmp(a.matrix.valuePtr(), b.matrix.valuePtr(), sizeof(double) * a.matrix.nonZeros()), 0);
  EXPECT_EQ(std::memcmp(a.rhs.data(), b.rhs.data(), sizeof(double) * a.rhs.size()), 0);
}

TEST_P(GpuAssembly, RefusesBadInputWithTheValidationError) {
  sc::Problem problem = sct::random_problem(grid_for(GetParam().dims), GetParam().mode, 0.1, 0.5, 7);
  problem.values[2] = std::nan("");
  sb::PhaseTimes times;
  EXPECT_THROW(sc::gpu::assemble_on_device(problem, sc::gpu::AssemblyMethod::gather, times), sb::Error);
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (sb::Mode mode : sb::kAllModes)
    for (int dims = 1; dims <= 3; ++dims) out.push_back({mode, dims});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Scattered, GpuAssembly, testing::ValuesIn(cases()), [](const auto& info) {
  return std::string(sb::to_string(info.param.mode)) + "_" + std::to_string(info.param.dims) + "D";
});

// The seed's Table 2 size (512^2, top 20 % |Laplacian|): both methods within the bound and
// their times as test properties (the driver's records are the timed results).
TEST(GpuAssemblyLarge, Image512MatchesTheCpuAndRecordsItsPhases) {
  if (const std::string why = sc::gpu::device_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  const sb::GridShape grid = sb::GridShape::make({512, 512});
  const sc::Problem problem = sct::random_problem(grid, sb::Mode::mirror, 2.1, 0.2, 512);
  for (const auto method : {sc::gpu::AssemblyMethod::atomic, sc::gpu::AssemblyMethod::gather}) {
    sb::PhaseTimes times;
    sc::gpu::assemble_on_device(problem, method, times);  // warm-up
    times = {};
    const sc::NormalEquations eq = sc::gpu::assemble_on_device(problem, method, times);
    const std::string name(sc::gpu::to_string(method));
    for (const char* phase : {"assemble_pattern", "assemble_values"})
      RecordProperty(name + "_" + phase + "_ms", std::to_string(times.get(phase) * 1e3));
    if (method == sc::gpu::AssemblyMethod::gather)
      RecordProperty(name + "_assemble_sort_ms", std::to_string(times.get("assemble_sort") * 1e3));
    expect_matches_cpu(problem, eq, name.c_str());
  }
}

}  // namespace
